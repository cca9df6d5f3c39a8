package io.geneid.core.bucket;

import io.geneid.core.GeneIdException;

/**
 * A write was refused because it touches a bucket that a move has frozen. Retryable: the freeze lasts while the
 * bucket's rows are copied (seconds), after which the write goes to the bucket's new target. Reads are not refused.
 */
public final class BucketFrozenException extends GeneIdException {

  private static final long serialVersionUID = 1L;

  private final int bucket;
  private final long version;

  /** A refusal naming the bucket and the map version that froze it. */
  public BucketFrozenException(String message, int bucket, long version) {
    super(message);
    this.bucket = bucket;
    this.version = version;
  }

  /** The frozen bucket (gene). */
  public int bucket() {
    return bucket;
  }

  /** The version of the map that froze it. */
  public long version() {
    return version;
  }
}
