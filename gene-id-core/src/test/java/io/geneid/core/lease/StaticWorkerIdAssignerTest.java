package io.geneid.core.lease;

import io.geneid.core.snowflake.LeasedGeneGenerator;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneClock;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.testing.TestTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaticWorkerIdAssignerTest {

  /**
   * The TTL of the generators here, which run on the system clock: 1 s at the tests' time scale, so that a busy
   * machine's late renewal does not fence a generator the test means to keep issuing.
   */
  private static final Duration TTL = TestTime.seconds(1);

  @TempDir Path dir;

  @Test
  void ordinalComesFromTheStatefulSetHostName() {
    assertThat(StaticWorkerIdAssigner.ordinalOf("orders-3")).isEqualTo(3);
    assertThat(StaticWorkerIdAssigner.ordinalOf("orders-api-12")).isEqualTo(12);
    assertThat(StaticWorkerIdAssigner.builder().workerIdFromHostname("orders-7", 16).build().workerId())
        .isEqualTo(23);
    assertThatThrownBy(() -> StaticWorkerIdAssigner.ordinalOf("orders"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot take a worker id from host name 'orders': expected a StatefulSet pod name ending in "
            + "-<ordinal>, such as orders-3");
  }

  @Test
  void aWorkerIdIsRequired() {
    assertThatThrownBy(() -> StaticWorkerIdAssigner.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a static worker id must be set: workerId(n) or workerIdFromHostname(host, offset)");
  }

  @Test
  void closeRecordsTheMarkAndTheNextRunIssuesAfterItWhateverItsClockSays() {
    Path mark = dir.resolve("w5.mark");
    Set<Long> ids = new HashSet<>();
    long lastTimestamp;
    try (LeasedGeneGenerator first = generator(mark, GeneClock.system())) {
      for (int i = 0; i < 10_000; i++) {
        assertThat(ids.add(first.nextId())).isTrue();
      }
      lastTimestamp = first.highWaterMark().toEpochMilli();
      assertThat(first.workerId()).isEqualTo(5);
    }
    assertThat(Long.parseLong(readMark(mark))).isEqualTo(lastTimestamp);

    // the next run's clock is 400 ms behind (a rollback between runs): it must still issue after the mark
    AtomicLong behind = new AtomicLong(System.currentTimeMillis() - 400);
    GeneClock slow = () -> behind.get() + 0;
    try (LeasedGeneGenerator second = generator(mark, () -> slow.currentTimeMillis())) {
      Thread ticker = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          behind.incrementAndGet();
          try {
            Thread.sleep(1);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
      ticker.start();
      try {
        for (int i = 0; i < 1_000; i++) {
          long id = second.nextId();
          assertThat(ids.add(id)).isTrue();
          assertThat(GeneIdLayout.defaults().decode(id).timestamp().toEpochMilli()).isGreaterThan(lastTimestamp);
        }
      } finally {
        ticker.interrupt();
      }
    }
  }

  @Test
  void aSecondHolderOfTheSameMarkFileIsRefused() {
    Path mark = dir.resolve("w5.mark");
    try (LeasedGeneGenerator first = generator(mark, GeneClock.system())) {
      assertThatThrownBy(() -> generator(mark, GeneClock.system()))
          .isInstanceOf(GeneIdException.class)
          .hasMessage("worker id 5 of space 'default' is in use by another generator on this host (" + mark
              + ".lock is locked)");
      assertThat(first.nextId()).isPositive();
    }
  }

  @Test
  void aCorruptMarkFileIsAnErrorNotAReset() throws Exception {
    Path mark = dir.resolve("w5.mark");
    Files.writeString(mark, "garbage");
    assertThatThrownBy(() -> generator(mark, GeneClock.system()))
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("the mark file " + mark + " of worker id 5 must hold a number of milliseconds but "
            + "holds 'garbage'");
  }

  @Test
  void renewalsRecordAMarkAheadOfUse() {
    Path mark = dir.resolve("w5.mark");
    long start = System.currentTimeMillis();
    try (LeasedGeneGenerator g = generator(mark, GeneClock.system())) {
      long granted = g.lease().orElseThrow().highWaterMark().toEpochMilli();
      // recorded before use: about one TTL past the moment of the grant
      assertThat(granted).isGreaterThanOrEqualTo(start + TTL.toMillis() - 100);
      long id = g.nextId();
      long issuedAt = GeneIdLayout.defaults().decode(id).timestamp().toEpochMilli();
      // the file holds the last mark recorded (renewals only raise it), and no id is issued past it
      long recorded = Long.parseLong(readMark(mark));
      assertThat(recorded).isGreaterThanOrEqualTo(granted).isGreaterThan(issuedAt);
    }
  }

  @Test
  void theRenewIntervalMustBeShorterThanTheTtl() {
    assertThatThrownBy(() -> LeasedGeneGenerator.builder()
        .assigner(StaticWorkerIdAssigner.builder().workerId(5).markFile(dir.resolve("m")).ttl(Duration.ofSeconds(1))
            .build())
        .renewInterval(Duration.ofSeconds(1))
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("renewInterval must be in [10ms, 1000ms) (below the lease TTL) but was 1000ms");
  }

  @Test
  void aGrantStartsAboveNowPlusTheBorrowSlackWhateverTheMarkFileSays() throws Exception {
    Path mark = dir.resolve("w6.mark");
    long before = System.currentTimeMillis();
    try (StaticWorkerIdAssigner a = StaticWorkerIdAssigner.builder().workerId(6).markFile(mark).build()) {
      // no mark file: the previous run may have issued up to the borrow slack beyond its clock, before now
      assertThat(a.acquire(255, Duration.ofSeconds(20)).previousHighWaterMark().toEpochMilli())
          .isGreaterThanOrEqualTo(before + 20_000);
    }
    long ahead = System.currentTimeMillis() + 60_000;
    Files.writeString(mark, Long.toString(ahead));
    try (StaticWorkerIdAssigner a = StaticWorkerIdAssigner.builder().workerId(6).markFile(mark).build()) {
      assertThat(a.acquire(255, Duration.ofMillis(10)).previousHighWaterMark().toEpochMilli()).isEqualTo(ahead);
    }
  }

  /**
   * #11 scenario 5, static worker id. Before: with its mark lost (no mark file, or an old one that a power loss
   * brought back), run B started at once after run A died re-issued 18,729 of A's 20,000 ids (A borrowed ~1.2 s
   * ahead). Now every grant starts above now + maxBorrowMillis.
   */
  @Test
  void aQuickRestartWithALostMarkRepeatsNoneOfTheIdsTheDeadRunBorrowed() throws Exception {
    Path mark = dir.resolve("w7.mark");
    GeneIdLayout layout = GeneIdLayout.builder().epoch(GeneIdLayout.DEFAULT_EPOCH).timestampBits(41).workerBits(18)
        .sequenceBits(4).geneBits(0).build();
    // run A, another process that died before its mark reached the disk: ids borrowed ahead, an old mark on disk
    GeneSnowflakeGenerator runA = GeneSnowflakeGenerator.builder().layout(layout).workerId(7).maxBorrowMillis(5000)
        .buildUnshared();
    Files.writeString(mark, Long.toString(System.currentTimeMillis() - 60_000));
    Set<Long> issuedByA = new HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      issuedByA.add(runA.nextId());
    }
    int repeats = 0;
    try (LeasedGeneGenerator runB = LeasedGeneGenerator.builder()
        .assigner(StaticWorkerIdAssigner.builder().workerId(7).markFile(mark).ttl(TTL).build())
        .layout(layout).maxBorrowMillis(5000).build()) {
      for (int i = 0; i < 20_000; i++) {
        if (issuedByA.contains(runB.nextId())) {
          repeats++;
        }
      }
    }
    assertThat(repeats).isZero();
  }

  @Test
  void theMarkFileAndItsDirectoryAreFlushed() throws Exception {
    StaticWorkerIdAssigner.syncDirectory(dir); // opens the directory and forces it: no error on Linux
    Path mark = dir.resolve("sub").resolve("w8.mark");
    try (StaticWorkerIdAssigner a = StaticWorkerIdAssigner.builder().workerId(8).markFile(mark).build()) {
      WorkerLease lease = a.acquire(255, Duration.ofMillis(10));
      a.renew(lease, java.time.Instant.ofEpochMilli(lease.previousHighWaterMark().toEpochMilli() + 5));
      assertThat(Long.parseLong(readMark(mark))).isEqualTo(lease.previousHighWaterMark().toEpochMilli() + 5);
      a.release(lease, java.time.Instant.ofEpochMilli(lease.previousHighWaterMark().toEpochMilli() + 7));
    }
    assertThat(Long.parseLong(readMark(mark))).isGreaterThan(0);
    assertThat(Files.exists(mark.resolveSibling("w8.mark.tmp"))).isFalse();
    assertThatThrownBy(() -> StaticWorkerIdAssigner.syncDirectory(dir.resolve("missing")))
        .isInstanceOf(java.nio.file.NoSuchFileException.class);
  }

  private static LeasedGeneGenerator generator(Path mark, GeneClock clock) {
    return LeasedGeneGenerator.builder()
        .assigner(StaticWorkerIdAssigner.builder().workerId(5).markFile(mark).ttl(TTL).build())
        .clock(clock)
        .build();
  }

  private static String readMark(Path mark) {
    try {
      return Files.readString(mark).trim();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
