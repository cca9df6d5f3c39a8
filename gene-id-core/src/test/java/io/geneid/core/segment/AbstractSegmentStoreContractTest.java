package io.geneid.core.segment;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.lease.AbstractWorkerIdAssignerContractTest;
import io.geneid.core.GeneClock;
import io.geneid.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link SegmentStore} must do, alone and under a {@link GeneSegmentGenerator}, run against the real store
 * by one subclass per backend (as {@link AbstractWorkerIdAssignerContractTest} does for leases): new tags start at
 * one, racing claims get disjoint ranges, generators sharing a store never issue an id twice, a restart continues
 * above everything handed out, the step adapts to the consumption rate, and a store that lost its counter is refused.
 * Backends the test can cut off also implement {@link SegmentStoreOutageContract}.
 */
public abstract class AbstractSegmentStoreContractTest {

  /** How long a test waits for the background prefetch. */
  protected static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** The tag of the generator tests. */
  protected static final String TAG = "order";

  private final List<AutoCloseable> closeables = new ArrayList<>();
  /** A clock the test moves: step adaptation and prefetch retries stand still unless the test says so. */
  private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
  private final GeneClock clock = now::get;

  /** A new store on this test's own namespace (database, key prefix), as one more process would open it. */
  protected abstract SegmentStore newStore();

  /** The highest value the store has handed out for {@code tag} (its counter), read from the store itself. */
  protected abstract long counter(String tag);

  /** Makes the store forget {@code tag}, as a Redis without persistence does on restart. */
  protected abstract void loseCounter(String tag);

  /** Claims per racing thread (more where the store is fast). */
  protected int claimsPerRacingThread() {
    return 40;
  }

  /** Ids per thread of the two-generator uniqueness test (more where the store is fast). */
  protected int idsPerThread() {
    return 25_000;
  }

  /** Checks a backend-specific record of the step last asked for (e.g. a column). */
  protected void assertStoredStep(String tag, long step) {}

  /** Closes {@code closeable} after the test, in the reverse order of tracking. */
  public final <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  @AfterEach
  void closeTracked() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  // ---------------------------------------------------------------- the store

  @Test
  void aNewTagStartsAtOneAndRangesFollowTheCounter() {
    SegmentStore store = newStore();
    assertThat(store.nextSegment("order", 10)).isEqualTo(new Segment(1, 10));
    assertThat(store.nextSegment("order", 20)).isEqualTo(new Segment(11, 30));
    assertThat(store.nextSegment("item", 5)).isEqualTo(new Segment(1, 5));
    assertThat(counter("order")).isEqualTo(30);
    assertThat(counter("item")).isEqualTo(5);
  }

  @Test
  void racingClaimsGetDisjointRangesThatCoverTheCounter() throws Exception {
    int threads = 6;
    int claimsPerThread = claimsPerRacingThread();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<Segment>>> futures = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        // one store per thread: as many processes racing for the same tag, starting with its creation
        SegmentStore store = newStore();
        futures.add(pool.submit(() -> {
          go.await();
          List<Segment> mine = new ArrayList<>();
          for (int i = 0; i < claimsPerThread; i++) {
            mine.add(store.nextSegment("race", 1 + ThreadLocalRandom.current().nextInt(50)));
          }
          return mine;
        }));
      }
      go.countDown();
      List<Segment> all = new ArrayList<>();
      for (Future<List<Segment>> f : futures) {
        all.addAll(f.get());
      }
      all.sort(Comparator.comparingLong(Segment::start));
      long expectedStart = 1;
      for (Segment s : all) {
        assertThat(s.start()).as("segments overlap or leave a hole at %s", s).isEqualTo(expectedStart);
        expectedStart = s.endInclusive() + 1;
      }
      assertThat(all).hasSize(threads * claimsPerThread);
      assertThat(counter("race")).isEqualTo(expectedStart - 1);
    } finally {
      pool.shutdownNow();
    }
  }

  // ---------------------------------------------------------------- the generator over the store

  @Test
  void threadsOfTwoGeneratorsOnOneStoreNeverIssueTheSameId() throws Exception {
    // two stores and generators: as two applications sharing the store
    GeneSegmentGenerator g1 = generator(newStore(), 10, 100, GeneClock.system());
    GeneSegmentGenerator g2 = generator(newStore(), 10, 100, GeneClock.system());
    GeneIdLayout layout = GeneIdLayout.defaults();
    int threads = 4;
    int perThread = idsPerThread();
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        GeneSegmentGenerator g = t % 2 == 0 ? g1 : g2;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            long id;
            if ((i & 1) == 0) {
              id = g.nextId();
            } else if ((i & 2) == 0) {
              long parent = i * 7919L;
              id = g.nextIdFor(parent);
              if (g.getGene(id) != (parent & 63)) {
                throw new AssertionError("id " + id + " does not carry the gene of " + parent);
              }
            } else {
              String parent = "customer-" + i;
              id = g.nextIdFor(parent);
              if (g.getGene(id) != layout.geneOf(parent)) {
                throw new AssertionError("id " + id + " does not carry the gene of " + parent);
              }
            }
            if (!ids.add(id)) {
              throw new AssertionError("duplicate id " + id);
            }
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(ids).hasSize(threads * perThread).allMatch(id -> id > 0);
  }

  @Test
  void aRestartedGeneratorContinuesAboveEveryValueHandedOutBefore() {
    long highestBefore = 0;
    try (GeneSegmentGenerator first = GeneSegmentGenerator.builder(newStore(), TAG).minStep(100).maxStep(1000)
        .clock(clock).maxPrefetchDepth(1).build()) {
      for (int i = 0; i < 2_500; i++) {
        highestBefore = Math.max(highestBefore, first.valueOf(first.nextId()));
      }
      // a prefetched segment that will never be used
      Await.until(() -> first.status().nextReady(), TIMEOUT, "the next segment");
    }
    long counter = counter(TAG);
    assertThat(counter).isGreaterThan(highestBefore);

    GeneSegmentGenerator second = generator(newStore(), 100, 1000, clock); // a new process: a new store
    assertThat(second.valueOf(second.nextId())).isEqualTo(counter + 1);
    for (int i = 0; i < 1_000; i++) {
      assertThat(second.valueOf(second.nextId())).isGreaterThan(highestBefore);
    }
  }

  @Test
  void theStepGrowsForAFastConsumerAndShrinksForASlowOne() {
    List<Long> steps = new ArrayList<>();
    SegmentStore store = newStore();
    SegmentStore recording = (tag, step) -> {
      synchronized (steps) {
        steps.add(step);
      }
      return store.nextSegment(tag, step);
    };
    GeneSegmentGenerator g = track(GeneSegmentGenerator.builder(recording, TAG).clock(clock).minStep(10)
        .maxStep(640).segmentDuration(Duration.ofSeconds(1)).maxPrefetchDepth(1).build());
    for (int i = 0; i < 5_000; i++) { // the clock stands still: as fast as can be
      g.nextId();
    }
    Await.until(() -> g.status().nextReady(), TIMEOUT, "the next segment");
    assertThat(lastOf(steps)).isEqualTo(640);
    assertStoredStep(TAG, 640);

    for (int i = 0; i < 2_500; i++) { // one id a second: a one-second segment would hold one value
      now.addAndGet(1_000);
      g.nextId();
    }
    Await.until(() -> g.status().nextReady(), TIMEOUT, "the next segment");
    assertThat(lastOf(steps)).isEqualTo(10);
    assertStoredStep(TAG, 10);
  }

  @Test
  void aStoreThatLostItsCounterIsRefusedInsteadOfReusingValues() {
    SegmentStore store = newStore();
    GeneSegmentGenerator g = generator(store, 10, 10, clock);
    for (int i = 0; i < 5; i++) {
      g.nextId();
    }
    Await.until(() -> g.status().nextReady(), TIMEOUT, "the next segment");
    loseCounter(TAG);
    for (int i = 0; i < 15; i++) {
      g.nextId(); // values 6..20 were fetched before the loss
    }
    Throwable refused = org.assertj.core.api.Assertions.catchThrowable(g::nextId);
    assertThat(refused).isInstanceOf(GeneIdException.class);
    assertRefusedAfterLoss(refused, store);
  }

  /**
   * What the generator's first call past its buffer says after {@link #loseCounter(String)}: by default the
   * generator's own refusal of a segment below what it has seen. A store that notices the loss itself (Redis: the
   * counter's generation) refuses the claim first, and says so.
   */
  protected void assertRefusedAfterLoss(Throwable refused, SegmentStore store) {
    assertThat(refused)
        .hasMessageStartingWith("the segment store " + store + " handed out [")
        .hasMessageContaining("for tag 'order', which is not above the highest value already handed out (20): the "
            + "store lost or reset its counter, refusing the segment so that no id is issued twice");
  }

  // ---------------------------------------------------------------- helpers

  private GeneSegmentGenerator generator(SegmentStore store, long minStep, long maxStep, GeneClock clock) {
    return track(GeneSegmentGenerator.builder(store, TAG).minStep(minStep).maxStep(maxStep).clock(clock)
        .maxPrefetchDepth(1).build());
  }

  private static long lastOf(List<Long> steps) {
    synchronized (steps) {
      return steps.get(steps.size() - 1);
    }
  }
}
