package io.geneid.core.bucket;

import java.util.List;
import java.util.Optional;

/**
 * Where a fleet's {@link BucketMap} lives (a database table, Redis): the map and its version under a name, and which
 * version each router routes with (its heartbeat), so a mover knows when every live router has seen a change.
 *
 * <p>Changes are compare-and-set on the version, so two movers cannot both change one map. Implementations throw
 * {@link io.geneid.core.GeneIdException} when the store cannot be reached.
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

  /** Records that {@code routerId} routes {@code name} with {@code version}, at {@code nowMillis}. */
  void heartbeat(String name, String routerId, long version, long nowMillis);

  /** Every router's last heartbeat for {@code name}. */
  List<RouterHeartbeat> routers(String name);

  /**
   * A router's last heartbeat.
   *
   * @param routerId the router instance
   * @param version the map version it routes with
   * @param atMillis when it said so, by its own clock
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
