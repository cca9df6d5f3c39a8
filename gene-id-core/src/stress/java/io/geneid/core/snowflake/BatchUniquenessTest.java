package io.geneid.core.snowflake;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdGenerator;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Batches and single calls mixed on several threads, on the real default clock: no duplicate, and no id more than
 * {@code maxBorrowMillis} ahead of the clock read after the call that made it.
 */
class BatchUniquenessTest {

  private static final int THREADS = 3;
  private static final int PER_THREAD = 600_000;
  private static final long MAX_BORROW = 5;

  @Test
  void batchesAndSinglesOnFewGenes() throws Exception {
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().workerId(3).maxBorrowMillis(MAX_BORROW)
        .buildUnshared();
    long[] ids = run(g, () -> {
      ThreadLocalRandom r = ThreadLocalRandom.current();
      long parent = r.nextInt(4); // four genes: threads compete for the same sequences
      return switch (r.nextInt(4)) {
        case 0 -> new long[] {g.nextIdFor(parent)};
        case 1 -> g.nextIdsFor(parent, 1 + r.nextInt(700));
        case 2 -> GeneContext.call(parent, () -> g.nextIds(1 + r.nextInt(300)));
        default -> g.nextIds(1 + r.nextInt(200));
      };
    });
    assertNoDuplicate(ids);
  }

  private static long[] run(GeneSnowflakeGenerator g, Callable<long[]> batch) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      Callable<long[]> task = () -> {
        long[] out = new long[PER_THREAD + GeneIdGenerator.MAX_BATCH];
        int n = 0;
        start.await();
        while (n < PER_THREAD) {
          long[] made = batch.call();
          long clockAfter = g.clock().currentTimeMillis();
          for (long id : made) {
            long lead = g.layout().decode(id).timestamp().toEpochMilli() - clockAfter;
            assertThat(lead).as("lead of %d", id).isLessThanOrEqualTo(MAX_BORROW);
          }
          System.arraycopy(made, 0, out, n, made.length);
          n += made.length;
        }
        return Arrays.copyOf(out, n);
      };
      Future<long[]>[] futures = new Future[THREADS];
      for (int t = 0; t < THREADS; t++) {
        futures[t] = pool.submit(task);
      }
      start.countDown();
      long[] all = new long[0];
      for (Future<long[]> f : futures) {
        long[] part = f.get();
        long[] joined = Arrays.copyOf(all, all.length + part.length);
        System.arraycopy(part, 0, joined, all.length, part.length);
        all = joined;
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
    assertThat(duplicates).as("duplicates among %d ids", ids.length).isZero();
    assertThat(ids.length).isGreaterThanOrEqualTo(THREADS * PER_THREAD);
  }
}
