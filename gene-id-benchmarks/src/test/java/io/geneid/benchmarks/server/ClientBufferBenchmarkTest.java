package io.geneid.benchmarks.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client benchmark outside JMH: its state set up as JMH sets it up (a live server in this JVM, a client over
 * it), each benchmark method called from 4 threads sharing the client (as at {@code -t 4}), across several refills,
 * issues unique positive ids. This proves the wiring, not the speed.
 */
class ClientBufferBenchmarkTest {

  private static final int THREADS = 4;
  /** Per thread: several refills of the small batch below. */
  private static final int CALLS = 3_000;

  private static ClientBufferBenchmark bench;

  @BeforeAll
  static void setUp() {
    bench = new ClientBufferBenchmark();
    bench.batchSize = 500;
    bench.setUp();
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (bench != null) {
      bench.tearDown();
    }
  }

  @Test
  void snowflakeSpreadIssuesUniqueIdsOverEveryGene() throws Exception {
    Set<Long> ids = unique(() -> bench::snowflakeSpread);
    assertThat(ids.stream().map(id -> id & 63).distinct()).hasSize(64);
    assertThat(ids.stream().map(id -> bench.client.layout().decode(id).workerId()).distinct()).containsExactly(1L);
  }

  @Test
  void snowflakeForParentIssuesIdsWithTheParentsGene() throws Exception {
    unique(() -> {
      ClientBufferBenchmark.Parent p = new ClientBufferBenchmark.Parent(); // per thread, as Scope.Thread
      return () -> {
        long parent = p.key;
        long id = bench.snowflakeForParent(p);
        assertThat(id & 63).isEqualTo(parent & 63);
        return id;
      };
    });
  }

  @Test
  void segmentSpreadIssuesUniqueIdsOverEveryGene() throws Exception {
    Set<Long> ids = unique(() -> bench::segmentSpread);
    assertThat(ids.stream().map(id -> id & 63).distinct()).hasSize(64);
  }

  /** {@link #THREADS} threads call at once ({@code perThread} makes each thread's call); every id positive, unique. */
  private static Set<Long> unique(java.util.function.Supplier<LongSupplier> perThread) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        futures.add(pool.submit(() -> {
          LongSupplier call = perThread.get();
          long[] ids = new long[CALLS];
          for (int i = 0; i < CALLS; i++) {
            ids[i] = call.getAsLong();
          }
          return ids;
        }));
      }
      Set<Long> ids = new HashSet<>();
      for (Future<long[]> f : futures) {
        for (long id : f.get()) {
          ids.add(id);
        }
      }
      assertThat(ids).hasSize(THREADS * CALLS).allMatch(id -> id > 0);
      return ids;
    } finally {
      pool.shutdownNow();
    }
  }
}
