package io.geneid.core.bucket;

/** Where a bucket is in a move. Reads always go to the bucket's target, whatever its state. */
public enum BucketState {
  /** Reads and writes go to the bucket's target. */
  NORMAL,
  /** A move is copying the bucket: reads go to its (old) target, writes fail fast with a retryable error. */
  FROZEN,
  /**
   * The bucket was switched to its new target; its rows are still on the old target until the mover's cleanup
   * deletes them. Routes like {@link #NORMAL}.
   */
  MOVED;

  /** Whether writes to a bucket in this state must be refused. */
  public boolean refusesWrites() {
    return this == FROZEN;
  }
}
