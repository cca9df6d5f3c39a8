package io.geneid.core.bucket;

/**
 * One bucket moving from one target to another.
 *
 * @param bucket the bucket (gene)
 * @param from its target index now
 * @param to its target index after the move
 */
public record BucketMove(int bucket, int from, int to) {

  /** Checks that the move goes somewhere. */
  public BucketMove {
    if (bucket < 0 || from < 0 || to < 0 || from == to) {
      throw new IllegalArgumentException("a bucket move needs a bucket and two distinct targets, all at least 0,"
          + " but was bucket " + bucket + " from " + from + " to " + to);
    }
  }

  @Override
  public String toString() {
    return "bucket " + bucket + ": " + from + " -> " + to;
  }
}
