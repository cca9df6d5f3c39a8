package io.geneid.spring.boot.actuate;

import io.geneid.core.GeneIdGenerator;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.snowflake.GeneSnowflakeStats;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.snowflake.LeasedGeneStats;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The {@code geneid} health, free of Spring Boot's health API so that the Boot 3 and Boot 4 starters share it (each
 * has a {@code GeneIdHealthIndicator} that reports it): DOWN when a generator cannot issue ids or is about to stop.
 *
 * <ul>
 *   <li>A {@link LeasedGeneGenerator} is DOWN when it is not issuing (its lease lapsed or was lost and no new worker
 *       id is held yet, or it is closed) and when its lease has less time left than the threshold
 *       ({@code management.health.geneid.lease-remaining-threshold}, default a third of its TTL): renewals are
 *       failing and it will fence itself soon. Details: worker id, space, time left, TTL, failed renewals, fencings,
 *       worker-id moves, the last renewal error.
 *   <li>A {@link GeneSnowflakeGenerator} (a fixed worker id) is UP, with its worker id, layout and figures.
 *   <li>A {@link GeneSegmentGenerator} is DOWN when its buffers are empty and its store failed.
 * </ul>
 *
 * <p>Details are keyed by the generator's bean name. Reading health takes no lock and calls no store.
 */
public final class GeneIdHealth {

  private final Map<String, GeneIdGenerator> generators;
  private final @Nullable Duration threshold;

  /**
   * The health of these generators.
   *
   * @param generators by bean name
   * @param leaseRemainingThreshold DOWN below this much lease time left; {@code null} for a third of each TTL
   * @throws IllegalArgumentException if the threshold is not positive or not below the TTL of a leased generator
   */
  public GeneIdHealth(Map<String, ? extends GeneIdGenerator> generators,
      @Nullable Duration leaseRemainingThreshold) {
    this.generators = Map.copyOf(generators);
    this.threshold = leaseRemainingThreshold;
    if (leaseRemainingThreshold != null) {
      if (leaseRemainingThreshold.isNegative() || leaseRemainingThreshold.isZero()) {
        throw new IllegalArgumentException(GeneIdHealthProperties.PREFIX
            + ".lease-remaining-threshold must be positive but was " + leaseRemainingThreshold);
      }
      this.generators.forEach((name, g) -> {
        if (g instanceof LeasedGeneGenerator leased && leaseRemainingThreshold.compareTo(leased.ttl()) >= 0) {
          throw new IllegalArgumentException(GeneIdHealthProperties.PREFIX
              + ".lease-remaining-threshold must be below the lease TTL (" + leased.ttl() + ") of generator '" + name
              + "' but was " + leaseRemainingThreshold + ": health would always be DOWN");
        }
      });
    }
  }

  /**
   * One reading of the generators' health.
   *
   * @param up whether every generator is healthy
   * @param details by bean name: each generator's {@code status} ({@code UP} or {@code DOWN}), figures and reason
   */
  public record Report(boolean up, Map<String, Object> details) {}

  /** Reads every generator's state; takes no lock and calls no store. */
  public Report check() {
    boolean all = true;
    Map<String, Object> details = new LinkedHashMap<>();
    for (Map.Entry<String, GeneIdGenerator> e : new TreeMap<>(generators).entrySet()) {
      Map<String, Object> d = new LinkedHashMap<>();
      boolean up = describe(e.getValue(), d);
      d.put("status", up ? "UP" : "DOWN");
      details.put(e.getKey(), d);
      all &= up;
    }
    return new Report(all, details);
  }

  /** Fills {@code d} and says whether the generator is healthy. */
  private boolean describe(GeneIdGenerator generator, Map<String, Object> d) {
    if (generator instanceof LeasedGeneGenerator g) {
      LeasedGeneStats s = g.stats();
      Duration limit = threshold != null ? threshold : s.ttl().dividedBy(3);
      boolean up = true;
      d.put("kind", "leased");
      if (!s.issuing()) {
        up = false;
        d.put("reason", "the worker-id lease is lost: no ids are issued until a worker id is leased again");
      } else if (s.leaseRemaining().compareTo(limit) < 0) {
        up = false;
        d.put("reason", "the worker-id lease lapses in " + s.leaseRemaining().toMillis() + " ms (below "
            + limit.toMillis() + " ms) unless a renewal succeeds");
      }
      d.put("space", g.space());
      d.put("workerId", s.workerId());
      d.put("issuing", s.issuing());
      d.put("leaseRemaining", s.leaseRemaining().toMillis() + " ms");
      d.put("leaseTtl", s.ttl().toMillis() + " ms");
      d.put("renewalFailures", s.renewalFailures());
      d.put("fencings", s.fencings());
      d.put("workerSwitches", s.workerSwitches());
      if (s.lastRenewalError() != null) {
        d.put("lastRenewalError", s.lastRenewalError());
      }
      d.put("layout", GeneIdEndpoint.describe(g.layout()));
      d.put("idsIssued", s.ids().idsIssued());
      return up;
    }
    if (generator instanceof GeneSnowflakeGenerator g) {
      GeneSnowflakeStats s = g.stats();
      d.put("kind", "static");
      d.put("workerId", g.workerId());
      d.put("layout", GeneIdEndpoint.describe(g.layout()));
      d.put("idsIssued", s.idsIssued());
      d.put("borrowDebt", s.borrowDebt().toMillis() + " ms");
      d.put("clockStepBacks", s.clockStepBacks());
      d.put("timestampRunsOutAfter", g.layout().lastTimestamp().toString());
      return true;
    }
    if (generator instanceof GeneSegmentGenerator g) {
      GeneSegmentGenerator.Status s = g.status();
      d.put("kind", "segment");
      d.put("bizTag", s.bizTag());
      d.put("remaining", s.remaining());
      d.put("nextReady", s.nextReady());
      boolean up = s.remaining() > 0 || s.lastStoreError() == null;
      if (s.lastStoreError() != null) {
        d.put("lastStoreError", String.valueOf(s.lastStoreError()));
      }
      if (!up) {
        d.put("reason", "no values left and the segment store failed");
      }
      return up;
    }
    d.put("kind", generator.getClass().getName());
    return true;
  }
}
