package io.geneid.core.bucket;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where a fleet's {@link BucketMap} lives (a database table, Redis): the map and its version under a name, and which
 * version each router routes with (its heartbeat), so a mover knows when every live router has seen a change.
 *
 * <p>Changes are compare-and-set on the version, so two movers cannot both change one map. Implementations throw
 * {@link io.geneid.core.GeneIdException} when the store cannot be reached.
 *
 * <p><b>One clock.</b> Heartbeats are written and judged by the store's own clock ({@link #nowMillis(String)}: the
 * database's {@code CURRENT_TIMESTAMP}, Redis's {@code TIME}), never by a router's or a mover's host clock, so a host
 * whose clock is behind or ahead cannot make a live router look dead: routers call
 * {@link #heartbeat(String, String, long)}, movers {@link #liveRouters(String, Duration)}.
 */
public interface BucketMapStore {

  /** The map stored under {@code name}, if any. */
  Optional<BucketMap> load(String name);

  /**
   * Stores {@code map} under {@code name} if it is at {@code expectedVersion} ({@code -1}: if there is no map yet).
   * {@code map.version()} must be greater than {@code expectedVersion}.
   *
   * @return whether it was stored; false when another writer changed the map first
   */
  boolean compareAndSet(String name, long expectedVersion, BucketMap map);

  /**
   * Records that {@code routerId} routes {@code name} with {@code version}, at {@code nowMillis} as the caller gives
   * it.
   *
   * @deprecated a time from the caller's host is compared with other hosts' clocks; use
   *     {@link #heartbeat(String, String, long)}, which records the store's own time
   */
  @Deprecated
  void heartbeat(String name, String routerId, long version, long nowMillis);

  /**
   * Records that {@code routerId} routes {@code name} with {@code version}, at the store's own time
   * ({@link #nowMillis(String)}). The default reads {@link #nowMillis(String)} and then writes; a store on another
   * host does both in one statement or script.
   */
  default void heartbeat(String name, String routerId, long version) {
    heartbeat(name, routerId, version, nowMillis(name));
  }

  /**
   * The store's own clock where map {@code name} lives, in milliseconds since the epoch: the database's
   * {@code CURRENT_TIMESTAMP}, the Redis master's {@code TIME}. The default is this JVM's wall clock, right only for
   * a store held in this JVM's memory; a store on another host overrides it.
   */
  default long nowMillis(String name) {
    return System.currentTimeMillis();
  }

  /** Every router's last heartbeat for {@code name}. */
  List<RouterHeartbeat> routers(String name);

  /**
   * The routers of {@code name} whose last heartbeat is at most {@code window} old by the store's own clock (one
   * clock for writing and judging heartbeats: no host's clock skew counts), ordered by router id. A mover waits for
   * these; a router silent for longer than its {@code stale-after} has fenced its own writes.
   */
  default List<RouterHeartbeat> liveRouters(String name, Duration window) {
    long now = nowMillis(name);
    return routers(name).stream().filter(r -> now - r.atMillis() <= window.toMillis()).toList();
  }

  /**
   * A router's last heartbeat.
   *
   * @param routerId the router instance
   * @param version the map version it routes with
   * @param atMillis when it said so, by the store's clock ({@link #nowMillis(String)}; a heartbeat recorded through
   *     the deprecated four-argument form carries the caller's)
   */
  record RouterHeartbeat(String routerId, long version, long atMillis) {}

  /** Records the progress of a move of map {@code name}, replacing the last record. */
  void saveProgress(String name, MoveProgress progress);

  /** The last recorded progress of a move of map {@code name}, if any. */
  Optional<MoveProgress> progress(String name);

  /**
   * How far a move of a map has come, as the mover last recorded it (after each batch of rows and each bucket), so
   * a status command can show it and a second run can tell where the first stopped.
   *
   * @param targetVersion the version of the stored map this record goes with (the last one the mover published: a
   *     freeze or a switch); a stored map of a higher version was changed after the record
   * @param bucketsDone the buckets this run has moved (frozen, copied, verified and switched)
   * @param bucketsTotal the buckets this run moves; done when {@code bucketsDone == bucketsTotal}
   * @param rowsCopied the rows this run has copied, every table of the family together
   * @param startedAtMillis when this run started, by the mover's clock
   * @param updatedAtMillis when this record was made, by the mover's clock
   */
  record MoveProgress(long targetVersion, int bucketsDone, int bucketsTotal, long rowsCopied, long startedAtMillis, long updatedAtMillis) {}
}
