package io.geneid.core.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaseLoopTest {

  private final AtomicLong nanos = new AtomicLong();
  private final List<Long> pauses = new ArrayList<>();

  private LeaseLoop loop(Duration acquireTimeout) {
    WorkerIdAssigners.LeaseSettings s = new WorkerIdAssigners.LeaseSettings("orders", 4, 5, Duration.ofSeconds(1),
        acquireTimeout, "me");
    return new LeaseLoop(s, () -> "the store", nanos::get, (space, ttl, remaining) -> {
      long pause = Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(Math.max(20, ttl.toMillis() / 10)));
      pauses.add(pause);
      nanos.addAndGet(pause);
    });
  }

  private static WorkerLease lease(long id) {
    return new WorkerLease("orders", id, 1, "me", Instant.EPOCH, Instant.EPOCH, Instant.EPOCH);
  }

  @Test
  void aGrantIsReturnedAtOnceWithThePoolAndSlackPassedIn() {
    long[] seen = new long[3];
    WorkerLease l = loop(Duration.ZERO).acquire(255, Duration.ofMillis(7), (lo, hi, slack) -> {
      seen[0] = lo;
      seen[1] = hi;
      seen[2] = slack;
      return LeaseLoop.Attempt.granted(lease(4));
    });
    assertThat(l.workerId()).isEqualTo(4);
    assertThat(seen).containsExactly(4, 5, 7);
    assertThat(pauses).isEmpty();
  }

  @Test
  void lostRacesAreTriedAgainAtOnceThenWaitedFor() {
    AtomicInteger tries = new AtomicInteger();
    WorkerLease l = loop(Duration.ofSeconds(1)).acquire(255, Duration.ZERO, (lo, hi, slack) ->
        tries.incrementAndGet() <= LeaseLoop.RACES ? LeaseLoop.Attempt.busy(List::of, true)
            : LeaseLoop.Attempt.granted(lease(5)));
    assertThat(l.workerId()).isEqualTo(5);
    assertThat(tries).hasValue(LeaseLoop.RACES + 1);
    assertThat(pauses).hasSize(1); // after RACES lost races in a row
  }

  @Test
  void aGrantAfterWaitingCarriesTheSendOfTheTryThatGrantedIt() {
    // issue #39 review: the holder counts the TTL from this send, not from its first try (a full TTL earlier here)
    AtomicInteger tries = new AtomicInteger();
    AtomicLong grantingSend = new AtomicLong();
    WorkerLease l = loop(Duration.ofSeconds(2)).acquire(255, Duration.ZERO, (lo, hi, slack) -> {
      if (nanos.get() < TimeUnit.SECONDS.toNanos(1)) {
        tries.incrementAndGet();
        return LeaseLoop.Attempt.busy(List::of, false);
      }
      grantingSend.set(nanos.get());
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(3)); // the granting call itself takes time: still its send
      return LeaseLoop.Attempt.granted(lease(4));
    });
    assertThat(tries.get()).isGreaterThan(1);
    assertThat(grantingSend.get()).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(l.grantSentNanos()).isEqualTo(grantingSend.get());
    assertThat(lease(4).grantSentNanos()).as("a lease built without it").isEqualTo(WorkerLease.GRANT_SENT_UNKNOWN);
    assertThat(l.renewed(Instant.EPOCH, Instant.EPOCH).grantSentNanos()).isEqualTo(grantingSend.get());
  }

  @Test
  void aBusyPoolIsWaitedForUntilTheTimeoutThenNamedWithItsHoldersById() {
    AtomicInteger tries = new AtomicInteger();
    assertThatThrownBy(() -> loop(Duration.ofMillis(450)).acquire(255, Duration.ZERO, (lo, hi, slack) -> {
      tries.incrementAndGet();
      return LeaseLoop.Attempt.busy(() -> List.of("5 by b until x", "4 by a until y"), false);
    }))
        .isInstanceOf(WorkerIdExhaustedException.class)
        .hasMessage("no free worker id in space 'orders': all 2 worker ids of the pool [4, 5] are taken in the store "
            + "after waiting 450 ms; holders: 4 by a until y, 5 by b until x. Stop a process, widen the pool "
            + "(worker-id-min/worker-id-max, worker bits) or use another space.");
    assertThat(pauses).hasSize(5).allMatch(p -> p <= TimeUnit.MILLISECONDS.toNanos(100));
    assertThat(tries).hasValue(6);
  }

  @Test
  void idsOfUnknownHistoryExtendTheTimeoutButNotAZeroOne() {
    // the store says, at every try, how long until its ids of unknown history are free: 3 s from the start
    LeaseLoop.Step waiting = (lo, hi, slack) -> new LeaseLoop.Attempt(null, false, List::of, " (later)",
        Math.max(0, 3_000 - TimeUnit.NANOSECONDS.toMillis(nanos.get())));
    assertThatThrownBy(() -> loop(Duration.ofMillis(100)).acquire(255, Duration.ZERO, waiting))
        .hasMessageContaining("are taken (later) in the store after waiting 100 ms");
    assertThat(nanos.get()).isBetween(TimeUnit.MILLISECONDS.toNanos(3_000), TimeUnit.MILLISECONDS.toNanos(3_200));
    pauses.clear();
    nanos.set(0);
    assertThatThrownBy(() -> loop(Duration.ZERO).acquire(255, Duration.ZERO, waiting))
        .isInstanceOf(WorkerIdExhaustedException.class);
    assertThat(pauses).isEmpty();
  }

  @Test
  void aPoolAboveTheLayoutIsRefusedBeforeAnyStoreCall() {
    assertThatThrownBy(() -> loop(Duration.ZERO).acquire(3, Duration.ZERO, (lo, hi, slack) -> {
      throw new AssertionError("no store call");
    })).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker-id-min must be in [0, 3] (the layout's worker ids; space 'orders')");
  }

  @Test
  void tokensAreNeverZero() {
    for (int i = 0; i < 1_000; i++) {
      assertThat(LeaseLoop.newToken()).isNotZero();
    }
  }
}
