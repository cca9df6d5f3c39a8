package io.geneid.core.snowflake;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.testing.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class GeneSnowflakeGeneratorTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  private static GeneSnowflakeGenerator.Builder builder(ManualClock clock) {
    return GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(3).clock(clock);
  }

  @Test
  void idsDecodeToTheClockTheWorkerAndTheGene() {
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(500);
    GeneSnowflakeGenerator g = builder(clock).buildUnshared();
    long id = g.nextId(42);
    GeneIdParts parts = LAYOUT.decode(id);
    assertThat(parts).isEqualTo(new GeneIdParts(Instant.ofEpochMilli(clock.now()), 3, 0, 42));
    assertThat(LAYOUT.decode(g.nextId(42)).sequence()).isEqualTo(1);
    assertThat(LAYOUT.decode(g.nextId(41)).sequence()).isZero(); // each gene counts on its own
    assertThat(g.getGene(id)).isEqualTo(42);
  }

  @Test
  void geneMustBeInRange() {
    GeneSnowflakeGenerator g = builder(ManualClock.atDefaultEpochPlusDays(1)).buildUnshared();
    assertThatThrownBy(() -> g.nextId(64)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gene must be in [0, 63] but was 64");
    assertThatThrownBy(() -> g.nextId(-1)).hasMessage("gene must be in [0, 63] but was -1");
  }

  @Test
  void builderNamesBadSettings() {
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().buildUnshared())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("workerId is required: a value in [0, 255]");
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().workerId(256).buildUnshared())
        .hasMessage("workerId must be in [0, 255] but was 256");
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().workerId(1).maxBorrowMillis(-1).buildUnshared())
        .hasMessage("maxBorrowMillis must be in [0, 60000] but was -1");
    assertThatThrownBy(() -> ClockBackwardsPolicy.waitUpTo(Duration.ofMillis(-1)))
        .hasMessage("maxWait must be zero or more but was PT-0.001S");
  }

  @Test
  void nextIdWithoutScopeSpreadsRoundRobinOverGenes() {
    GeneSnowflakeGenerator g = builder(ManualClock.atDefaultEpochPlusDays(1)).buildUnshared();
    int[] perShard = new int[4];
    Set<Long> genes = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      long gene = g.getGene(g.nextId());
      genes.add(gene);
      perShard[(int) (gene % 4)]++;
    }
    assertThat(genes).hasSize(64);
    assertThat(perShard).containsOnly(250);
  }

  @Test
  void nextIdForRoutesLikeTheParent() {
    GeneSnowflakeGenerator g = builder(ManualClock.atDefaultEpochPlusDays(1)).buildUnshared();
    long parent = g.nextId();
    long child = g.nextIdFor(parent);
    assertThat(g.getGene(child)).isEqualTo(g.getGene(parent));
    assertThat(child % 16).isEqualTo(parent % 16);
    assertThat(g.getGene(g.nextIdFor("customer-9"))).isEqualTo(LAYOUT.geneOf("customer-9"));
    assertThat(g.getGene(g.nextIdForKey(java.util.UUID.nameUUIDFromBytes(new byte[] {1}))))
        .isEqualTo(LAYOUT.geneOf(java.util.UUID.nameUUIDFromBytes(new byte[] {1}).toString()));
  }

  @Test
  void classicLayoutWorksWithoutGenes() {
    GeneIdLayout classic = GeneIdLayout.builder().workerBits(10).sequenceBits(12).geneBits(0).build();
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(3);
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().layout(classic).workerId(1023).clock(clock)
        .buildUnshared();
    long a = g.nextId();
    long b = g.nextIdFor(77L);
    assertThat(b).isEqualTo(a + 1);
    assertThat(classic.decode(b)).isEqualTo(new GeneIdParts(Instant.ofEpochMilli(clock.now()), 1023, 1, 0));
    assertThatThrownBy(() -> g.nextId(1)).hasMessage("gene must be in [0, 0] but was 1");
  }

  @Test
  void overflowBorrowsTheNextMillisecondUpToTheBound() {
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(10);
    GeneSnowflakeGenerator g = builder(clock).maxBorrowMillis(4).buildUnshared();
    long start = clock.now();
    // a clock that stands still: 256 ids in the current ms and 256 in each of 4 borrowed ms
    long last = -1;
    for (int i = 0; i < 5 * 256; i++) {
      long id = g.nextId(7);
      assertThat(id).isGreaterThan(last);
      last = id;
      long ahead = LAYOUT.decode(id).timestamp().toEpochMilli() - start;
      assertThat(ahead).isBetween(0L, 4L);
      assertThat(ahead).isEqualTo(i / 256);
    }
    // the next id needs a fifth borrowed ms: the caller waits until the clock ticks
    CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(() -> g.nextId(7));
    assertThatThrownBy(() -> blocked.get(100, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
    assertThat(g.nextId(8)).isPositive(); // other genes are not held up
    clock.advance(1);
    long id = blocked.join();
    assertThat(id).isGreaterThan(last);
    assertThat(LAYOUT.decode(id).timestamp().toEpochMilli()).isEqualTo(start + 5);
  }

  @Test
  void sustainedOverflowNeverRunsMoreThanMaxBorrowAheadOfTheClock() {
    // the clock advances 1 ms every 1000 reads: far slower than the 256 ids/ms a gene may issue
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(20).tickEvery(1000);
    GeneSnowflakeGenerator g = builder(clock).maxBorrowMillis(10).buildUnshared();
    long maxAhead = 0;
    long last = -1;
    for (int i = 0; i < 200_000; i++) {
      long id = g.nextId(5);
      long ahead = LAYOUT.decode(id).timestamp().toEpochMilli() - clock.now();
      maxAhead = Math.max(maxAhead, ahead);
      assertThat(id).isGreaterThan(last);
      last = id;
    }
    assertThat(maxAhead).isEqualTo(10);
  }

  @Test
  void smallStepBackIsAbsorbedWithoutDuplicates() {
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(30);
    GeneSnowflakeGenerator g = builder(clock).maxBorrowMillis(10)
        .clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).buildUnshared();
    long[] ids = new long[3000];
    for (int i = 0; i < 1000; i++) {
      ids[i] = g.nextId(i % 64);
    }
    clock.advance(-5);
    for (int i = 1000; i < 2000; i++) {
      ids[i] = g.nextId(i % 64);
    }
    clock.advance(3);
    for (int i = 2000; i < 3000; i++) {
      ids[i] = g.nextId(i % 64);
    }
    assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(ids.length);
    assertPerGeneIncreasing(g, ids);
  }

  @Test
  void largeStepBackFailsAtOnceUnderFailPolicy() {
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(40);
    GeneSnowflakeGenerator g = builder(clock).clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).buildUnshared();
    long before = g.nextId(9);
    long lastMillis = clock.now();
    clock.advance(-10_000);
    assertThatThrownBy(() -> g.nextId(9))
        .isInstanceOfSatisfying(ClockMovedBackwardsException.class, e -> {
          assertThat(e.workerId()).isEqualTo(3);
          assertThat(e.step()).isEqualTo(Duration.ofSeconds(10));
          assertThat(e.lastIssued()).isEqualTo(Instant.ofEpochMilli(lastMillis));
        })
        .hasMessageStartingWith("clock moved backwards: worker id 3 already issued ids at "
            + Instant.ofEpochMilli(lastMillis) + " but the clock reads " + Instant.ofEpochMilli(lastMillis - 10_000)
            + " (10000 ms behind); waited 0 ms");
    // a gene that has not issued near the old time is not affected
    assertThat(g.nextId(10)).isPositive();
    clock.advance(10_000);
    assertThat(g.nextId(9)).isGreaterThan(before);
  }

  @Test
  void largeStepBackWaitsForTheClockUnderWaitPolicy() {
    // the clock steps back 10 s, then runs fast (1 ms per read) and catches up while the caller waits
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(50);
    GeneSnowflakeGenerator g = builder(clock).maxBorrowMillis(10)
        .clockBackwardsPolicy(ClockBackwardsPolicy.waitUpTo(Duration.ofSeconds(30))).buildUnshared();
    long before = g.nextId(1);
    long lastMillis = LAYOUT.decode(before).timestamp().toEpochMilli();
    clock.advance(-10_000);
    clock.tickEvery(1);
    long after = g.nextId(1);
    assertThat(after).isGreaterThan(before);
    assertThat(LAYOUT.decode(after).timestamp().toEpochMilli()).isGreaterThanOrEqualTo(lastMillis);
    assertThat(clock.now()).isGreaterThanOrEqualTo(lastMillis - 10);
  }

  @Test
  void waitPolicyGivesUpAfterItsBudget() {
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(60);
    GeneSnowflakeGenerator g = builder(clock)
        .clockBackwardsPolicy(ClockBackwardsPolicy.waitUpTo(Duration.ofMillis(50))).buildUnshared();
    g.nextId(1);
    clock.advance(-10_000);
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> g.nextId(1)).isInstanceOf(ClockMovedBackwardsException.class)
        .hasMessageContaining("(10000 ms behind); waited ");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(50);
  }

  @Test
  void clockJumpingForwardJustMovesOn() {
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(70);
    GeneSnowflakeGenerator g = builder(clock).buildUnshared();
    long a = g.nextId(2);
    clock.advance(Duration.ofDays(3).toMillis());
    long b = g.nextId(2);
    assertThat(b).isGreaterThan(a);
    assertThat(LAYOUT.decode(b).timestamp()).isEqualTo(Instant.ofEpochMilli(clock.now()));
    assertThat(LAYOUT.decode(b).sequence()).isZero();
  }

  @Test
  void highWaterMarkIsNeverUndercut() {
    ManualClock clock = ManualClock.atDefaultEpochPlusDays(80).tickEvery(1);
    long mark = clock.now() + 2_000; // an earlier holder issued up to 2 s ahead of our clock
    GeneSnowflakeGenerator g = builder(clock).maxBorrowMillis(10)
        .clockBackwardsPolicy(ClockBackwardsPolicy.waitUpTo(Duration.ofSeconds(30)))
        .highWaterMark(Instant.ofEpochMilli(mark)).buildUnshared();
    for (int i = 0; i < 500; i++) {
      assertThat(LAYOUT.decode(g.nextId()).timestamp().toEpochMilli()).isGreaterThan(mark);
    }
    assertThat(g.highWaterMark().toEpochMilli()).isGreaterThan(mark);
  }

  @Test
  void timestampFieldRunningOutIsAClearError() {
    GeneIdLayout shortLived = GeneIdLayout.builder().timestampBits(35).workerBits(14)
        .epoch(Instant.now().minus(Duration.ofDays(300)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS)).build();
    ManualClock clock = new ManualClock(shortLived.lastTimestamp().toEpochMilli());
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().layout(shortLived).workerId(0).clock(clock)
        .maxBorrowMillis(0).buildUnshared();
    for (int i = 0; i < 256; i++) {
      g.nextId(0);
    }
    clock.advance(1);
    assertThatThrownBy(() -> g.nextId(0)).isInstanceOf(GeneIdException.class)
        .hasMessage("the layout's timestamp field ran out at " + shortLived.lastTimestamp()
            + ": cannot issue an id for " + shortLived.lastTimestamp().plusMillis(1) + " with " + shortLived);
  }

  static void assertPerGeneIncreasing(GeneSnowflakeGenerator g, long[] idsInIssueOrder) {
    long[] lastPerGene = new long[(int) g.layout().geneCount()];
    Arrays.fill(lastPerGene, -1);
    for (long id : idsInIssueOrder) {
      int gene = (int) g.getGene(id);
      assertThat(id).isGreaterThan(lastPerGene[gene]);
      lastPerGene[gene] = id;
    }
  }
}
