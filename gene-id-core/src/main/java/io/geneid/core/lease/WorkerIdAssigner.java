package io.geneid.core.lease;

import io.geneid.core.GeneIdException;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Hands out leases on worker ids, so that processes that come and go never hold the same worker id at once and a
 * worker id left behind by a dead process is reclaimed.
 *
 * <p>Implementations: {@link StaticWorkerIdAssigner} (a configured id or a StatefulSet ordinal, its mark in a local
 * file), {@code io.geneid.redis.RedisWorkerIdAssigner} (Lua scripts over a sorted set of expiries) and
 * {@code io.geneid.jdbc.JdbcWorkerIdAssigner} (a lease table updated by compare-and-set),
 * {@code io.geneid.zookeeper.ZookeeperWorkerIdAssigner} (ephemeral claims, Curator) and
 * {@code io.geneid.etcd.EtcdWorkerIdAssigner} (claims on etcd leases, jetcd). A
 * {@link io.geneid.core.snowflake.LeasedGeneGenerator} drives an assigner: it acquires a lease, renews it at a fraction of {@link #ttl()},
 * raises the lease's high-water mark ahead of the ids it issues, and releases it on close.
 *
 * <p>Every method talks to the store and may throw a {@link GeneIdException} when the store cannot be reached; the
 * message names the store and the cause is chained. Implementations are thread-safe.
 */
public interface WorkerIdAssigner extends AutoCloseable {

  /** The pool (namespace) of worker ids this assigner leases from. */
  String space();

  /**
   * Where the leases are kept, for log lines and messages: {@code redis://host:port/db},
   * {@code database mariadb://host:3306/ids (table gene_id_worker_lease)}, a mark file. Never a password.
   */
  default String store() {
    return toString();
  }

  /**
   * The margin for clock skew between the processes of a pool that every unknown-history wait adds: a grant that
   * must wait out holders the store may have forgotten issues only after {@code grant + TTL + borrowSlack} plus this.
   * Keep the clocks of a pool's hosts within it (NTP).
   */
  Duration HISTORY_MARGIN = Duration.ofSeconds(2);

  /** How long a lease lasts without renewal: after it, the store lets another process take the worker id. */
  Duration ttl();

  /**
   * Whether this store notices every loss of acknowledged writes it can suffer, so that a grant may be trusted to
   * overlap no live holder. The rule of the lease protocol: <b>no grant may overlap anything a live holder could still
   * issue, under any loss of acknowledged writes the store can suffer</b> (a restore from a backup or a copy of its
   * data, a failover to a replica that missed writes, eviction, truncate and reload).
   *
   * <p>A store that can lose writes without noticing cannot show a holder it forgot: that holder's record is older
   * than what it wrote, or gone. So when this is false (the default), a {@link io.geneid.core.snowflake.LeasedGeneGenerator} does not trust a
   * grant's view of history: it renews the new lease but issues only timestamps after
   * {@code lease.expiresAt() + borrowSlack + }{@link #HISTORY_MARGIN} (the grant's store time plus one TTL, the
   * furthest a holder may borrow ahead, and the skew margin). Any holder the store forgot renewed for the last time
   * before the grant, and its renewals after it are refused (its random token is not the store's), so it stopped
   * issuing within one TTL of the grant at the latest. Such a store's fresh grants thus cost one TTL plus about
   * 2 s before the first id; a grant's {@link WorkerLease#expiresAt()} must be the store's time of the grant plus
   * {@link #ttl()}.
   *
   * <p>Return true only if every such loss changes something the store checks at every grant (for Redis: its
   * {@code run_id} and replication id, with eviction refused), and the store then waits out the same rule itself for
   * the worker ids concerned.
   */
  default boolean vouchesForHistory() {
    return false;
  }

  /**
   * Leases a free worker id of the pool: the least recently used one first. Waits (up to the assigner's acquire
   * timeout) while every worker id is leased or of unknown history.
   *
   * <p>A store that {@link #vouchesForHistory() vouches} for its history keeps the lease's
   * {@link WorkerLease#previousHighWaterMark()} at or above {@code store now + borrowSlack}: a previous holder that
   * lost its lease may have issued ids up to {@code borrowSlack} beyond its clock (for one that does not, the
   * protocol's own floor, one TTL later, covers it). A worker id
   * whose history the store cannot vouch for (its record is missing or the store restarted, failed over or rolled
   * back) is granted only once any earlier holder must have fenced itself: one TTL plus {@code borrowSlack} plus
   * {@link #HISTORY_MARGIN} after the store noticed. A store that cannot notice every such loss says so
   * ({@link #vouchesForHistory()}), and its holders apply the same wait to every grant.
   *
   * @param layoutMaxWorkerId the largest worker id the caller's layout can carry ({@code 2^W - 1}); the pool is cut
   *     to it, and a pool that starts above it is an error
   * @param borrowSlack how far ahead of its clock a holder of this pool may issue ids (its {@code maxBorrowMillis});
   *     every process of a pool should use the same
   * @throws WorkerIdExhaustedException when no worker id became free in time, naming the pool size and the holders
   */
  WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack);

  /**
   * The default borrowing bound, in milliseconds: how far the generators run ahead of the clock unless configured
   * otherwise ({@code io.geneid.core.snowflake.GeneSnowflakeGenerator.Builder#DEFAULT_MAX_BORROW_MILLIS} is this value).
   */
  long DEFAULT_BORROW_SLACK_MILLIS = 10;

  /** {@link #acquire(long, Duration)} with the default borrowing bound ({@link #DEFAULT_BORROW_SLACK_MILLIS}). */
  default WorkerLease acquire(long layoutMaxWorkerId) {
    return acquire(layoutMaxWorkerId, Duration.ofMillis(DEFAULT_BORROW_SLACK_MILLIS));
  }

  /**
   * Extends a lease by {@link #ttl()} from now (store time) and raises its recorded high-water mark to
   * {@code highWaterMark} if that is higher. A lease that expired but that nobody else took can still be renewed.
   *
   * @return the lease with the new expiry and the mark the store now holds (never lower than before)
   * @throws WorkerLeaseLostException if the worker id is no longer held under this lease's token (taken over by
   *     another process, released, or forgotten by the store)
   */
  WorkerLease renew(WorkerLease lease, Instant highWaterMark);

  /**
   * Gives the worker id back, recording {@code highWaterMark} (the highest timestamp this holder issued) for the next
   * holder. The id becomes the most recently used one of the pool. Does nothing if the lease was already lost.
   */
  void release(WorkerLease lease, Instant highWaterMark);

  /**
   * Asks to be told at once when this assigner learns, between renewals, that the leases it granted may no longer be
   * held: a ZooKeeper session that was suspended (disconnected) or lost. A {@link io.geneid.core.snowflake.LeasedGeneGenerator} subscribes and
   * stops issuing on the spot (as if its lease had lapsed) until a renewal sent after the doubt succeeds, which
   * re-verifies the lease in the store; a renewal that finds the lease gone fences it for good and a new worker id is
   * leased. Stores that learn of trouble only when called (Redis, a database, etcd) need not implement this: the
   * generator's renewal deadline fences their holders.
   *
   * @param listener run on the assigner's own thread with the reason; it must return quickly and never throw
   * @return removes the subscription (idempotent)
   */
  default Runnable onLeaseDoubt(Consumer<String> listener) {
    return () -> {};
  }

  /** Closes the store connection this assigner opened, if any. Leases are not released by this. */
  @Override
  default void close() {}
}
