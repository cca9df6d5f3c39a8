package io.geneid.core.bucket;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import io.geneid.core.GeneIdException;
import org.jspecify.annotations.Nullable;

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
   * Records that router instance {@code instance} (a random token of the {@link BucketMapRouter} object, the same at
   * every beat) under {@code routerId} routes {@code name} with {@code version}, at the store's own time, and keeps
   * the signs of a second writer under the same id: when the row's last beat came from another instance, or carried
   * a higher version (one router never goes back), that beat is kept as {@link RouterHeartbeat#other()}. The default
   * drops the instance ({@link #heartbeat(String, String, long)}): a store that does so shows no such signs, and
   * the mover's check ({@link #liveRoutersOnePerId}) sees only distinct ids.
   */
  default void heartbeat(String name, String routerId, long version, String instance) {
    heartbeat(name, routerId, version);
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
   * clock for writing and judging heartbeats: no host's clock skew counts), ordered by router id, each with its
   * {@link RouterHeartbeat#other()} writer only when that one too beat within {@code window}. A mover waits for
   * these ({@link #liveRoutersOnePerId}); a router silent for longer than its {@code stale-after} has fenced its own
   * writes.
   */
  default List<RouterHeartbeat> liveRouters(String name, Duration window) {
    long now = nowMillis(name);
    return routers(name).stream().filter(r -> now - r.atMillis() <= window.toMillis())
        .map(r -> r.other() != null && now - r.other().atMillis() > window.toMillis() ? r.withoutOther() : r)
        .toList();
  }

  /**
   * {@link #liveRouters}, refusing when a live router id shows two writers (issue #38, scenario 8): a mover that
   * waits for the routers calls this, not {@link #liveRouters}. One heartbeat row written by two routers would
   * carry the faster one's version, and the mover would not wait for the slower one.
   *
   * @throws GeneIdException naming the map, the router id and both writers' instances, versions and beats, when a
   *     live router's {@link RouterHeartbeat#other()} is set (a second writer beat within {@code window})
   */
  default List<RouterHeartbeat> liveRoutersOnePerId(String name, Duration window) {
    List<RouterHeartbeat> live = liveRouters(name, window);
    RouterHeartbeat.requireOnePerId(name, live);
    return live;
  }

  /**
   * A router's last heartbeat.
   *
   * @param routerId the router's id ({@code <given or host:pid>#<random>} for a {@link BucketMapRouter})
   * @param version the map version it routes with
   * @param atMillis when it said so, by the store's clock ({@link #nowMillis(String)}; a heartbeat recorded through
   *     the deprecated four-argument form carries the caller's)
   * @param instance the instance token of the router that wrote it, or null (a writer that gives none)
   * @param other the last beat of another writer under the same id, if any was seen: from
   *     {@link #routers(String)} whenever it was, from {@link #liveRouters(String, Duration)} only when it is
   *     within the window
   */
  record RouterHeartbeat(String routerId, long version, long atMillis, @Nullable String instance,
      @Nullable OtherWriter other) {

    /** A heartbeat without an instance and with no sign of another writer. */
    public RouterHeartbeat(String routerId, long version, long atMillis) {
      this(routerId, version, atMillis, null, null);
    }

    /** This heartbeat without its other writer (judged gone). */
    public RouterHeartbeat withoutOther() {
      return other == null ? this : new RouterHeartbeat(routerId, version, atMillis, instance, null);
    }

    /**
     * Throws when a heartbeat of {@code live} shows a second writer under its id.
     *
     * @throws GeneIdException naming map {@code name}, the id, both instances, their versions and the store times
     *     of their beats
     */
    public static void requireOnePerId(String name, List<RouterHeartbeat> live) {
      for (RouterHeartbeat r : live) {
        OtherWriter o = r.other();
        if (o != null) {
          throw new GeneIdException("two routers write the heartbeat of router id '" + r.routerId() + "' of map '"
              + name + "': instance " + (r.instance() == null ? "(none)" : r.instance()) + " at version "
              + r.version() + " (beat at " + r.atMillis() + ") and instance " + (o.instance() == null ? "(none)"
              : o.instance()) + " at version " + o.version() + " (beat at " + o.atMillis() + ", store time): the"
              + " mover cannot tell which version each routes with, so it does not proceed. Give each router its"
              + " own id (routers of this version add a random part), or stop the other one and retry after the"
              + " live window");
        }
      }
    }
  }

  /**
   * Another writer's last beat under a router id.
   *
   * @param instance its instance token, or null (it gave none)
   * @param version the map version it reported
   * @param atMillis when, by the store's clock
   */
  record OtherWriter(@Nullable String instance, long version, long atMillis) {}

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
