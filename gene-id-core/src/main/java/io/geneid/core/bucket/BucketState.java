package io.geneid.core.bucket;

/**
 * Where a bucket is in a move. A read by key always goes to the bucket's target, whatever its state; a statement that
 * reads every node (a scan) is refused while the bucket is {@link #SWITCHING}.
 */
public enum BucketState {
  /** Reads and writes go to the bucket's target. */
  NORMAL,
  /** A move is copying the bucket: reads go to its (old) target, writes fail fast with a retryable error. */
  FROZEN,
  /**
   * A move is switching the bucket to its new target: for a while its rows are in the routed tables of both its old and
   * its new target, so a statement that reads every node would count them twice. Reads by key go to the bucket's
   * target (which holds its rows throughout); writes, and every statement that cannot prove it avoids the bucket (a
   * scan, {@code COUNT(*)}, a filter on another column), fail fast with a retryable error. It lasts about two refreshes
   * of the routers.
   */
  SWITCHING,
  /**
   * The bucket was switched to its new target; its old rows are set aside on the old target until the mover's cleanup
   * deletes them. Routes like {@link #NORMAL}.
   */
  MOVED;

  /** Whether writes to a bucket in this state must be refused ({@link #FROZEN}, {@link #SWITCHING}). */
  public boolean refusesWrites() {
    return this == FROZEN || this == SWITCHING;
  }

  /**
   * Whether a statement that may read the bucket on every node (one without a sharding value of the bucket) must be
   * refused: {@link #SWITCHING}, while its rows may be on two nodes.
   */
  public boolean refusesScans() {
    return this == SWITCHING;
  }
}
