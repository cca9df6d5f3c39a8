package io.geneid.core.snowflake;

import io.geneid.core.lease.WorkerIdAssigner;


import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneClock;
import io.geneid.core.testing.CapturingLoggerFinder;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The rule of {@link WorkerIdAssigner#vouchesForHistory()} on one generator, by hand: a lease from a store that does
 * not vouch issues nothing before its grant + TTL + {@code maxBorrowMillis} + {@link WorkerIdAssigner#HISTORY_MARGIN},
 * renewing meanwhile, and says so once at INFO; a lease that lapsed is not revived by a renewal but leased again
 * under the same wait, since a store restored from a copy may say "still yours" after it gave the worker id away.
 */
class ForgottenHoldersTest {

  private static final Duration TTL = Duration.ofSeconds(1);
  private static final long BORROW = 10;

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final long wallBase = System.currentTimeMillis();
  /** Every reading moves time on by 10 us, so a generator waiting for its clock sees it move. */
  private final GeneClock clock = () -> {
    nanos.addAndGet(10_000);
    return millis();
  };
  private final ModelLeaseStore store = new ModelLeaseStore("forgotten" + ThreadLocalRandom.current().nextInt(1 << 30),
      0, 1, TTL, this::millis, nanos::get);

  private long millis() {
    return wallBase + (nanos.get() - 1_000_000_000L) / 1_000_000L;
  }

  private LeasedGeneGenerator generator(String owner) {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(GeneIdLayout.DEFAULT_EPOCH.minus(Duration.ofDays(
        2_000 + ThreadLocalRandom.current().nextInt(1_000)))).build();
    return LeasedGeneGenerator.builder().assigner(store.holder(owner, Duration.ZERO)).layout(layout).clock(clock)
        .maxBorrowMillis(BORROW).storeWait(Duration.ZERO).nanoTime(nanos::get).sleep(nanos::addAndGet)
        .manualKeeper().build();
  }

  @Test
  void aLeaseOfAStoreThatDoesNotVouchIssuesOnlyAfterGrantPlusTtlPlusMargins() {
    store.vouches = false;
    long grant = millis();
    try (LeasedGeneGenerator g = generator("a")) {
      long first = g.layout().decode(g.nextId(0)).timestamp().toEpochMilli();
      long floor = grant + TTL.toMillis() + BORROW + WorkerIdAssigner.HISTORY_MARGIN.toMillis();
      assertThat(first).as("first id's timestamp against grant %s", grant).isGreaterThan(floor);
      assertThat(store.calls.stream().filter(c -> c.startsWith("a RENEW")).count())
          .as("renewals while it waited (TTL 1 s, renewed every 333 ms, 3 s)").isGreaterThanOrEqualTo(8);
      assertThat(CapturingLoggerFinder.of(LeasedGeneGenerator.class.getName()))
          .filteredOn(e -> e.message().contains(store.space)).extracting(CapturingLoggerFinder.Entry::message)
          .anySatisfy(m -> assertThat(m).contains("cannot vouch that it kept every write (a restore, a failover to a"
              + " replica that missed writes), so this waits one TTL + max-borrow-millis + 2000 ms from the grant"));
    }
  }

  @Test
  void aStoreThatVouchesIsTrustedAtOnce() {
    long grant = millis();
    try (LeasedGeneGenerator g = generator("a")) {
      long first = g.layout().decode(g.nextId(0)).timestamp().toEpochMilli();
      assertThat(first).isLessThan(grant + TTL.toMillis());
    }
  }

  @Test
  void aLapsedLeaseIsLeasedAgainNotRevived() {
    store.vouches = false;
    try (LeasedGeneGenerator g = generator("a")) {
      long worker = g.workerId();
      g.nextId(0);
      long acquires = store.calls.stream().filter(c -> c.startsWith("a ACQUIRE")).count();
      nanos.addAndGet(TTL.multipliedBy(2).toNanos()); // paused past its deadline; nobody took the worker id
      g.tick(); // a renewal would find its token still there: the keeper gives the lease back instead
      assertThat(store.calls).contains("a RELEASE " + worker);
      long again = millis();
      g.tick(); // and leases again, waiting out forgotten holders
      long first = g.layout().decode(g.nextId(0)).timestamp().toEpochMilli();
      assertThat(store.calls.stream().filter(c -> c.startsWith("a ACQUIRE")).count()).isEqualTo(acquires + 1);
      assertThat(first).isGreaterThan(again + TTL.toMillis() + BORROW);
    }
  }
}
