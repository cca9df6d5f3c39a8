package io.geneid.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  void segmentIdsHaveNoBitCeilingAndSayWhatBoundsThem() {
    String basis = "no bit ceiling; store-bound: one store round trip per segment (step adapts from 1,000 up to "
        + "1,000,000)";
    Ceiling spread = of("SegmentBenchmark.geneSegmentSpread", Map.of("step", "1000"));
    assertThat(spread.hasBitCeiling()).isFalse();
    assertThat(spread.opsPerMs()).isNaN();
    assertThat(spread).isEqualTo(new Ceiling("gene-id GeneSegmentGenerator", "nextId(), spread", "V57 G6",
        Double.NaN, basis, "n/a (no clock)"));
    assertThat(of("SegmentBenchmark.geneSegmentForParent", Map.of("step", "1000")).call())
        .isEqualTo("nextIdFor(long parentKey)");
    Ceiling chain = of("SegmentBenchmark.cosIdSegmentChain", Map.of("step", "100000"));
    assertThat(chain.generator()).isEqualTo("CosId 2.x SegmentChainId");
    assertThat(chain.layout()).isEqualTo("V63");
    assertThat(chain.basis())
        .isEqualTo("no bit ceiling; store-bound: one store round trip per segment (100,000 x segments merged while "
            + "hungry)");
    assertThat(chain.hasBitCeiling()).isFalse();
    Ceiling plain = of("SegmentBenchmark.cosIdDefaultSegment", Map.of("step", "1000"));
    assertThat(plain.generator()).isEqualTo("CosId 2.x DefaultSegmentId");
    assertThat(plain.basis()).endsWith("per segment (exactly 1,000)");
    Ceiling floor = of("SegmentBenchmark.sharedCounter", Map.of("step", "1000"));
    assertThat(floor.generator()).isEqualTo("one shared AtomicLong (no generator)");
    assertThat(floor.hasBitCeiling()).isFalse();
    assertThat(of("GeneSnowflakeBenchmark.spread", Map.of("layout", "default")).hasBitCeiling()).isTrue();
  }

  @Test
  void anUnknownSegmentMethodIsAnError() {
    assertThatThrownBy(() -> Ceilings.of("io.geneid.benchmarks.SegmentBenchmark.nope", Map.of("step", "1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("unknown segment benchmark method nope");
  }

  @Test
  void otherBenchmarksHaveNoCeiling() {
    assertThat(Ceilings.of("io.geneid.benchmarks.e2e.ShardingSphereRoutingBenchmark.insertChild", Map.of()))
        .isEmpty();
  }
}
