package io.geneid.core.lease;

import io.geneid.core.GeneIdException;

import org.jspecify.annotations.Nullable;

/**
 * A worker-id lease is gone: the store no longer holds it under this holder's token, or its holder could not renew
 * it before it lapsed. A {@link io.geneid.core.snowflake.LeasedGeneGenerator} in this state issues no id (fencing): another process may
 * already hold the worker id. Its keeper thread renews (or re-acquires a worker id) in the background; callers may
 * retry: the exception is thrown at once, never after waiting for the store.
 */
public final class WorkerLeaseLostException extends GeneIdException {
  private static final long serialVersionUID = 1L;

  private final String space;
  private final long workerId;

  public WorkerLeaseLostException(String space, long workerId, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.space = space;
    this.workerId = workerId;
  }

  /** The pool of the lost lease. */
  public String space() {
    return space;
  }

  /** The worker id whose lease was lost. */
  public long workerId() {
    return workerId;
  }
}
