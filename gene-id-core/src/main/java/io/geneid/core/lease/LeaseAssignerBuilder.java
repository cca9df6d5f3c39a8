package io.geneid.core.lease;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The settings every builder of a store-backed {@link WorkerIdAssigner} (Redis, JDBC) shares: the pool's name and
 * worker-id range, the lease TTL, how long an acquisition waits, and the holder's name. A backend's builder extends it
 * with its store's settings and reads these with {@link #leaseSettings()} when it builds.
 *
 * @param <B> the backend's builder, returned by every setter so calls chain
 */
public abstract class LeaseAssignerBuilder<B extends LeaseAssignerBuilder<B>> {

  private String space = WorkerIdAssigners.DEFAULT_SPACE;
  private long minWorkerId;
  private long maxWorkerId = Integer.MAX_VALUE;
  private Duration ttl = WorkerIdAssigners.DEFAULT_TTL;
  private @Nullable Duration acquireTimeout;
  private String owner = WorkerIdAssigners.defaultOwner();

  /** For the backends' builders. */
  protected LeaseAssignerBuilder() {}

  /** The pool name. Default {@code "default"}. */
  public B space(String space) {
    this.space = WorkerIdAssigners.checkSpace(space);
    return self();
  }

  /** The worker ids of this pool, e.g. one datacenter's sub-range. Default: all ids of the layout. */
  public B workerIds(long min, long max) {
    if (min < 0) {
      throw new InvalidSettingException(WorkerIdAssigners.WORKER_ID_MIN, Long.toString(min), "at least 0");
    }
    if (max < min) {
      throw new InvalidSettingException(WorkerIdAssigners.WORKER_ID_MAX, Long.toString(max), "at least {"
          + WorkerIdAssigners.WORKER_ID_MIN + "} (" + min + ")");
    }
    this.minWorkerId = min;
    this.maxWorkerId = max;
    return self();
  }

  /** Lease time to live, in [100ms, 1h]. Default 30 s. Every process of a space must use the same. */
  public B ttl(Duration ttl) {
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    return self();
  }

  /** How long an acquisition waits for a free worker id. Default two TTLs. */
  public B acquireTimeout(Duration acquireTimeout) {
    this.acquireTimeout = Objects.requireNonNull(acquireTimeout, "acquireTimeout");
    return self();
  }

  /** Shown as the holder. Default {@code pid@host}. */
  public B owner(String owner) {
    this.owner = checkOwner(owner);
    return self();
  }

  /** All of the above at once, as {@link WorkerIdAssigners#leaseSettings(java.util.Map)} read them. */
  public B leaseSettings(WorkerIdAssigners.LeaseSettings settings) {
    return space(settings.space()).workerIds(settings.minWorkerId(), settings.maxWorkerId()).ttl(settings.ttl())
        .acquireTimeout(settings.acquireTimeout()).owner(settings.owner());
  }

  /** Checks a holder name; a store that keeps it in a column of limited width narrows this. */
  protected String checkOwner(String owner) {
    return Objects.requireNonNull(owner, "owner");
  }

  /**
   * The settings, checked: the TTL within [100ms, 1h], the acquire timeout two TTLs unless set.
   *
   * @throws IllegalArgumentException naming {@code lease-ttl} and its range
   */
  protected final WorkerIdAssigners.LeaseSettings leaseSettings() {
    Checks.duration(WorkerIdAssigners.LEASE_TTL, ttl, WorkerIdAssigners.MIN_TTL,
        WorkerIdAssigners.MAX_TTL);
    return new WorkerIdAssigners.LeaseSettings(space, minWorkerId, maxWorkerId, ttl,
        acquireTimeout != null ? acquireTimeout : ttl.multipliedBy(2), owner);
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }
}
