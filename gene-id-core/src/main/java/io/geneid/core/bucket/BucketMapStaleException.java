package io.geneid.core.bucket;

import io.geneid.core.GeneIdException;

/**
 * A router refused a write because it could not refresh its bucket map within its bound: a mover may have frozen or
 * switched a bucket it does not know about. Retryable once the map store answers again.
 */
public final class BucketMapStaleException extends GeneIdException {

  private static final long serialVersionUID = 1L;

  private final long version;
  private final long staleMillis;

  /** A refusal naming the map, its version and how long it has gone without a refresh. */
  public BucketMapStaleException(String message, long version, long staleMillis, Throwable cause) {
    super(message, cause);
    this.version = version;
    this.staleMillis = staleMillis;
  }

  /** The version the router still holds. */
  public long version() {
    return version;
  }

  /** How long since its last successful refresh. */
  public long staleMillis() {
    return staleMillis;
  }
}
