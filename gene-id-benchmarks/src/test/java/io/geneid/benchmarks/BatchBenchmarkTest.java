package io.geneid.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Blackhole;

/** The batch benchmarks outside JMH: each batch method returns {@value BatchBenchmark#BATCH} unique ids. */
class BatchBenchmarkTest {

  @Test
  void batchMethodsIssueUniqueIdsOfTheParentsGene() {
    BatchBenchmark b = new BatchBenchmark();
    b.setUp();
    try {
      BatchBenchmark.Parent p = new BatchBenchmark.Parent();
      Set<Long> ids = new HashSet<>();
      for (int round = 0; round < 70; round++) {
        long gene = p.next;
        long[] snow = b.snowflakeBatchForParent(p);
        long[] seg = b.segmentBatchForParent(p);
        assertThat(snow).hasSize(BatchBenchmark.BATCH);
        assertThat(seg).hasSize(BatchBenchmark.BATCH);
        assertThat(java.util.Arrays.stream(snow).allMatch(id -> (id & 63) == (gene & 63))).isTrue();
        assertThat(java.util.Arrays.stream(seg).allMatch(id -> (id & 63) == ((gene + 1) & 63))).isTrue();
        for (long[] batch : new long[][] {snow, seg, b.snowflakeBatchRoots(), b.segmentBatchRoots()}) {
          for (long id : batch) {
            assertThat(id).isPositive();
            ids.add(id);
          }
        }
      }
      // snowflake ids (far above 2^40) and segment ids (values from 1) never coincide: all distinct
      assertThat(ids).hasSize(70 * 4 * BatchBenchmark.BATCH);
      Blackhole bh = new Blackhole(
          "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
      b.snowflakeSinglesForParent(p, bh);
      b.segmentSinglesRoots(bh);
    } finally {
      b.tearDown();
    }
  }

}
