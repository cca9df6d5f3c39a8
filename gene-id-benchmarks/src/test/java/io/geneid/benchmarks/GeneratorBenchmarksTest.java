package io.geneid.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * Every generator benchmark runs outside JMH: states set up, each benchmark method issues unique positive ids. This
 * proves the wiring, not the speed.
 */
class GeneratorBenchmarksTest {

  private static final int CALLS = 20_000;

  @Test
  void geneIdBenchmarksIssueUniqueIdsWithTheExpectedGenes() {
    for (String layout : new String[] {Layouts.DEFAULT, Layouts.CLASSIC}) {
      GeneSnowflakeBenchmark b = new GeneSnowflakeBenchmark();
      b.layout = layout;
      b.setUp();
      GeneSnowflakeBenchmark.Cursor cursor = new GeneSnowflakeBenchmark.Cursor();
      cursor.setUp(b);
      GeneSnowflakeBenchmark.Cursor parents = new GeneSnowflakeBenchmark.Cursor();
      parents.setUp(b);
      long maxGene = b.generator.layout().maxGene();
      Set<Long> ids = new HashSet<>();
      Set<Long> genes = new HashSet<>();
      for (int i = 0; i < CALLS; i++) {
        long hot = b.hotGene();
        assertThat(hot & maxGene).isEqualTo(GeneSnowflakeBenchmark.HOT_GENE & maxGene);
        long all = b.allGenes(cursor);
        genes.add(all & maxGene);
        ids.add(hot);
        ids.add(all);
        ids.add(b.spread());
        ids.add(b.forParent(parents));
      }
      assertThat(ids).as(layout).hasSize(4 * CALLS).allMatch(id -> id > 0);
      assertThat(genes).as(layout).hasSize((int) maxGene + 1);
    }
  }

  @Test
  void publishedDesignBenchmarkIssuesUniqueIds() {
    PublishedGeneBenchmark b = new PublishedGeneBenchmark();
    b.setUp();
    PublishedGeneBenchmark.Cursor cursor = new PublishedGeneBenchmark.Cursor();
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < CALLS; i++) {
      ids.add(b.hotGene());
      ids.add(b.allGenes(cursor));
    }
    assertThat(ids).hasSize(2 * CALLS).allMatch(id -> id > 0);
  }

  @Test
  void everyPeerIssuesUniqueIds() {
    PeerBenchmark b = new PeerBenchmark();
    PeerBenchmark.ShardingSphere ss = new PeerBenchmark.ShardingSphere();
    ss.setUp();
    PeerBenchmark.MyBatisPlus mp = new PeerBenchmark.MyBatisPlus();
    mp.setUp();
    PeerBenchmark.CosId cosId = new PeerBenchmark.CosId();
    cosId.setUp();
    PeerBenchmark.Hutool hutool = new PeerBenchmark.Hutool();
    hutool.setUp();
    PeerBenchmark.Yitter yitter = new PeerBenchmark.Yitter();
    yitter.setUp();

    assertUnique("ShardingSphere", () -> {
      Collection<? extends Comparable<?>> keys = b.shardingSphereSnowflake(ss);
      assertThat(keys).hasSize(1);
      return (Long) keys.iterator().next();
    });
    assertUnique("MyBatis-Plus", () -> b.myBatisPlusDefault(mp).longValue());
    assertUnique("CosId", () -> b.cosIdMillisecondSnowflake(cosId));
    assertUnique("Hutool", () -> b.hutoolSnowflake(hutool));
    assertUnique("yitter", () -> b.yitter(yitter));
  }

  private static void assertUnique(String name, LongSupplier ids) {
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < CALLS; i++) {
      seen.add(ids.getAsLong());
    }
    assertThat(seen).as(name).hasSize(CALLS).allMatch(id -> id > 0);
  }
}
