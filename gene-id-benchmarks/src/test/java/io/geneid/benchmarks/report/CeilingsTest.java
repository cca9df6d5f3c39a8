package io.geneid.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CeilingsTest {

  private static Ceiling of(String benchmark, Map<String, String> params) {
    return Ceilings.of("io.geneid.benchmarks." + benchmark, params).orElseThrow();
  }

  @Test
  void geneIdCeilingsComeFromTheLayout() {
    Ceiling hot = of("GeneSnowflakeBenchmark.hotGene", Map.of("layout", "default"));
    assertThat(hot.opsPerMs()).isEqualTo(256);
    assertThat(hot.layout()).isEqualTo("T41 W8 S8 G6");
    assertThat(hot.basis()).isEqualTo("2^S = 256 per gene");
    assertThat(hot.borrows()).isEqualTo("at most 10 ms");
    for (String m : new String[] {"allGenes", "spread", "forParent"}) {
      Ceiling c = of("GeneSnowflakeBenchmark." + m, Map.of("layout", "default"));
      assertThat(c.opsPerMs()).as(m).isEqualTo(16_384);
      assertThat(c.basis()).isEqualTo("2^(S+G) = 16384 per worker");
    }
    Ceiling classic = of("GeneSnowflakeBenchmark.spread", Map.of("layout", "classic"));
    assertThat(classic.opsPerMs()).isEqualTo(4096);
    assertThat(classic.layout()).isEqualTo("T41 W10 S12");
    assertThat(of("GeneSnowflakeBenchmark.hotGene", Map.of("layout", "classic")).opsPerMs()).isEqualTo(4096);
  }

  @Test
  void publishedDesignCeilingsComeFromItsSevenSequenceAndFiveGeneBits() {
    Ceiling hot = of("PublishedGeneBenchmark.hotGene", Map.of());
    assertThat(hot.opsPerMs()).isEqualTo(128);
    assertThat(hot.layout()).isEqualTo("T41 W10 S7 G5");
    assertThat(hot.borrows()).isEqualTo("unbounded");
    assertThat(of("PublishedGeneBenchmark.allGenes", Map.of()).opsPerMs()).isEqualTo(4096);
  }

  @Test
  void peerCeilingsComeFromThePeersOwnConstants() {
    for (String m : new String[] {"shardingSphereSnowflake", "myBatisPlusDefault", "cosIdMillisecondSnowflake",
        "hutoolSnowflake"}) {
      Ceiling c = of("PeerBenchmark." + m, Map.of());
      assertThat(c.opsPerMs()).as(m).isEqualTo(4096);
      assertThat(c.layout()).as(m).isEqualTo("T41 W10 S12");
    }
    Ceiling yitter = of("PeerBenchmark.yitter", Map.of());
    assertThat(yitter.opsPerMs()).isEqualTo(59);
    assertThat(yitter.layout()).isEqualTo("T51 W6 S6");
    assertThat(yitter.borrows()).isEqualTo("up to 2000 ms (\"drift\")");
  }

  @Test
  void otherBenchmarksHaveNoCeiling() {
    assertThat(Ceilings.of("io.geneid.benchmarks.e2e.ShardingSphereRoutingBenchmark.insertChild", Map.of()))
        .isEmpty();
  }
}
