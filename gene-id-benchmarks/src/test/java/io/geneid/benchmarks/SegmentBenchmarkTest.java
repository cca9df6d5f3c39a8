package io.geneid.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every segment benchmark runs outside JMH: states set up as JMH sets them up, each benchmark method called from two
 * threads sharing one generator (as at {@code -t 2}), across several segment switches, issues unique positive ids.
 * This proves the wiring, not the speed.
 */
class SegmentBenchmarkTest {

  private static final int THREADS = 2;

  /**
   * Calls per thread: more values than the first three segments of the slowest-growing generator
   * ({@code DefaultSegmentId}), so that every generator switches segments at either step.
   */
  private static int callsPerThread(long step) {
    return (int) Math.max(20_000, 3 * step / THREADS + 1);
  }

  private static SegmentBenchmark benchmark(long step) {
    SegmentBenchmark b = new SegmentBenchmark();
    b.step = step;
    return b;
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({"1000, adaptive", "100000, adaptive", "1000, pinned",
      "1000, thread-block"})
  void geneSegmentSpreadIssuesUniqueIdsOverEveryGene(long step, String policy) throws Exception {
    SegmentBenchmark b = benchmark(step);
    SegmentBenchmark.GeneSegment state = new SegmentBenchmark.GeneSegment();
    state.policy = policy;
    state.setUp(b);
    try {
      Set<Long> ids = unique("geneSegmentSpread", step, () -> () -> b.geneSegmentSpread(state));
      long maxGene = (1L << SegmentBenchmark.GENE_BITS) - 1;
      assertThat(ids.stream().map(id -> id & maxGene).distinct()).hasSize((int) maxGene + 1);
    } finally {
      state.tearDown();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1000, 100_000})
  void geneSegmentForParentIssuesUniqueIdsWithTheParentsGene(long step) throws Exception {
    SegmentBenchmark b = benchmark(step);
    SegmentBenchmark.GeneSegment state = new SegmentBenchmark.GeneSegment();
    state.setUp(b);
    long maxGene = (1L << SegmentBenchmark.GENE_BITS) - 1;
    try {
      unique("geneSegmentForParent", step, () -> {
        SegmentBenchmark.Parents parents = new SegmentBenchmark.Parents(); // per thread, as Scope.Thread
        parents.setUp();
        return () -> {
          long parentKey = parents.keys[parents.next & 1023];
          long id = b.geneSegmentForParent(state, parents);
          assertThat(id & maxGene).isEqualTo(parentKey & maxGene);
          return id;
        };
      });
    } finally {
      state.tearDown();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1000, 100_000})
  void cosIdSegmentChainIssuesUniqueIds(long step) throws Exception {
    SegmentBenchmark b = benchmark(step);
    SegmentBenchmark.CosIdChain state = new SegmentBenchmark.CosIdChain();
    state.setUp(b);
    try {
      unique("cosIdSegmentChain", step, () -> () -> b.cosIdSegmentChain(state));
    } finally {
      state.tearDown();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1000, 100_000})
  void cosIdDefaultSegmentIssuesUniqueIds(long step) throws Exception {
    SegmentBenchmark b = benchmark(step);
    SegmentBenchmark.CosIdDefault state = new SegmentBenchmark.CosIdDefault();
    state.setUp(b);
    unique("cosIdDefaultSegment", step, () -> () -> b.cosIdDefaultSegment(state));
  }

  @Test
  void theSharedCounterIssuesUniqueIds() throws Exception {
    SegmentBenchmark b = benchmark(1000);
    SegmentBenchmark.SharedCounter state = new SegmentBenchmark.SharedCounter();
    assertThat(unique("sharedCounter", 1000, () -> () -> b.sharedCounter(state))).contains(1L);
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 1000, 100_000})
  void theInMemoryStoreHandsOutAdjacentSegmentsOfExactlyStepValuesFromOne(long step) {
    SegmentBenchmark.AtomicSegmentStore store = new SegmentBenchmark.AtomicSegmentStore();
    assertThat(store.nextSegment("t", step)).hasToString("[1, " + step + "]");
    assertThat(store.nextSegment("t", step)).hasToString("[" + (step + 1) + ", " + 2 * step + "]");
  }

  /**
   * Calls a benchmark method from {@link #THREADS} threads at once ({@code perThread} makes each thread's call,
   * with its own per-thread state) and checks that every id is positive and unique; returns the ids.
   */
  private static Set<Long> unique(String name, long step, Supplier<LongSupplier> perThread) throws Exception {
    int calls = callsPerThread(step);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        Callable<long[]> task = () -> {
          LongSupplier call = perThread.get();
          long[] ids = new long[calls];
          for (int i = 0; i < calls; i++) {
            ids[i] = call.getAsLong();
          }
          return ids;
        };
        futures.add(pool.submit(task));
      }
      Set<Long> ids = new HashSet<>();
      for (Future<long[]> f : futures) {
        for (long id : f.get()) {
          ids.add(id);
        }
      }
      assertThat(ids).as(name + " at step " + step).hasSize(THREADS * calls).allMatch(id -> id > 0);
      return ids;
    } finally {
      pool.shutdownNow();
    }
  }
}
