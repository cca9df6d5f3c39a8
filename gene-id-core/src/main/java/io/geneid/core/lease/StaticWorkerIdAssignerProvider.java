package io.geneid.core.lease;

import java.nio.file.Path;
import io.geneid.core.settings.SettingsReader;
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
  public WorkerIdAssigner create(SettingsReader props) {
    StaticWorkerIdAssigner.Builder b = StaticWorkerIdAssigner.builder()
        .space(props.string(WorkerIdAssigners.SPACE, WorkerIdAssigners.DEFAULT_SPACE))
        .ttl(props.duration(WorkerIdAssigners.LEASE_TTL, StaticWorkerIdAssigner.DEFAULT_TTL))
        .owner(props.string(WorkerIdAssigners.LEASE_OWNER, WorkerIdAssigners.defaultOwner()));
    boolean fromHostname = props.bool(WORKER_ID_FROM_HOSTNAME, false);
    if (fromHostname == props.has(WORKER_ID)) {
      throw new IllegalArgumentException("worker-assigner=static needs exactly one of " + props.nameOf(WORKER_ID)
          + " and " + props.nameOf(WORKER_ID_FROM_HOSTNAME) + "=true");
    }
    if (fromHostname) {
      String host = props.string(HOSTNAME, "");
      b.workerIdFromHostname(host.isEmpty() ? StaticWorkerIdAssigner.localHostname() : host,
          props.longValue(WorkerIdAssigners.WORKER_ID_MIN, 0, Integer.MAX_VALUE, 0));
    } else {
      b.workerId(props.requiredLong(WORKER_ID, 0, Integer.MAX_VALUE));
    }
    String file = props.string(MARK_FILE, "");
    if (!file.isEmpty()) {
      b.markFile(Path.of(file));
    }
    return b.build();
  }
}
