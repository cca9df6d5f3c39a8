package io.geneid.core.snowflake;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdLayout;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Review of issue #39's first-renewal rule (w39r), kept as a regression test. {@code LeaseKeeper.acquire()} took the
 * instant before {@code assigner.acquire()} as the start of the grant's TTL, but a real assigner's acquire waits for a
 * free worker id (LeaseLoop, {@code lease-acquire-timeout}, 2 x TTL by default) before it grants: the grant's TTL runs
 * from the grant, not from the ask. A process that waited at least 95 % of a TTL for a worker id to free up (a full
 * pool, a holder that died and whose lease has to expire: the usual rolling restart) was granted a fresh lease,
 * renewed it at once, yet was told it "lapsed before it could be renewed (a paused process, a slow store call)", gave
 * it back and asked again. Nothing repeated, but every such start cost a release and a second grant, logged a false
 * WARNING, and with several waiters each one that waited gave its grant back to the next; four in a row
 * (MAX_ATTEMPTS) and acquire() threw the lapse. Now the assigner tells when the call that granted was sent
 * ({@code WorkerLease.grantSentNanos}, set by LeaseLoop; {@link ModelLeaseStore} does the same), and the TTL counts
 * from there.
 *
 * <p>One hand-driven time ({@code nanos}) for the store, the generator and the store's wait between tries, so the wait
 * is one full TTL whatever the machine's load (the first version of this test used real time, and a slow start of the
 * generator could eat more than 5 % of the TTL and hide the bug).
 */
class AcquireWaitReviewTest {

  private static final Duration TTL = Duration.ofMillis(400);

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final long wallBase = System.currentTimeMillis();
  /** Every reading moves time on by 10 us, so a generator waiting for its clock sees it move. */
  private final GeneClock clock = () -> {
    nanos.addAndGet(10_000);
    return millis();
  };

  private long millis() {
    return wallBase + (nanos.get() - 1_000_000_000L) / 1_000_000L;
  }

  @Test
  void aGrantAfterWaitingForAFreeWorkerIdIsKept() {
    ModelLeaseStore store = new ModelLeaseStore("acquire-wait" + ThreadLocalRandom.current().nextInt(1 << 30), 0, 0,
        TTL, this::millis, nanos::get);
    store.vouches = false; // JDBC, ZooKeeper, etcd
    store.pauseWhileBusy = nanos::addAndGet;
    store.holder("x", Duration.ZERO).acquire(255, Duration.ofMillis(10)); // a holder that died: expires in one TTL
    long asked = nanos.get();
    GeneIdLayout layout = GeneIdLayout.builder().epoch(GeneIdLayout.DEFAULT_EPOCH.minus(Duration.ofDays(
        4_000 + ThreadLocalRandom.current().nextInt(2_000)))).build();
    try (LeasedGeneGenerator a = LeasedGeneGenerator.builder()
        .assigner(store.holder("a", TTL.multipliedBy(3))).layout(layout).clock(clock).maxBorrowMillis(10)
        .storeWait(Duration.ZERO).nanoTime(nanos::get).sleep(nanos::addAndGet).manualKeeper().build()) {
      a.nextId(0);
      long acquires = store.calls.stream().filter(c -> c.startsWith("a ACQUIRE")).count();
      System.out.println("[acquire-wait review] a waited " + (nanos.get() - asked) / 1_000_000 + " ms in all; calls "
          + store.calls.subList(0, Math.min(8, store.calls.size())) + "...; a's acquisitions: " + acquires);
      assertThat(store.calls).as("a gave back the grant it waited for").doesNotContain("a RELEASE 0");
      assertThat(acquires).as("a's acquisitions").isEqualTo(1);
    }
  }

  @Test
  void theGrantsSendIsTrustedUnlessItIsAfterTheAnswer() {
    io.geneid.core.lease.WorkerLease told = new io.geneid.core.lease.WorkerLease("s", 0, 1, "me",
        java.time.Instant.EPOCH, java.time.Instant.EPOCH, java.time.Instant.EPOCH);
    assertThat(LeaseKeeper.grantSent(told, 100, 900)).as("not told: from the ask").isEqualTo(100);
    assertThat(LeaseKeeper.grantSent(told.grantSentAt(700), 100, 900)).as("told").isEqualTo(700);
    assertThat(LeaseKeeper.grantSent(told.grantSentAt(100), 100, 900)).isEqualTo(100);
    assertThat(LeaseKeeper.grantSent(told.grantSentAt(900), 100, 900)).isEqualTo(900);
    // before the ask (a lease granted ahead of the call, or another clock): the stamp, the earlier of the two; an
    // odd stamp can only make the keeper see a lapse that did not happen, never count one late
    assertThat(LeaseKeeper.grantSent(told.grantSentAt(50), 100, 900)).as("before the ask").isEqualTo(50);
    // after the answer: cannot be the grant's send, so from the ask
    assertThat(LeaseKeeper.grantSent(told.grantSentAt(901), 100, 900)).as("after the answer").isEqualTo(100);
    // System.nanoTime() may wrap: compared by difference
    assertThat(LeaseKeeper.grantSent(told.grantSentAt(Long.MIN_VALUE + 5), Long.MAX_VALUE - 5, Long.MIN_VALUE + 9))
        .isEqualTo(Long.MIN_VALUE + 5);
  }
}
