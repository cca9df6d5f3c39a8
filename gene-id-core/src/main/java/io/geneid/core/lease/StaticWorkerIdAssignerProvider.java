package io.geneid.core.lease;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * {@code worker-assigner=static}: a {@link StaticWorkerIdAssigner}. Keys: {@code worker-id} (a number) or
 * {@code worker-id-from-hostname=true} (the StatefulSet ordinal of {@code hostname}, default this host's name, plus
 * {@code worker-id-min}), {@code mark-file}, and the common {@code space}, {@code lease-ttl} (how far ahead the
 * mark is recorded, default 5s), {@code lease-owner}.
 */
public final class StaticWorkerIdAssignerProvider implements WorkerIdAssignerProvider {

  /** The worker id. */
  public static final String WORKER_ID = "worker-id";
  /** {@code true}: take the worker id from the host name's ordinal. */
  public static final String WORKER_ID_FROM_HOSTNAME = "worker-id-from-hostname";
  /** The host name to take the ordinal from (default: this host's). */
  public static final String HOSTNAME = "hostname";
  /** Where to keep the high-water mark. */
  public static final String MARK_FILE = "mark-file";

  @Override
  public String type() {
    return "static";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(WORKER_ID, WORKER_ID_FROM_HOSTNAME, HOSTNAME, MARK_FILE);
  }

  @Override
  public WorkerIdAssigner create(Map<String, String> props) {
    StaticWorkerIdAssigner.Builder b = StaticWorkerIdAssigner.builder()
        .space(WorkerIdAssigners.string(props, WorkerIdAssigners.SPACE, WorkerIdAssigners.DEFAULT_SPACE))
        .ttl(WorkerIdAssigners.duration(props, WorkerIdAssigners.LEASE_TTL, StaticWorkerIdAssigner.DEFAULT_TTL))
        .owner(WorkerIdAssigners.string(props, WorkerIdAssigners.LEASE_OWNER, WorkerIdAssigners.defaultOwner()));
    boolean fromHostname = WorkerIdAssigners.bool(props, WORKER_ID_FROM_HOSTNAME, false);
    if (fromHostname == props.containsKey(WORKER_ID)) {
      throw new IllegalArgumentException("worker-assigner=static needs exactly one of " + WORKER_ID + " and "
          + WORKER_ID_FROM_HOSTNAME + "=true");
    }
    if (fromHostname) {
      String host = WorkerIdAssigners.string(props, HOSTNAME, "");
      b.workerIdFromHostname(host.isEmpty() ? StaticWorkerIdAssigner.localHostname() : host,
          WorkerIdAssigners.longValue(props, WorkerIdAssigners.WORKER_ID_MIN, 0, 0, Integer.MAX_VALUE));
    } else {
      b.workerId(WorkerIdAssigners.longValue(props, WORKER_ID, -1, 0, Integer.MAX_VALUE));
    }
    String file = WorkerIdAssigners.string(props, MARK_FILE, "");
    if (!file.isEmpty()) {
      b.markFile(Path.of(file));
    }
    return b.build();
  }
}
