package io.geneid.core.snowflake;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Review of issue #39's first-renewal rule (w39r). {@code LeaseKeeper.acquire()} takes the instant before
 * {@code assigner.acquire()} ({@code askedNanos}) as the start of the grant's TTL, but a real assigner's acquire waits
 * for a free worker id (LeaseLoop, {@code lease-acquire-timeout}, 2 x TTL by default) before it grants: the grant's TTL
 * runs from the grant, not from the ask. A process that waited at least 95 % of a TTL for a worker id to free up (a
 * full pool, a holder that died and whose lease has to expire: the usual rolling restart) is granted a fresh lease,
 * renews it at once, yet is told it "lapsed before it could be renewed (a paused process, a slow store call)", gives
 * it back and asks again. Nothing repeats, but every such start costs a release and a second grant, logs a false
 * WARNING, and with several waiters each one that waited gives its grant back to the next waiter that waited too; four
 * in a row (MAX_ATTEMPTS) and acquire() throws the lapse.
 */
class AcquireWaitReviewTest {

  private static final Duration TTL = Duration.ofMillis(400);

  @Test
  @Disabled("repro: a grant after waiting for a free worker id is given back as lapsed. Observed: calls [x ACQUIRE -1,"
      + " a ACQUIRE -1, a RELEASE 0, a ACQUIRE -1, a RENEW 0, ...]: a's acquisitions 2 (expected 1), WARNING 'worker id"
      + " 0 ... lapsed before it could be renewed: the renewal was due within 380 ms of the previous store call but went"
      + " out 399 ms after it (a paused process, a slow store call)'")
  void aGrantAfterWaitingForAFreeWorkerIdIsKept() {
    ModelLeaseStore store = new ModelLeaseStore("acquire-wait" + ThreadLocalRandom.current().nextInt(1 << 30), 0, 0,
        TTL, System::currentTimeMillis);
    store.vouches = false; // JDBC, ZooKeeper, etcd
    store.holder("x", Duration.ZERO).acquire(255, Duration.ofMillis(10)); // a holder that died: expires in one TTL
    try (LeasedGeneGenerator a = LeasedGeneGenerator.builder()
        .assigner(store.holder("a", TTL.multipliedBy(3))).maxBorrowMillis(10).manualKeeper().build()) {
      a.nextId(0);
      long acquires = store.calls.stream().filter(c -> c.startsWith("a ACQUIRE")).count();
      System.out.println("[acquire-wait review] calls " + store.calls + "; a's acquisitions: " + acquires);
      assertThat(store.calls).as("a gave back the grant it waited for").doesNotContain("a RELEASE 0");
      assertThat(acquires).as("a's acquisitions").isEqualTo(1);
    }
  }
}
