package io.geneid.core.snowflake;

import io.geneid.core.lease.StaticWorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerLease;


import io.geneid.core.GeneIdException;
import io.geneid.core.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LeasedGeneGenerator#stats()} over a real {@link StaticWorkerIdAssigner} (a mark file in a temp directory).
 * Renewals are broken by a thin wrapper that makes {@code renew} throw what a store that cannot be reached throws;
 * the lease store outage through a real Redis is tested in gene-id-micrometer.
 */
class LeasedGeneStatsTest {

  /**
   * Renewed every 50 ms: a healthy lease lapses only if no renewal gets through for 20 intervals (a loaded CI machine
   * delayed them past a TTL of 300 ms), and a broken one is fenced within a second. 1 s at the tests' time scale: the
   * lease runs on the system clock.
   */
  private static final Duration TTL = TestTime.seconds(1);

  @TempDir Path dir;

  /** The static assigner, with renewals that fail while {@link #down} is set. */
  private static final class Breakable implements WorkerIdAssigner {
    final StaticWorkerIdAssigner store;
    final AtomicBoolean down = new AtomicBoolean();

    Breakable(StaticWorkerIdAssigner store) {
      this.store = store;
    }

    @Override
    public String space() {
      return store.space();
    }

    @Override
    public Duration ttl() {
      return store.ttl();
    }

    @Override
    public boolean vouchesForHistory() {
      return store.vouchesForHistory();
    }

    @Override
    public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
      return store.acquire(layoutMaxWorkerId, borrowSlack);
    }

    @Override
    public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
      if (down.get()) {
        throw new GeneIdException("lease store unreachable (test)");
      }
      return store.renew(lease, highWaterMark);
    }

    @Override
    public void release(WorkerLease lease, Instant highWaterMark) {
      store.release(lease, highWaterMark);
    }

    @Override
    public void close() {
      store.close();
    }
  }

  private Breakable assigner(long workerId) {
    return new Breakable(StaticWorkerIdAssigner.builder().space("stats").workerId(workerId)
        .markFile(dir.resolve("w" + workerId + ".mark")).ttl(TTL).build());
  }

  private static LeasedGeneGenerator generator(WorkerIdAssigner assigner) {
    return LeasedGeneGenerator.builder().assigner(assigner).renewInterval(Duration.ofMillis(50)).build();
  }

  @Test
  void aHealthyLeaseCountsIdsAndHasTimeLeft() {
    try (LeasedGeneGenerator g = generator(assigner(9))) {
      for (int i = 0; i < 1_000; i++) {
        g.nextIdFor(i);
      }
      LeasedGeneStats s = g.stats();
      assertThat(s.ids().idsIssued()).isEqualTo(1_000);
      assertThat(s.workerId()).isEqualTo(9);
      assertThat(s.ttl()).isEqualTo(TTL);
      assertThat(s.leaseRemaining()).isPositive().isLessThanOrEqualTo(TTL);
      assertThat(s.issuing()).isTrue();
      assertThat(s.renewalFailures()).isZero();
      assertThat(s.fencings()).isZero();
      assertThat(s.workerSwitches()).isZero();
      assertThat(s.lastRenewalError()).isNull();
      assertThat(g.ttl()).isEqualTo(TTL);
    }
  }

  @Test
  void failedRenewalsRunTheLeaseOutThenFenceAndARevivedLeaseKeepsTheCounts() {
    Breakable assigner = assigner(10);
    try (LeasedGeneGenerator g = generator(assigner)) {
      for (int i = 0; i < 100; i++) {
        g.nextId();
      }
      assigner.down.set(true);
      Await.until(() -> g.stats().renewalFailures() >= 1, Duration.ofSeconds(10), "a failed renewal");
      LeasedGeneStats failing = g.stats();
      assertThat(failing.lastRenewalError()).isEqualTo("lease store unreachable (test)");

      Await.until(() -> g.stats().fencings() == 1, Duration.ofSeconds(10), "the lapse counted as a fencing");
      LeasedGeneStats fenced = g.stats();
      assertThat(fenced.issuing()).isFalse();
      assertThat(fenced.leaseRemaining()).isZero();
      assertThat(fenced.renewalFailures()).isGreaterThanOrEqualTo(failing.renewalFailures());
      assertThat(fenced.ids().idsIssued()).isEqualTo(100);
      assertThat(fenced.workerId()).isEqualTo(10);

      assigner.down.set(false);
      Await.until(() -> g.stats().issuing(), Duration.ofSeconds(10), "the lease revived");
      g.nextId();
      LeasedGeneStats revived = g.stats();
      assertThat(revived.ids().idsIssued()).isEqualTo(101);
      assertThat(revived.fencings()).isEqualTo(1); // a lapse is counted once
      assertThat(revived.lastRenewalError()).isNull();
      assertThat(revived.leaseRemaining()).isPositive();
      assertThat(revived.renewalFailures()).isGreaterThanOrEqualTo(fenced.renewalFailures());

      // a second outage is a second fencing
      assigner.down.set(true);
      Await.until(() -> g.stats().fencings() == 2, Duration.ofSeconds(10), "the second lapse counted");
      assertThat(g.isIssuing()).isFalse();
    }
  }

  @Test
  void aClosedGeneratorHasNoTimeLeft() {
    LeasedGeneGenerator g = generator(assigner(11));
    g.nextId();
    g.close();
    LeasedGeneStats s = g.stats();
    assertThat(s.issuing()).isFalse();
    assertThat(s.leaseRemaining()).isZero();
    assertThat(s.ids().idsIssued()).isEqualTo(1);
  }
}
