package io.geneid.core.snowflake;

import io.geneid.core.lease.WorkerLease;

import io.geneid.core.internal.WorkerIdClaims;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link LeasedGeneGenerator} may do right now, published by its {@link LeaseKeeper} through one volatile
 * reference and never changed in place: the worker id held, its lease, the local fencing deadline, and why it issues
 * no ids (lost, closed). Issuing reads it once before and once after making an id.
 *
 * @param holding the worker id held (or last held, once lost or closed); null before the first lease
 * @param lease the lease as the store last answered for it; null with {@code holding}
 * @param deadlineNanos the nano time after which no id of this holding may be returned
 * @param renewedAtMillis wall time the last successful renewal was sent
 * @param generation grows with every new holding and every successful renewal: a loss is counted once per generation
 * @param revokedReason why the holding issues no ids although its deadline may not have passed (lost, moved); null
 *     while it may issue
 * @param revokedAtMillis wall time of the revocation
 * @param closed the generator was closed
 * @param retired the id figures of the worker ids given up before {@code holding}
 */
record LeaseState(@Nullable Holding holding, @Nullable WorkerLease lease, long deadlineNanos, long renewedAtMillis,
    long generation, @Nullable String revokedReason, long revokedAtMillis, boolean closed, Totals retired) {

  /** One worker id held: its engine and its JVM-wide claim. A new lease is a new object (identity matters). */
  static final class Holding {
    final long workerId;
    final GeneSnowflakeGenerator engine;
    final WorkerIdClaims.Claim claim;

    Holding(long workerId, GeneSnowflakeGenerator engine, WorkerIdClaims.Claim claim) {
      this.workerId = workerId;
      this.engine = engine;
      this.claim = claim;
    }

    /** Stops the engine: ids it makes from now on fail its ceiling (and would fail the fencing check anyway). */
    void stop() {
      engine.ceiling(Long.MIN_VALUE / 4);
    }
  }

  /** Running totals of the id figures of the worker ids given up. */
  record Totals(long idsIssued, long clockStepBacks, long largestStepBackMillis, long clockWaits) {
    static final Totals ZERO = new Totals(0, 0, 0, 0);

    Totals plus(GeneSnowflakeStats s) {
      return new Totals(idsIssued + s.idsIssued(), clockStepBacks + s.clockStepBacks(),
          Math.max(largestStepBackMillis, s.largestClockStepBack().toMillis()), clockWaits + s.clockWaits());
    }
  }

  static final LeaseState NONE = new LeaseState(null, null, 0, 0, 0, null, 0, false, Totals.ZERO);

  /** Whether {@code h} is the live holding (not lost, not closed); its deadline aside. */
  boolean live(Holding h) {
    return holding == h && revokedReason == null && !closed;
  }

  LeaseState renewed(WorkerLease renewed, long deadline, long sentWallMillis, long nextGeneration) {
    return new LeaseState(holding, renewed, deadline, sentWallMillis, nextGeneration, null, 0, false, retired);
  }

  /** {@code next} replaces the holding of this state, whose figures go into the totals. */
  LeaseState replacedBy(Holding next, WorkerLease lease, long deadline, long sentWallMillis, long nextGeneration) {
    Totals t = holding == null ? retired : retired.plus(holding.engine.stats());
    return new LeaseState(next, lease, deadline, sentWallMillis, nextGeneration, null, 0, false, t);
  }

  /** This state with its deadline moved to {@code nowNanos} at the latest: the store says the lease is in doubt. */
  LeaseState doubted(long nowNanos) {
    long deadline = nowNanos - deadlineNanos < 0 ? nowNanos : deadlineNanos;
    return new LeaseState(holding, lease, deadline, renewedAtMillis, generation, revokedReason, revokedAtMillis,
        closed, retired);
  }

  LeaseState revoked(String reason) {
    return new LeaseState(holding, lease, deadlineNanos, renewedAtMillis, generation, reason,
        System.currentTimeMillis(), closed, retired);
  }

  LeaseState closedState() {
    return new LeaseState(holding, lease, deadlineNanos, renewedAtMillis, generation, revokedReason, revokedAtMillis,
        true, retired);
  }
}
