package io.geneid.core.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A worker-id assigner over a versioned key-value store (ZooKeeper, etcd): everything but the store's own reads and
 * writes. A subclass connects to its store, then calls {@link #open(LeaseKeyValueStore, Duration, String)} once at
 * the end of its constructor; acquire, renew and release are {@link KeyValueLeases}' protocol.
 */
public abstract class KeyValueWorkerIdAssigner implements WorkerIdAssigner {

  private final WorkerIdAssigners.LeaseSettings settings;
  private @Nullable KeyValueLeases leases;
  private String store = "";

  /** @param settings the pool's settings */
  protected KeyValueWorkerIdAssigner(WorkerIdAssigners.LeaseSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Starts the protocol over {@code entries}; called once, at the end of the subclass's constructor.
   *
   * @param claimTtl how long a claim lasts from its grant (the TTL, or the TTL rounded up to what the store keeps)
   * @param store the store, for messages (never a password)
   */
  protected final void open(LeaseKeyValueStore entries, Duration claimTtl, String store) {
    if (leases != null) {
      throw new IllegalStateException("the lease protocol of " + this.store + " is open already");
    }
    this.store = Objects.requireNonNull(store, "store");
    this.leases = new KeyValueLeases(entries, settings, claimTtl, store, getClass().getName());
  }

  /** The pool's settings. */
  protected final WorkerIdAssigners.LeaseSettings settings() {
    return settings;
  }

  @Override
  public final String space() {
    return settings.space();
  }

  @Override
  public final Duration ttl() {
    return settings.ttl();
  }

  @Override
  public final String store() {
    return store;
  }

  @Override
  public final WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    return leases().acquire(layoutMaxWorkerId, borrowSlack);
  }

  @Override
  public final WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    return leases().renew(lease, highWaterMark);
  }

  @Override
  public final void release(WorkerLease lease, Instant highWaterMark) {
    leases().release(lease, highWaterMark);
  }

  /** {@code <class>[space=..., pool=[min, max], ttl=..., <store>]}. */
  @Override
  public String toString() {
    return getClass().getSimpleName() + "[space=" + settings.space() + ", pool=[" + settings.minWorkerId() + ", "
        + (settings.maxWorkerId() == Integer.MAX_VALUE ? "layout max" : settings.maxWorkerId()) + "], ttl="
        + settings.ttl() + ", " + store + "]";
  }

  private KeyValueLeases leases() {
    KeyValueLeases l = leases;
    if (l == null) {
      throw new IllegalStateException(getClass().getSimpleName() + " did not open its lease protocol");
    }
    return l;
  }
}
