package io.geneid.core.snowflake;

import io.geneid.core.GeneIdException;

import java.time.Duration;
import java.time.Instant;

/**
 * The clock is behind the last timestamp a gene issued by more than the generator's borrowing bound, and the
 * {@link ClockBackwardsPolicy} did not allow waiting (any longer) for it to catch up. No id was issued.
 */
public final class ClockMovedBackwardsException extends GeneIdException {
  private static final long serialVersionUID = 1L;

  private final long workerId;
  private final Instant lastIssued;
  private final Instant clockTime;
  private final Duration waited;

  public ClockMovedBackwardsException(long workerId, Instant lastIssued, Instant clockTime, Duration waited) {
    super("clock moved backwards: worker id " + workerId + " already issued ids at " + lastIssued
        + " but the clock reads " + clockTime + " (" + Duration.between(clockTime, lastIssued).toMillis()
        + " ms behind); waited " + waited.toMillis() + " ms");
    this.workerId = workerId;
    this.lastIssued = lastIssued;
    this.clockTime = clockTime;
    this.waited = waited;
  }

  public long workerId() {
    return workerId;
  }

  /** The latest timestamp already used by the gene that asked. */
  public Instant lastIssued() {
    return lastIssued;
  }

  /** What the clock read when the generator gave up. */
  public Instant clockTime() {
    return clockTime;
  }

  /** How far the clock is behind {@link #lastIssued()}. */
  public Duration step() {
    return Duration.between(clockTime, lastIssued);
  }

  /** How long the generator waited for the clock before giving up. */
  public Duration waited() {
    return waited;
  }
}
