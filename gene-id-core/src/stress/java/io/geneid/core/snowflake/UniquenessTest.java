package io.geneid.core.snowflake;

import io.geneid.core.GeneContext;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** Two threads, a million ids each, on the real default clock: no duplicate. */
class UniquenessTest {

  private static final int THREADS = 2;
  private static final int PER_THREAD = 1_000_000;

  @Test
  void acrossAllGenes() throws Exception {
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().workerId(1).buildUnshared();
    long[] ids = run(g::nextId);
    assertNoDuplicate(ids);
    long[] perGene = new long[64];
    for (long id : ids) {
      perGene[(int) g.getGene(id)]++;
    }
    assertThat(Arrays.stream(perGene).min().getAsLong()).isPositive();
  }

  @Test
  void onOneGene() throws Exception {
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().workerId(1).buildUnshared();
    long[] ids = run(() -> g.nextId(17));
    assertNoDuplicate(ids);
    assertThat(Arrays.stream(ids).allMatch(id -> g.getGene(id) == 17)).isTrue();
  }

  @Test
  void withParentsAcrossThreadsAndScopes() throws Exception {
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().workerId(2).buildUnshared();
    long[] ids = run(() -> GeneContext.call(System.nanoTime(), g::nextId));
    assertNoDuplicate(ids);
  }

  private static long[] run(LongSupplier next) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      Callable<long[]> task = () -> {
        long[] out = new long[PER_THREAD];
        start.await();
        for (int i = 0; i < PER_THREAD; i++) {
          out[i] = next.getAsLong();
        }
        return out;
      };
      Future<long[]>[] futures = new Future[THREADS];
      for (int t = 0; t < THREADS; t++) {
        futures[t] = pool.submit(task);
      }
      start.countDown();
      long[] all = new long[THREADS * PER_THREAD];
      for (int t = 0; t < THREADS; t++) {
        System.arraycopy(futures[t].get(), 0, all, t * PER_THREAD, PER_THREAD);
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  private static void assertNoDuplicate(long[] ids) {
    long[] sorted = ids.clone();
    Arrays.sort(sorted);
    int duplicates = 0;
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        duplicates++;
      }
    }
    assertThat(duplicates).as("duplicate ids among %d", ids.length).isZero();
    assertThat(sorted[0]).isPositive();
  }
}
