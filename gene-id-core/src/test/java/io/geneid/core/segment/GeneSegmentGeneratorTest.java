package io.geneid.core.segment;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The generator over {@link SegmentTestStore}: ids and genes, prefetch, outages with exact messages, adaptive step,
 * settings. What every store must do with it (uniqueness across generators, restart, a store that lost its counter)
 * is {@link AbstractSegmentStoreContractTest}, run here by {@link InMemorySegmentStoreContractTest}.
 */
class GeneSegmentGeneratorTest {

  private static final Duration TIMEOUT = AbstractSegmentStoreContractTest.TIMEOUT;

  private final SegmentTestStore store = new SegmentTestStore();
  private final SegmentTestClock clock = new SegmentTestClock();
  private final List<GeneSegmentGenerator> built = new ArrayList<>();

  @AfterEach
  void closeGenerators() {
    built.forEach(GeneSegmentGenerator::close);
  }

  private GeneSegmentGenerator.Builder builder() {
    // one segment ahead, so the store's calls can be counted exactly (deeper prefetching: its own tests)
    return GeneSegmentGenerator.builder(store, "order").clock(clock).maxPrefetchDepth(1);
  }

  private GeneSegmentGenerator fixedStep(long step) {
    return track(builder().minStep(step).maxStep(step).build());
  }

  private GeneSegmentGenerator track(GeneSegmentGenerator g) {
    built.add(g);
    return g;
  }

  // ---------------------------------------------------------------- ids and genes

  @Test
  void idsAreValueShiftedAboveTheGene() {
    GeneSegmentGenerator g = fixedStep(100);

    long a = g.nextId(5);
    long b = g.nextId(63);
    long c = g.nextId(0);

    assertThat(a).isEqualTo((1L << 6) | 5);
    assertThat(b).isEqualTo((2L << 6) | 63);
    assertThat(c).isEqualTo(3L << 6);
    assertThat(g.getGene(b)).isEqualTo(63);
    assertThat(g.valueOf(b)).isEqualTo(2);
    assertThat(g.geneBits()).isEqualTo(6);
  }

  @Test
  void idsOfOneThreadStrictlyIncreaseWhateverTheirGenes() {
    GeneSegmentGenerator g = track(builder().minStep(7).maxStep(7).build());
    long previous = 0;
    for (int i = 0; i < 1000; i++) {
      long id = g.nextId((i * 37L) % 64);
      assertThat(id).isGreaterThan(previous);
      previous = id;
    }
  }

  @Test
  void rootIdsCycleThroughEveryGene() {
    GeneSegmentGenerator g = fixedStep(1000);
    int[] perGene = new int[64];
    for (int i = 0; i < 64 * 5; i++) {
      perGene[(int) g.getGene(g.nextId())]++;
    }
    assertThat(perGene).containsOnly(5);
  }

  @Test
  void parentKeysGiveTheirGenes() {
    GeneSegmentGenerator g = fixedStep(1000);
    GeneIdLayout layout = GeneIdLayout.defaults();
    UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

    assertThat(g.getGene(g.nextIdFor(1234567L))).isEqualTo(1234567L & 63);
    assertThat(g.getGene(g.nextIdFor("customer-42"))).isEqualTo(layout.geneOf("customer-42"));
    assertThat(g.getGene(g.nextIdForKey(uuid))).isEqualTo(layout.geneOfKey(uuid));
    assertThat(g.getGene(g.nextIdForKey(77))).isEqualTo(77 & 63);
  }

  @Test
  void geneContextScopesGiveTheParentsGene() {
    GeneSegmentGenerator g = fixedStep(1000);
    long parent = g.nextId(17);

    try (var scope = GeneContext.inherit(parent)) {
      assertThat(g.getGene(g.nextId())).isEqualTo(17);
      assertThat(g.getGene(g.nextId())).isEqualTo(17);
    }
    try (var scope = GeneContext.inheritEach(List.of(3L, 4L, "x"))) {
      assertThat(g.getGene(g.nextId())).isEqualTo(3);
      assertThat(g.getGene(g.nextId())).isEqualTo(4);
      assertThat(g.getGene(g.nextId())).isEqualTo(GeneIdLayout.defaults().geneOf("x"));
    }
    assertThat(GeneContext.call(parent, g::nextId) & 63).isEqualTo(17);
  }

  @Test
  void geneOutsideTheRangeIsRefusedWithoutUsingAValue() {
    GeneSegmentGenerator g = fixedStep(1000);
    assertThatThrownBy(() -> g.nextId(64)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gene must be in [0, 63] but was 64");
    assertThatThrownBy(() -> g.nextId(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gene must be in [0, 63] but was -1");
    assertThat(g.valueOf(g.nextId(0))).isEqualTo(1);
  }

  @Test
  void zeroGeneBitsMakesPlainSequentialIds() {
    GeneSegmentGenerator g = track(builder().geneBits(0).minStep(10).maxStep(10).build());
    assertThat(g.nextId()).isEqualTo(1);
    assertThat(g.nextIdFor(12345L)).isEqualTo(2);
    assertThat(g.nextId(0)).isEqualTo(3);
  }

  @Test
  void geneBitsCanComeFromALayout() {
    GeneIdLayout layout = GeneIdLayout.builder().sequenceBits(6).geneBits(8).build();
    GeneSegmentGenerator g = track(builder().layout(layout).minStep(10).maxStep(10).build());
    assertThat(g.geneBits()).isEqualTo(8);
    assertThat(g.nextId(255)).isEqualTo((1L << 8) | 255);
  }

  @Test
  void theNextSegmentIsFetchedInTheBackgroundBeforeTheCurrentOneRunsOut() {
    GeneSegmentGenerator g = fixedStep(100);
    assertThat(store.steps()).hasSize(1);
    for (int i = 0; i < 9; i++) {
      g.nextId();
    }
    assertThat(g.status().nextReady()).isFalse();
    g.nextId(); // the 10th value: 10 % used
    Await.until(() -> g.status().nextReady(), TIMEOUT, "the next segment");
    assertThat(store.steps()).hasSize(2);
    assertThat(g.status().remaining()).isEqualTo(190);
    assertThat(g.status().lastStoreError()).isNull();
    for (int i = 0; i < 190; i++) {
      g.nextId();
    }
    // prefetched once 10 % of the second segment were used
    Await.until(() -> store.steps().size() == 3, TIMEOUT, "a third segment");
  }

  // ---------------------------------------------------------------- store outages

  @Test
  void anOutageIsRiddenOutWhileValuesRemainThenFailsClearlyThenResumesWithoutReuse() {
    GeneSegmentGenerator g = fixedStep(100);
    Set<Long> values = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      values.add(g.valueOf(g.nextId()));
    }
    Await.until(() -> g.status().nextReady(), TIMEOUT, "the next segment");
    GeneIdException down = new GeneIdException("store down for the test");
    store.failWith(down);

    for (int i = 0; i < 190; i++) {
      assertThat(values.add(g.valueOf(g.nextId()))).isTrue();
    }
    assertThat(g.status().remaining()).isZero();
    // the background prefetch failed too
    Await.until(() -> g.status().lastStoreError() == down, TIMEOUT, "the failed prefetch");

    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
        .hasMessage("no ids left for tag 'order': its segments are used up and the segment store SegmentTestStore "
            + "failed to hand out the next segment: io.geneid.core.GeneIdException: store down for the test")
        .cause().isSameAs(down);
    assertThatThrownBy(() -> g.nextIdFor(7L)).isInstanceOf(GeneIdException.class).cause().isSameAs(down);

    store.recover();
    for (int i = 0; i < 300; i++) {
      long v = g.valueOf(g.nextId());
      assertThat(v).isGreaterThan(200);
      assertThat(values.add(v)).as("value %d reused", v).isTrue();
    }
    assertThat(g.status().lastStoreError()).isNull();
  }

  @Test
  void failedPrefetchesAreRetriedWithoutEverReusingAValue() {
    store.failEveryOtherCall(50);
    GeneSegmentGenerator g = track(builder().minStep(20).maxStep(20).prefetchRetry(Duration.ZERO).build());
    Set<Long> values = new HashSet<>();
    int failures = 0;
    while (values.size() < 5_000) {
      try {
        long v = g.valueOf(g.nextId());
        assertThat(values.add(v)).as("value %d reused", v).isTrue();
      } catch (GeneIdException e) {
        assertThat(e).hasMessageContaining("test store lost the answer");
        failures++;
      }
    }
    // lost answers are gaps: the store moved its counter for them, the generator never used them
    assertThat(values.stream().mapToLong(Long::longValue).max().getAsLong()).isGreaterThan(5_000);
    assertThat(failures).isLessThanOrEqualTo(50);
  }

  @Test
  void aStoreThatIsDownAtBuildFailsTheBuildWithTheCause() {
    GeneIdException down = new GeneIdException("no route to store");
    store.failWith(down);
    assertThatThrownBy(() -> builder().build()).isInstanceOf(GeneIdException.class)
        .hasMessage("could not start the GeneSegmentGenerator of tag 'order': the segment store SegmentTestStore "
            + "failed to hand out the next segment: io.geneid.core.GeneIdException: no route to store")
        .cause().isSameAs(down);
  }

  @Test
  void aSlowStoreTimesOutAndItsLateSegmentIsAGap() {
    GeneSegmentGenerator g = track(builder().minStep(10).maxStep(10).prefetchRatio(0.9)
        .fetchTimeout(Duration.ofMillis(500)).build());
    CountDownLatch gate = new CountDownLatch(1);
    store.block(gate);
    Set<Long> values = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      values.add(g.valueOf(g.nextId()));
    }
    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
        .hasMessage("no ids left for tag 'order': its segments are used up and the segment store SegmentTestStore "
            + "did not hand out a segment within 500 ms; that fetch is abandoned (its values are skipped if it "
            + "answers late)");
    gate.countDown(); // the abandoned fetch answers [11, 20] late
    store.block(null);
    Await.until(() -> store.max("order") == 20, TIMEOUT, "the late answer");
    for (int i = 0; i < 30; i++) {
      long v = g.valueOf(g.nextId());
      assertThat(values.add(v)).isTrue();
      assertThat(v).as("a value of the abandoned segment [11, 20]").isGreaterThan(20);
    }
    assertThat(values).hasSize(40);
  }

  @Test
  void aFetchThatHangsIsAbandonedAndItsLateAnswerIsAGap() throws Exception {
    GeneSegmentGenerator g = track(builder().minStep(10).maxStep(10).prefetchRatio(0.9)
        .fetchTimeout(Duration.ofMillis(500)).build());
    CountDownLatch release = new CountDownLatch(1);
    store.holdNextAnswer(release); // the prefetch at the 10th value hangs
    Set<Long> values = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      values.add(g.valueOf(g.nextId()));
    }
    Await.until(() -> store.heldBack() != null, TIMEOUT, "the hanging fetch");
    Segment lost = store.heldBack();
    long start = System.nanoTime();
    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
        .hasMessage("no ids left for tag 'order': its segments are used up and the segment store SegmentTestStore "
            + "did not hand out a segment within 500 ms; that fetch is abandoned (its values are skipped if it "
            + "answers late)");
    long waitedMillis = (System.nanoTime() - start) / 1_000_000;
    // the fetch timeout (500 ms, the store held back by the test) and a margin at the tests' time scale
    assertThat(waitedMillis).as("a caller's wait (ms)").isLessThan(500 + TestTime.millis(1_500));
    // the store answers the next call at once: the generator recovers although the first fetch still hangs
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    long recovered = -1;
    while (recovered < 0) {
      try {
        recovered = g.valueOf(g.nextId());
      } catch (GeneIdException e) {
        assertThat(System.nanoTime()).as("recovered in time").isLessThan(deadline);
      }
    }
    assertThat(values.add(recovered)).isTrue();
    release.countDown(); // the abandoned fetch answers late: its range is a gap
    for (int i = 0; i < 100; i++) {
      long v = g.valueOf(g.nextId());
      assertThat(values.add(v)).as("value %d reused", v).isTrue();
      assertThat(v < lost.start() || v > lost.endInclusive()).as("value %d of the abandoned fetch's range %s", v, lost)
          .isTrue();
    }
    assertThat(values).hasSize(111);
  }

  @Test
  void anAbandonedFetchThatClaimsAboveItsReplacementIsNoFalseAlarm() throws Exception {
    GeneSegmentGenerator g = track(builder().minStep(10).maxStep(10).prefetchRatio(0.9)
        .fetchTimeout(Duration.ofMillis(500)).build());
    CountDownLatch firstRequest = new CountDownLatch(1);
    store.holdNextRequest(firstRequest); // the prefetch is stuck before it reaches the store
    for (int i = 0; i < 10; i++) {
      g.nextId();
    }
    Await.until(store::requestHeld, TIMEOUT, "the stuck prefetch");
    assertThatThrownBy(g::nextId).hasMessageContaining("that fetch is abandoned");
    CountDownLatch secondAnswer = new CountDownLatch(1);
    store.holdNextAnswer(secondAnswer); // its replacement claims [11, 20] and its answer is slow
    java.util.concurrent.CompletableFuture<Long> caller =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> g.valueOf(g.nextId()));
    Await.until(() -> store.heldBack() != null, TIMEOUT, "the replacement's claim");
    firstRequest.countDown(); // the abandoned fetch now claims [21, 30] and answers first: dropped
    Await.until(() -> store.max("order") == 30, TIMEOUT, "the abandoned fetch's claim");
    secondAnswer.countDown(); // the replacement answers [11, 20]: below the dropped range, and used
    assertThat(caller.get(5, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(11);
  }

  @Test
  void valuesThatNoLongerFitBesideTheGeneAreAClearError() {
    long maxValue = (1L << 47) - 1; // 63 - 16 bits
    SegmentTestStore nearTheEnd = new SegmentTestStore(maxValue - 15);
    GeneSegmentGenerator g = track(GeneSegmentGenerator.builder(nearTheEnd, "order").geneBits(16).clock(clock)
        .minStep(10).maxStep(10).maxPrefetchDepth(1).build());
    long last = 0;
    for (int i = 0; i < 15; i++) {
      last = g.nextId(65_535);
      assertThat(last).isPositive();
    }
    assertThat(g.valueOf(last)).isEqualTo(maxValue);
    assertThat(last).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> g.nextId(0)).isInstanceOf(GeneIdException.class)
        .hasMessage("values of tag 'order' ran out: with geneBits 16 a value must be at most 140737488355327 "
            + "(63 - 16 bits) but the segment store SegmentTestStore handed out [140737488355333, "
            + "140737488355342]");
  }

  // ---------------------------------------------------------------- prefetch depth

  @Test
  void aNewGeneratorFetchesOneSegmentUntilItsPrefetchPoint() throws Exception {
    GeneSegmentGenerator g = track(GeneSegmentGenerator.builder(store, "order").clock(clock).minStep(100)
        .maxStep(100).build()); // the default prefetch depth
    for (int i = 0; i < 5; i++) { // below the prefetch point (10 of 100)
      g.nextId();
    }
    Thread.sleep(200); // time for a background fetch that should not happen
    assertThat(store.steps()).containsExactly(100L);
    assertThat(g.status().nextReady()).isFalse();
  }

  @Test
  void segmentsUsedUpFasterThanAFetchTakesAreFetchedSeveralAhead() {
    SegmentStore slow = (tag, step) -> { // a fetch takes 1 ms; a segment of 10 lasts far less
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return store.nextSegment(tag, step);
    };
    GeneSegmentGenerator g = track(GeneSegmentGenerator.builder(slow, "order").clock(clock).minStep(10).maxStep(10)
        .build());
    long previous = 0;
    for (int i = 0; i < 2_000; i++) {
      long value = g.valueOf(g.nextId());
      assertThat(value).isGreaterThan(previous);
      previous = value;
    }
    // double buffering keeps at most the current segment and one more (20 values); a deeper prefetch keeps more
    Await.until(() -> g.status().remaining() > 100, TIMEOUT, "several segments fetched ahead");
    assertThat(store.steps()).allMatch(step -> step == 10);
  }

  @Test
  void threadsSwitchingSegmentsTogetherSkipNoValueAndKeepEachThreadAscending() throws Exception {
    // a segment of 10 lasts a few calls: four threads switch segments all the time, through the chain of fetched
    // segments, without the lock; each must see its values ascend, and no value may be issued twice or skipped
    GeneSegmentGenerator g = track(GeneSegmentGenerator.builder(store, "order").clock(clock).minStep(10).maxStep(10)
        .build());
    int threads = 4;
    int perThread = 25_000;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
      List<java.util.concurrent.Future<long[]>> runs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        runs.add(pool.submit(() -> {
          go.await();
          long[] values = new long[perThread];
          for (int i = 0; i < perThread; i++) {
            values[i] = g.valueOf(g.nextId());
          }
          return values;
        }));
      }
      go.countDown();
      java.util.BitSet seen = new java.util.BitSet();
      for (java.util.concurrent.Future<long[]> run : runs) {
        long[] values = run.get();
        for (int i = 1; i < values.length; i++) {
          assertThat(values[i]).as("value %d of a thread after %d", values[i], values[i - 1])
              .isGreaterThan(values[i - 1]);
        }
        for (long v : values) {
          assertThat(seen.get((int) v)).as("value %d issued twice", v).isFalse();
          seen.set((int) v);
        }
      }
      // segments are used in the order they were fetched and each up to its end: the values are 1 .. n, no gap
      assertThat(seen.cardinality()).isEqualTo(threads * perThread);
      assertThat(seen.nextClearBit(1)).isEqualTo(threads * perThread + 1);
    } finally {
      pool.shutdownNow();
    }
  }

  // ---------------------------------------------------------------- thread blocks

  @Test
  void threadBlocksNeverRepeatAValueAndKeepEachThreadAscending() throws Exception {
    GeneSegmentGenerator g = track(builder().minStep(1_000).maxStep(1_000).threadBlock(64).build());
    int threads = 4;
    int perThread = 20_000;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      List<java.util.concurrent.Future<long[]>> runs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        runs.add(pool.submit(() -> {
          long[] ids = new long[perThread];
          for (int i = 0; i < perThread; i++) {
            ids[i] = g.nextId();
          }
          return ids;
        }));
      }
      Set<Long> all = new HashSet<>();
      for (java.util.concurrent.Future<long[]> run : runs) {
        long[] ids = run.get();
        assertThat(ids).isSorted();
        for (long id : ids) {
          assertThat(all.add(id)).as("id %d issued twice", id).isTrue();
          assertThat(g.getGene(id)).isEqualTo(g.valueOf(id) & 63); // a root row's gene: its value's low bits
        }
      }
      assertThat(all).hasSize(threads * perThread);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aThreadTakesItsBlockOnceAndHandsItOutItself() {
    GeneSegmentGenerator g = track(builder().minStep(1_000).maxStep(1_000).threadBlock(100).build());
    long first = g.valueOf(g.nextId());
    for (int i = 1; i < 100; i++) {
      assertThat(g.valueOf(g.nextId())).isEqualTo(first + i);
    }
    // another thread's block starts after this one's
    long[] other = new long[1];
    Thread t = new Thread(() -> other[0] = g.valueOf(g.nextId()));
    t.start();
    assertThatCode(t::join).doesNotThrowAnyException();
    assertThat(other[0]).isEqualTo(first + 100);
    g.close();
    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class).hasMessageContaining("is closed");
  }

  @Test
  void aThreadBlockOutOfRangeIsAClearError() {
    assertThatThrownBy(() -> builder().threadBlock(1).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threadBlock must be 0 (one shared order) or in [2, 100000] but was 1");
    assertThatThrownBy(() -> builder().threadBlock(100_001).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threadBlock must be 0 (one shared order) or in [2, 100000] but was 100001");
    assertThatThrownBy(() -> SegmentSettings.read(io.geneid.core.settings.SettingsReader.of(
        java.util.Map.of("thread-block", "1")))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("thread-block must be 0 (one shared order) or in [2, 100000] but was 1");
    assertThat(SegmentSettings.read(io.geneid.core.settings.SettingsReader.of(java.util.Map.of("thread-block", "64")))
        .threadBlock()).isEqualTo(64);
  }

  // ---------------------------------------------------------------- adaptive step

  @Test
  void aFastConsumerDoublesTheStepUpToMaxStep() {
    GeneSegmentGenerator g = track(builder().minStep(100).maxStep(5_000).segmentDuration(Duration.ofSeconds(1))
        .build());
    // 1,000 ids per ms: a segment lasting one second would hold a million values
    for (int i = 0; i < 60_000; i++) {
      g.nextId();
      if (i % 1000 == 999) {
        clock.advance(1);
      }
    }
    assertThat(store.steps()).startsWith(100L, 200L, 400L, 800L, 1600L, 3200L, 5000L)
        .allMatch(s -> s >= 100 && s <= 5_000);
    assertThat(store.steps().get(store.steps().size() - 1)).isEqualTo(5_000);
  }

  @Test
  void aSlowConsumerHalvesTheStepDownToMinStep() {
    GeneSegmentGenerator g = track(builder().minStep(100).maxStep(3_200).segmentDuration(Duration.ofSeconds(1))
        .build());
    for (int i = 0; i < 20_000; i++) { // fast: grow to maxStep
      g.nextId();
    }
    Await.until(() -> g.status().nextReady(), TIMEOUT, "the next segment");
    int grown = store.steps().size();
    assertThat(store.steps().get(grown - 1)).isEqualTo(3_200);
    for (int i = 0; i < 12_000; i++) { // one id per 100 ms: a one-second segment would hold 10 values
      clock.advance(100);
      g.nextId();
    }
    List<Long> slow = store.steps().subList(grown, store.steps().size());
    assertThat(slow).startsWith(1_600L, 800L, 400L, 200L, 100L).allMatch(s -> s >= 100 && s <= 3_200);
    assertThat(slow.get(slow.size() - 1)).isEqualTo(100);
  }

  @Test
  void aSteadyConsumerSettlesOnTheStepThatLastsTheSegmentDuration() {
    GeneSegmentGenerator g = track(builder().minStep(10).maxStep(1_000_000).segmentDuration(Duration.ofSeconds(1))
        .build());
    for (int i = 0; i < 200_000; i++) { // 5 ids per ms: 5,000 per second
      g.nextId();
      if (i % 5 == 4) {
        clock.advance(1);
      }
    }
    List<Long> steps = store.steps();
    assertThat(steps.subList(steps.size() - 5, steps.size())).allMatch(s -> s >= 4_500 && s <= 5_500);
    assertThat(g.status().step()).isBetween(4_500L, 5_500L);
  }

  // ---------------------------------------------------------------- life cycle and settings

  @Test
  void aClosedGeneratorRefusesToIssue() {
    GeneSegmentGenerator g = fixedStep(100);
    g.nextId();
    g.close();
    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
        .hasMessage("the GeneSegmentGenerator of tag 'order' is closed: it issues no ids");
  }

  @Test
  void settingsOutOfRangeAreNamedWithTheirRange() {
    assertThatThrownBy(() -> GeneSegmentGenerator.builder(store, "").build())
        .hasMessage("bizTag must be 1 to 128 characters but was ''");
    assertThatThrownBy(() -> builder().geneBits(17).build())
        .hasMessage("geneBits must be in [0, 16] but was 17");
    assertThatThrownBy(() -> builder().minStep(0).build())
        .hasMessage("minStep must be in [1, 1000000000] but was 0");
    assertThatThrownBy(() -> builder().minStep(500).maxStep(100).build())
        .hasMessage("maxStep must be in [minStep=500, 1000000000] but was 100");
    assertThatThrownBy(() -> builder().maxStep(2_000_000_000).build())
        .hasMessage("maxStep must be in [minStep=1000, 1000000000] but was 2000000000");
    assertThatThrownBy(() -> builder().segmentDuration(Duration.ofMillis(10)).build())
        .hasMessage("segmentDuration must be in [1000ms, 86400000ms] but was 10ms");
    assertThatThrownBy(() -> builder().prefetchRatio(0.95).build())
        .hasMessage("prefetchRatio must be in [0.0, 0.9] but was 0.95");
    assertThatThrownBy(() -> builder().fetchTimeout(Duration.ZERO).build())
        .hasMessage("fetchTimeout must be in [1ms, 600000ms] but was 0ms");
    assertThat(store.steps()).isEmpty(); // nothing was fetched for a bad configuration
  }

  @Test
  void segmentsCheckTheirBounds() {
    assertThatThrownBy(() -> new Segment(0, 10)).hasMessage("segment start must be at least 1 but was 0");
    assertThatThrownBy(() -> new Segment(5, 4))
        .hasMessage("segment end must not be below its start but the segment was [5, 4]");
    assertThat(new Segment(1, 100).size()).isEqualTo(100);
  }
}
