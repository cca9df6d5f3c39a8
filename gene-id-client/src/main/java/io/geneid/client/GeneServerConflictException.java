package io.geneid.client;

import io.geneid.core.GeneIdException;
import java.net.URI;
import java.util.List;

/**
 * Two of the client's servers issue ids as the same worker id (two servers left on the embedded default worker id
 * 0, or two given the same {@code worker-id}): they would hand out the same ids. Thrown at once and again on every
 * call until the servers' configuration changes; no id of either server has been handed out by this client after
 * the conflict was seen.
 */
public final class GeneServerConflictException extends GeneIdException {
  private static final long serialVersionUID = 1L;

  private final long workerId;
  private final List<URI> addresses;

  GeneServerConflictException(long workerId, URI first, URI second) {
    super("two gene-id servers issue ids as worker id " + workerId + ": " + first + " and " + second
        + "; they would hand out the same ids. Give each server its own worker id (worker-id), or let them lease "
        + "worker ids from a store (worker-assigner=redis|jdbc|zookeeper|etcd)");
    this.workerId = workerId;
    this.addresses = List.of(first, second);
  }

  /** The worker id both servers issue as. */
  public long workerId() {
    return workerId;
  }

  /** The two addresses. */
  public List<URI> addresses() {
    return addresses;
  }
}
