package io.geneid.redis;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A {@link BucketMapStore} in Redis, through Lettuce: one Redis ({@code redis://}), the master of a Sentinel
 * deployment ({@code redis-sentinel://...#master}) or a Redis Cluster ({@code redis-cluster://host:port,host:port}),
 * connected as the module's other stores are (see {@link RedisWorkerIdAssigner.Builder#redisUri(String)}).
 *
 * <h2>Data</h2>
 * Per map {@code name}, all under one hash tag so that every command and script touches one cluster slot
 * ({@code <prefix>:bucket-map:{<name>}...}):
 * <ul>
 *   <li>{@code <prefix>:bucket-map:{<name>}}, a hash: {@code gene_bits}, {@code version}, {@code map}
 *       ({@link BucketMap#format()}) and {@code states} ({@link BucketMap#formatStates()}), the same four columns as
 *       {@code io.geneid.jdbc.JdbcBucketMapStore}'s table.
 *   <li>{@code <prefix>:bucket-map:{<name>}:routers}, a hash: router id to {@code <version> <atMillis>}, its last
 *       heartbeat, {@code atMillis} by the Redis server's own {@code TIME} (a script reads it and writes, and a
 *       mover's {@link #liveRouters} reads it with the heartbeats, on the node of the map's slot).
 *   <li>{@code <prefix>:bucket-map:{<name>}:progress}, a hash: the last {@link MoveProgress} of a move of the map, its
 *       six fields written by one {@code HSET}.
 * </ul>
 * A change is a Lua script ({@code bucket-map-cas.lua}) that compares the stored version (and gene bits) and writes
 * the four fields at once, so of two writers one wins; a load is one {@code HMGET}, so it never sees half a change.
 * Numbers cross into and out of Lua as decimal strings.
 *
 * <h2>Replication and persistence</h2>
 * A change counts only once the master's replicas acknowledged it ({@code WAIT} for as many replicas as this store
 * has seen connected to that master, within half the command timeout); otherwise {@link #compareAndSet} throws, and a
 * mover reloads the map before it goes on: a failover must not lose a freeze the mover relies on. Keep the data on
 * disk ({@code appendonly yes}): a Redis that restarts empty has no map, and every router then refuses writes
 * within its {@code stale-after} until a map is stored again.
 *
 * <p>Every command has a timeout ({@link Builder#commandTimeout(Duration)}), commands fail at once while
 * disconnected, and a failure is a {@link GeneIdException} naming the store (scheme, host, port, database: never the
 * password), the map and what was being done. A store built from a URI owns its client and closes it in
 * {@link #close()}; a store over a given connection never closes it.
 *
 * <pre>{@code
 * try (RedisBucketMapStore store = RedisBucketMapStore.builder().redisUri("redis://127.0.0.1:6379").build();
 *     BucketMapRouter router = BucketMapRouter.builder(store, "orders").build()) {
 *   router.start();
 * }
 * }</pre>
 */
public final class RedisBucketMapStore implements BucketMapStore, AutoCloseable {

  /** The default {@link Builder#keyPrefix(String)}: maps are {@code gene-id:bucket-map:{<name>}}. */
  public static final String DEFAULT_KEY_PREFIX = "gene-id";
  /** The default {@link Builder#commandTimeout(Duration)}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private static final RedisWorkerIdAssigner.Script CAS = RedisWorkerIdAssigner.Script.of("bucket-map-cas.lua",
      RedisWorkerIdAssigner.Script.resource("bucket-map-cas.lua"));
  private static final RedisWorkerIdAssigner.Script HEARTBEAT = RedisWorkerIdAssigner.Script.of(
      "bucket-map-heartbeat.lua", RedisWorkerIdAssigner.Script.resource("bucket-map-heartbeat.lua"));
  private static final RedisWorkerIdAssigner.Script ROUTERS = RedisWorkerIdAssigner.Script.of(
      "bucket-map-routers.lua", RedisWorkerIdAssigner.Script.resource("bucket-map-routers.lua"));
  private static final int MAX_NAME_LENGTH = 128;

  private final RedisConnections.Link link;
  private final String keyPrefix;
  private final String where;
  private final RedisConnections.ReplicaWait replicas;
  private volatile boolean closed;

  private RedisBucketMapStore(RedisConnections.Link link, String keyPrefix, String where, Duration timeout) {
    this.link = link;
    this.keyPrefix = keyPrefix;
    this.where = where;
    this.replicas = new RedisConnections.ReplicaWait(timeout);
  }

  /**
   * A builder; {@link Builder#redisUri(String)}, {@link Builder#connection(StatefulRedisConnection)} or
   * {@link Builder#clusterConnection(StatefulRedisClusterConnection)} is required.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The hash holding map {@code name}: {@code <keyPrefix>:bucket-map:{<name>}}. */
  public String key(String name) {
    checkName(name);
    return keyPrefix + ":bucket-map:{" + name + "}";
  }

  /** The hash of the routers' heartbeats of map {@code name}, in the map's slot. */
  public String routersKey(String name) {
    return key(name) + ":routers";
  }

  /** The hash of the last move progress of map {@code name}, in the map's slot. */
  public String progressKey(String name) {
    return key(name) + ":progress";
  }

  private static final String[] PROGRESS_FIELDS = {"target_version", "buckets_done", "buckets_total", "rows_copied",
      "started_at", "updated_at"};

  private static void checkName(String name) {
    if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException("bucket map name must have 1 to " + MAX_NAME_LENGTH
          + " characters but was '" + name + "'");
    }
  }

  private <T> T run(String what, String key, Function<RedisClusterCommands<String, String>, T> work) {
    if (closed) {
      // a closed Lettuce client fails in ways of its own (a cluster client with a NullPointerException)
      throw new GeneIdException("the Redis bucket map store at " + where + " could not " + what + " (" + key
          + "): the store is closed");
    }
    try {
      return work.apply(link.serverOf(key));
    } catch (RedisException e) {
      // an error inside the script names the script's sha and line: the command's own error is what matters
      String why = String.valueOf(e.getMessage()).replaceFirst(" script: [0-9a-f]+, on @user_script:\\d+\\.?$", "");
      throw new GeneIdException("the Redis bucket map store at " + where + " could not " + what + " (" + key + "): "
          + why, e);
    }
  }

  /**
   * The map stored under {@code name}, read with one {@code HMGET}.
   *
   * @throws GeneIdException if Redis cannot be reached, or the stored fields cannot be read as a map
   */
  @Override
  public Optional<BucketMap> load(String name) {
    String key = key(name);
    List<KeyValue<String, String>> fields = run("load map '" + name + "'", key,
        c -> c.hmget(key, "gene_bits", "version", "map", "states"));
    if (fields.stream().allMatch(KeyValue::isEmpty)) {
      return Optional.empty();
    }
    try {
      for (KeyValue<String, String> f : fields) {
        if (f.isEmpty()) {
          throw new IllegalArgumentException("the field " + f.getKey() + " is missing");
        }
      }
      return Optional.of(BucketMap.parse(Integer.parseInt(fields.get(0).getValue()),
          Long.parseLong(fields.get(1).getValue()), fields.get(2).getValue(), fields.get(3).getValue()));
    } catch (IllegalArgumentException e) {
      throw new GeneIdException("bucket map '" + name + "' in Redis key " + key + " at " + where
          + " cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * Stores {@code map} if the stored version is {@code expectedVersion} and its gene bits are the map's (a script),
   * then waits for the replicas.
   *
   * @throws IllegalArgumentException if {@code map.version()} is not above {@code expectedVersion}
   * @throws GeneIdException if Redis cannot be reached, or the replicas did not acknowledge the change in time (it
   *     may then be stored or not: load the map again)
   */
  @Override
  public boolean compareAndSet(String name, long expectedVersion, BucketMap map) {
    if (map.version() <= expectedVersion) {
      throw new IllegalArgumentException("a new bucket map must have a version above " + expectedVersion
          + " but had " + map.version());
    }
    String key = key(name);
    String what = "store map '" + name + "' at version " + map.version();
    return run(what, key, server -> {
      List<Object> reply = cas(server, key, expectedVersion < 0 ? "-1" : Long.toString(expectedVersion), map);
      boolean stored = Long.parseLong(String.valueOf(reply.get(0))) == 1;
      if (stored) {
        replicas.await(link, server, String.valueOf(reply.get(1)), Integer.parseInt(String.valueOf(reply.get(2))),
            "the Redis bucket map store at " + where + " stored map '" + name + "' at version " + map.version()
                + " (" + key + ")");
      }
      return stored;
    });
  }

  private static List<Object> cas(RedisClusterCommands<String, String> server, String key, String expected,
      BucketMap map) {
    String[] keys = {key};
    String[] args = {expected, Long.toString(map.version()), Integer.toString(map.geneBits()), map.format(),
        map.formatStates()};
    Object reply;
    try {
      reply = server.evalsha(CAS.sha, ScriptOutputType.MULTI, keys, args);
    } catch (RedisNoScriptException e) {
      // the server's script cache is empty (restart, SCRIPT FLUSH): EVAL sends the body and caches it again
      reply = server.eval(CAS.body, ScriptOutputType.MULTI, keys, args);
    }
    @SuppressWarnings("unchecked")
    List<Object> list = (List<Object>) reply;
    return list;
  }

  /**
   * {@code HSET} of the router's field: {@code <version> <nowMillis>}.
   *
   * @deprecated records the caller's time; {@link #heartbeat(String, String, long)} records the server's
   */
  @Deprecated
  @Override
  public void heartbeat(String name, String routerId, long version, long nowMillis) {
    String key = routersKey(name);
    run("record router " + routerId + " of map '" + name + "'", key,
        c -> c.hset(key, routerId, version + " " + nowMillis));
  }

  /** A script: the server's {@code TIME}, then {@code HSET} of {@code <version> <time>}. */
  @Override
  public void heartbeat(String name, String routerId, long version) {
    String key = routersKey(name);
    run("record router " + routerId + " of map '" + name + "'", key,
        c -> eval(c, HEARTBEAT, ScriptOutputType.VALUE, key, routerId, Long.toString(version)));
  }

  /**
   * A script: the server's {@code TIME}, then {@code HSET} of {@code <version> <time> <instance>}, keeping the
   * field's previous beat as the other writer's when it came from another instance or carried a higher version.
   */
  @Override
  public void heartbeat(String name, String routerId, long version, String instance) {
    if (instance.isEmpty() || instance.length() > 64 || instance.contains(" ") || instance.equals("-")) {
      throw new IllegalArgumentException("router instance must have 1 to 64 characters, no space, and not be '-',"
          + " but was '" + instance + "'");
    }
    String key = routersKey(name);
    run("record router " + routerId + " of map '" + name + "'", key,
        c -> eval(c, HEARTBEAT, ScriptOutputType.VALUE, key, routerId, Long.toString(version), instance));
  }

  /** The server's {@code TIME} on the node of the map's slot (read by a script on the map's key). */
  @Override
  public long nowMillis(String name) {
    String key = routersKey(name);
    List<Object> reply = run("read the server's clock", key, c -> eval(c, ROUTERS, ScriptOutputType.MULTI, key));
    return Long.parseLong(String.valueOf(reply.get(0)));
  }

  /** Every field of the routers' hash, by router id. */
  @Override
  public List<RouterHeartbeat> routers(String name) {
    String key = routersKey(name);
    Map<String, String> all = run("list the routers of map '" + name + "'", key, c -> c.hgetall(key));
    List<RouterHeartbeat> result = new ArrayList<>();
    all.forEach((id, value) -> result.add(heartbeatOf(key, id, value)));
    result.sort(Comparator.comparing(RouterHeartbeat::routerId));
    return result;
  }

  /** One script reads the server's {@code TIME} and every heartbeat, and the routers within {@code window} stay. */
  @Override
  public List<RouterHeartbeat> liveRouters(String name, Duration window) {
    String key = routersKey(name);
    List<Object> reply = run("list the live routers of map '" + name + "'", key,
        c -> eval(c, ROUTERS, ScriptOutputType.MULTI, key));
    long now = Long.parseLong(String.valueOf(reply.get(0)));
    List<RouterHeartbeat> result = new ArrayList<>();
    for (int i = 1; i + 1 < reply.size(); i += 2) {
      RouterHeartbeat r = heartbeatOf(key, String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
      if (now - r.atMillis() <= window.toMillis()) {
        OtherWriter o = r.other();
        result.add(o != null && now - o.atMillis() > window.toMillis() ? r.withoutOther() : r);
      }
    }
    result.sort(Comparator.comparing(RouterHeartbeat::routerId));
    return result;
  }

  private RouterHeartbeat heartbeatOf(String key, String routerId, String value) {
    String[] parts = value.split(" ");
    try {
      String instance = parts.length > 2 && !parts[2].equals("-") ? parts[2] : null;
      OtherWriter other = parts.length > 5 ? new OtherWriter(parts[5].equals("-") ? null : parts[5],
          Long.parseLong(parts[3]), Long.parseLong(parts[4])) : null;
      return new RouterHeartbeat(routerId, Long.parseLong(parts[0]), Long.parseLong(parts[1]), instance, other);
    } catch (RuntimeException bad) {
      throw new GeneIdException("the heartbeat of router " + routerId + " in Redis key " + key + " at " + where
          + " cannot be read: '" + value + "', expected '<version> <atMillis> [<instance> [<other version>"
          + " <other atMillis> <other instance>]]'", bad);
    }
  }

  private static <T> T eval(RedisClusterCommands<String, String> server, RedisWorkerIdAssigner.Script script,
      ScriptOutputType type, String key, String... args) {
    String[] keys = {key};
    try {
      return server.evalsha(script.sha, type, keys, args);
    } catch (RedisNoScriptException e) {
      return server.eval(script.body, type, keys, args); // an empty script cache (restart, SCRIPT FLUSH)
    }
  }

  /** One {@code HSET} of all six fields, so the record is replaced whole. */
  @Override
  public void saveProgress(String name, MoveProgress progress) {
    String key = progressKey(name);
    Map<String, String> fields = new java.util.LinkedHashMap<>();
    long[] values = {progress.targetVersion(), progress.bucketsDone(), progress.bucketsTotal(), progress.rowsCopied(),
        progress.startedAtMillis(), progress.updatedAtMillis()};
    for (int i = 0; i < values.length; i++) {
      fields.put(PROGRESS_FIELDS[i], Long.toString(values[i]));
    }
    run("record the move progress of map '" + name + "'", key, c -> c.hset(key, fields));
  }

  /** One {@code HMGET} of the six fields. */
  @Override
  public Optional<MoveProgress> progress(String name) {
    String key = progressKey(name);
    List<KeyValue<String, String>> fields = run("read the move progress of map '" + name + "'", key,
        c -> c.hmget(key, PROGRESS_FIELDS));
    if (fields.stream().allMatch(KeyValue::isEmpty)) {
      return Optional.empty();
    }
    try {
      long[] v = new long[PROGRESS_FIELDS.length];
      for (int i = 0; i < v.length; i++) {
        if (fields.get(i).isEmpty()) {
          throw new IllegalArgumentException("the field " + PROGRESS_FIELDS[i] + " is missing");
        }
        v[i] = Long.parseLong(fields.get(i).getValue());
      }
      return Optional.of(new MoveProgress(v[0], Math.toIntExact(v[1]), Math.toIntExact(v[2]), v[3], v[4], v[5]));
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new GeneIdException("the move progress of bucket map '" + name + "' in Redis key " + key + " at " + where
          + " cannot be read: " + e.getMessage(), e);
    }
  }

  /** Closes the connection and client if this store opened them. */
  @Override
  public void close() {
    closed = true;
    link.close();
  }

  @Override
  public String toString() {
    return "RedisBucketMapStore[" + where + ", keyPrefix=" + keyPrefix + "]";
  }

  /**
   * Configuration of a {@link RedisBucketMapStore}: where Redis is ({@link #redisUri(String)} or a connection), the
   * key prefix (maps are <code>&lt;keyPrefix&gt;:bucket-map:{&lt;name&gt;}</code>) and the command timeout.
   */
  public static final class Builder extends RedisStoreBuilder<Builder> {

    private Builder() {}

    /**
     * Connects (for a URI), checks the server's version (5.0 or later) and returns the store.
     *
     * @throws IllegalArgumentException without a URI or connection
     * @throws GeneIdException if Redis cannot be reached or is older than 5.0
     */
    public RedisBucketMapStore build() {
      Connected c = connect("the bucket map store", (link, where) ->
          RedisConnections.checkedServerInfo(link.commands(), "the bucket map store, Redis at " + where + ","));
      return new RedisBucketMapStore(c.link(), keyPrefix, c.where(), timeout);
    }
  }
}
