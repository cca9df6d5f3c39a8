package io.geneid.core.lease;

import io.geneid.core.GeneIdException;

import java.util.List;

/**
 * No worker id of a pool is free: every one is leased (or, after a store lost its data, of unknown history until
 * one TTL has passed). The message names the pool, its size and every holder.
 */
public final class WorkerIdExhaustedException extends GeneIdException {
  private static final long serialVersionUID = 1L;

  private final String space;
  private final long poolSize;
  private final List<String> holders;

  public WorkerIdExhaustedException(String space, long minWorkerId, long maxWorkerId, List<String> holders,
      String detail) {
    super("no free worker id in space '" + space + "': all " + (maxWorkerId - minWorkerId + 1)
        + " worker ids of the pool [" + minWorkerId + ", " + maxWorkerId + "] are taken" + detail
        + (holders.isEmpty() ? "" : "; holders: " + String.join(", ", holders))
        + ". Stop a process, widen the pool (worker-id-min/worker-id-max, worker bits) or use another space.");
    this.space = space;
    this.poolSize = maxWorkerId - minWorkerId + 1;
    this.holders = List.copyOf(holders);
  }

  public String space() {
    return space;
  }

  /** How many worker ids the pool has. */
  public long poolSize() {
    return poolSize;
  }

  /** One entry per leased worker id: {@code "<id> by <owner> until <expiry>"}. */
  public List<String> holders() {
    return holders;
  }
}
