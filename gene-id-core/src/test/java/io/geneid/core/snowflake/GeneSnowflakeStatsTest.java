package io.geneid.core.snowflake;

import io.geneid.core.GeneClock;

import io.geneid.core.GeneIdLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GeneSnowflakeStatsTest {

  private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

  /** S=2: four ids per millisecond per gene, so genes leave milliseconds and borrow often. */
  private static final GeneIdLayout SMALL = GeneIdLayout.builder().timestampBits(45).workerBits(8).sequenceBits(2)
      .geneBits(8).build();

  private final AtomicLong time = new AtomicLong(T0);

  private GeneSnowflakeGenerator.Builder builder(GeneIdLayout layout) {
    return GeneSnowflakeGenerator.builder().layout(layout).workerId(3).clock(time::get);
  }

  @Test
  void aNewGeneratorHasDoneNothing() {
    assertThat(builder(SMALL).buildUnshared().stats())
        .isEqualTo(new GeneSnowflakeStats(0, Duration.ZERO, 0, Duration.ZERO, 0));
  }

  @Test
  void countsEveryIdIssuedAcrossGenesMillisecondsAndBorrowing() {
    GeneSnowflakeGenerator generator = builder(SMALL).maxBorrowMillis(50).buildUnshared();
    SplittableRandom random = new SplittableRandom(8);
    for (int i = 1; i <= 20_000; i++) {
      if (random.nextInt(6) == 0) {
        time.incrementAndGet();
      }
      generator.nextId(random.nextInt(4));
      if (i % 997 == 0) {
        assertThat(generator.stats().idsIssued()).isEqualTo(i);
      }
    }
    assertThat(generator.stats().idsIssued()).isEqualTo(20_000);
  }

  @Test
  void countsIdsAroundAHighWaterMarkWithoutTheMillisecondsItSkipped() {
    GeneSnowflakeGenerator generator = builder(SMALL).buildUnshared();
    for (int i = 0; i < 10; i++) {
      generator.nextId(i % 2);
    }
    generator.advancePast(T0 + 5);
    assertThat(generator.stats().idsIssued()).isEqualTo(10);
    time.addAndGet(3);
    for (int i = 0; i < 7; i++) {
      generator.nextId(i % 3);
    }
    assertThat(generator.stats().idsIssued()).isEqualTo(17);
    GeneSnowflakeGenerator marked = builder(SMALL).highWaterMark(Instant.ofEpochMilli(T0 + 2)).buildUnshared();
    assertThat(marked.stats().idsIssued()).isZero();
    marked.nextId(0);
    assertThat(marked.stats().idsIssued()).isEqualTo(1);
  }

  @Test
  void countsWithSixteenGeneBits() {
    GeneIdLayout wide = GeneIdLayout.builder().timestampBits(41).workerBits(4).sequenceBits(2).geneBits(16).build();
    GeneSnowflakeGenerator generator = builder(wide).buildUnshared();
    for (int i = 0; i < 300_000; i++) {
      generator.nextId();
    }
    assertThat(generator.stats().idsIssued()).isEqualTo(300_000);
  }

  @Test
  void countsExactlyUnderConcurrencyAndNeverGoesDown() throws Exception {
    GeneSnowflakeGenerator generator = GeneSnowflakeGenerator.builder().workerId(4).buildUnshared();
    int threads = 3;
    int perThread = 200_000;
    AtomicBoolean done = new AtomicBoolean();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    Thread watcher = new Thread(() -> {
      long previous = 0;
      while (!done.get()) {
        long now = generator.stats().idsIssued();
        if (now < previous || now > (long) threads * perThread) {
          failures.add(new AssertionError("count went from " + previous + " to " + now));
        }
        previous = now;
      }
    });
    watcher.start();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int gene = t;
      Thread worker = new Thread(() -> {
        for (int i = 0; i < perThread; i++) {
          if (i % 2 == 0) {
            generator.nextId(gene);
          } else {
            generator.nextId();
          }
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    done.set(true);
    watcher.join();
    assertThat(failures).isEmpty();
    assertThat(generator.stats().idsIssued()).isEqualTo((long) threads * perThread);
  }

  @Test
  void borrowDebtIsHowFarTheFurthestGeneIsAheadOfTheClock() {
    GeneSnowflakeGenerator generator = builder(SMALL).maxBorrowMillis(10).buildUnshared();
    for (int i = 0; i < 4 * 5; i++) {
      generator.nextId(7); // five milliseconds of gene 7: T0 .. T0+4
    }
    generator.nextId(1);
    assertThat(generator.stats().borrowDebt()).isEqualTo(Duration.ofMillis(4));
    time.addAndGet(3);
    assertThat(generator.stats().borrowDebt()).isEqualTo(Duration.ofMillis(1));
    time.addAndGet(3);
    assertThat(generator.stats().borrowDebt()).isEqualTo(Duration.ZERO);
    assertThat(generator.stats().idsIssued()).isEqualTo(21);
  }

  @Test
  void countsClockStepBacksOnceEachWithTheLargestStep() {
    GeneSnowflakeGenerator generator = builder(SMALL).maxBorrowMillis(10)
        .clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).buildUnshared();
    generator.nextId(0);
    time.addAndGet(-3); // absorbed: within maxBorrowMillis
    generator.nextId(1);
    generator.nextId(2);
    generator.nextId(0);
    assertThat(generator.stats().clockStepBacks()).isEqualTo(1);
    assertThat(generator.stats().largestClockStepBack()).isEqualTo(Duration.ofMillis(3));

    time.addAndGet(20);
    generator.nextId(0);
    time.addAndGet(-15); // beyond maxBorrowMillis: the policy fails
    assertThatThrownBy(() -> generator.nextId(0)).isInstanceOf(ClockMovedBackwardsException.class);
    generator.nextId(5); // a fresh gene still issues, and does not count the same step again
    GeneSnowflakeStats stats = generator.stats();
    assertThat(stats.clockStepBacks()).isEqualTo(2);
    assertThat(stats.largestClockStepBack()).isEqualTo(Duration.ofMillis(15));
    assertThat(stats.clockWaits()).isEqualTo(1);
    assertThat(stats.idsIssued()).isEqualTo(6);
  }

  @Test
  void aStaleClockReadingIsNotAStepBack() {
    // thread-delay simulation: the generator reads 990 for gene 1 after 1000 was seen; a second reading says 1000
    long[] readings = {1000, 1000, 990, 1000, 1000};
    int[] next = {0};
    GeneClock replay = () -> T0 + readings[Math.min(next[0]++, readings.length - 1)];
    GeneSnowflakeGenerator generator = GeneSnowflakeGenerator.builder().layout(SMALL).workerId(1).clock(replay)
        .capacityWarningHorizon(Duration.ZERO).buildUnshared();
    next[0] = 0; // the constructor read the clock once
    generator.nextId(0);
    generator.nextId(1);
    assertThat(generator.stats().clockStepBacks()).isZero();
  }

  @Test
  void countsWaitsForTheClock() {
    // S=2, no borrowing: the fifth id of a gene in one millisecond waits for the next one; the clock ticks on reads
    AtomicLong reads = new AtomicLong();
    GeneSnowflakeGenerator generator = GeneSnowflakeGenerator.builder().layout(SMALL).workerId(1)
        .clock(() -> T0 + reads.incrementAndGet() / 64).maxBorrowMillis(0).buildUnshared();
    for (int i = 0; i < 4; i++) {
      generator.nextId(0);
    }
    assertThat(generator.stats().clockWaits()).isZero();
    for (int i = 0; i < 40; i++) {
      generator.nextId(0);
    }
    assertThat(generator.stats().clockWaits()).isBetween(1L, 10L);
    assertThat(generator.stats().idsIssued()).isEqualTo(44);
  }
}
