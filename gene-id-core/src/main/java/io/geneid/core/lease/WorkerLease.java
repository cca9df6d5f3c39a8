package io.geneid.core.lease;

import java.time.Instant;
import java.util.Objects;

/**
 * A lease on one worker id of a pool, as handed out by a {@link WorkerIdAssigner}.
 *
 * <p>Times in a lease come from the store ({@code expiresAt}) or from the generators that hold the id (the marks):
 * a generator never compares them with its own clock except through the marks, which are timestamps of ids.
 *
 * @param space the pool (namespace) the worker id belongs to
 * @param workerId the worker id this lease grants
 * @param token the fencing token: drawn at random (64 bits) for every grant, never a counter kept in the store, so
 *     it never repeats across the store's history, even after the store rolls back; a renewal or release by a holder
 *     that lost the id is refused by the store
 * @param owner who holds the lease (by default {@code pid@host}), as shown in exhaustion messages
 * @param previousHighWaterMark the highest id timestamp the previous holder may have issued (including borrowed
 *     time); the new holder issues only after it. {@link Instant#EPOCH} for a worker id never used before
 * @param highWaterMark the highest id timestamp the store has recorded for this holder: it must not issue above it
 * @param expiresAt when the store lets another holder take the worker id, in the store's time;
 *     {@link Instant#MAX} for a lease that never expires (static assignment)
 * @param grantSentNanos when the store call that granted this lease was sent, on this JVM's {@link System#nanoTime()}:
 *     the lease's TTL runs from there at the earliest, however long the assigner waited for a free worker id before
 *     it (see {@link LeaseLoop}); {@link #GRANT_SENT_UNKNOWN} if the assigner does not say, and then its holder
 *     counts the TTL from before it asked the assigner
 */
public record WorkerLease(String space, long workerId, long token, String owner, Instant previousHighWaterMark,
    Instant highWaterMark, Instant expiresAt, long grantSentNanos) {

  /** {@link #grantSentNanos()} of a lease whose assigner does not say when the granting call was sent. */
  public static final long GRANT_SENT_UNKNOWN = Long.MIN_VALUE;

  /** Checks that no component is null and the worker id is not negative. */
  public WorkerLease {
    Objects.requireNonNull(space, "space");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(previousHighWaterMark, "previousHighWaterMark");
    Objects.requireNonNull(highWaterMark, "highWaterMark");
    Objects.requireNonNull(expiresAt, "expiresAt");
    if (workerId < 0) {
      throw new IllegalArgumentException("workerId must not be negative but was " + workerId);
    }
  }

  /** A lease whose assigner does not say when the granting call was sent ({@link #GRANT_SENT_UNKNOWN}). */
  public WorkerLease(String space, long workerId, long token, String owner, Instant previousHighWaterMark,
      Instant highWaterMark, Instant expiresAt) {
    this(space, workerId, token, owner, previousHighWaterMark, highWaterMark, expiresAt, GRANT_SENT_UNKNOWN);
  }

  /** This lease with the store's answer to a renewal (the grant's send time stays). */
  public WorkerLease renewed(Instant recordedHighWaterMark, Instant newExpiry) {
    return new WorkerLease(space, workerId, token, owner, previousHighWaterMark, recordedHighWaterMark, newExpiry,
        grantSentNanos);
  }

  /**
   * This lease, granted by a store call sent at {@code sentNanos} ({@link System#nanoTime()}): what an assigner that
   * waited for a free worker id before the grant returns, so that its holder counts the TTL from the grant, not from
   * when it asked.
   */
  public WorkerLease grantSentAt(long sentNanos) {
    return new WorkerLease(space, workerId, token, owner, previousHighWaterMark, highWaterMark, expiresAt, sentNanos);
  }
}
