package io.geneid.redis;

import io.geneid.core.GeneIdException;
import io.geneid.core.lease.LeaseAssignerBuilder;
import io.geneid.core.lease.LeaseLoop;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker-id leases in Redis, through Lettuce: one Redis ({@code redis://}), the master of a Sentinel deployment
 * ({@code redis-sentinel://...#master}) or a Redis Cluster ({@code redis-cluster://host:port,host:port}); see
 * {@link Builder#redisUri(String)}.
 *
 * <h2>Data</h2>
 * Per pool ({@code space}), all under one hash tag so that one script touches one cluster slot
 * ({@code <prefix>:lease:{<space>}:...}):
 * <ul>
 *   <li>{@code w:<id>}, one hash per worker id that was ever granted: {@code owner}, {@code token}, {@code mark} (the
 *       high-water mark, ms), {@code expiry} (ms), {@code gen} (the pool generation it was written in) and, for a
 *       worker id whose record was lost once, {@code unknownSince}. Everything about a worker id lives in one key,
 *       so it survives or is lost as a whole.
 *   <li>{@code meta}, a hash: {@code born} (when the pool's current generation started), {@code gen} (a random id of
 *       that generation), {@code runid} (the Redis {@code run_id} it belongs to), {@code next} (the lowest worker id
 *       never granted in it), {@code count} and {@code scan} (for rebuilding the index).
 *   <li>{@code expiry}, a sorted set: worker id to the instant it is next free. Only an index for finding the least
 *       recently used free id; rebuilt from the records when it loses entries.
 * </ul>
 * Acquire, renew and release are Lua scripts ({@code lease-acquire.lua}, {@code lease-renew.lua},
 * {@code lease-release.lua}, each prefixed with {@code lease-common.lua}), atomic on the server. Every number crosses
 * into and out of Lua as a decimal string, and every time is the server's ({@code TIME}), not a client's. The work
 * of one call is bounded by constants (at most a few hundred records read), never by the size of the pool: a pool of
 * 2^28 worker ids costs the server what a pool of 4 does.
 *
 * <h2>Fault model: what each store fault does, and why ids stay unique</h2>
 * Write {@code wait} for one TTL + the caller's borrowing bound ({@code maxBorrowMillis}) + the 2 s clock-skew margin
 * ({@link WorkerIdAssigner#HISTORY_MARGIN}):
 * a holder that no longer has its lease in the store notices at its next renewal and stops issuing by the end of
 * its TTL, having issued at most its borrowing bound ahead of its clock.
 * <ul>
 *   <li><b>Tokens never repeat.</b> A fencing token is 64 random bits drawn by the client for every grant, never a
 *       counter kept in Redis, so no rollback or key loss can hand a second holder a token the first still uses.
 *   <li><b>Redis restarts, failed over or went back in time</b> (a restart with or without persistence, from an
 *       older RDB snapshot, from an AOF that lost its last second, a promoted replica that lagged): the server's
 *       {@code run_id}, which every script reads itself ({@code INFO server}), differs from the one the pool's
 *       generation was started under. The next acquire starts a new generation ({@code born} = now). Every renewal
 *       of a record written in an older generation is refused, <i>even with a matching token</i> (the record may be
 *       older than what happened since), so its holder fences at once; every such worker id, and every id without a
 *       record, is granted only at {@code born + wait}, with at least that instant as the previous mark.
 *   <li><b>Keys lost one by one</b> (an operator's {@code DEL}; eviction, if the server is switched to an
 *       {@code allkeys-*} policy after the build refused it): losing
 *       {@code meta} starts a new generation as above. Losing a worker record makes its holder's renewal fail; the
 *       worker id, known to have been granted (below {@code next}, or listed in the index), is marked
 *       {@code unknownSince} now and granted only {@code wait} later. Losing the index only hides ids until it is
 *       rebuilt from the records. A worker id counts as never used only when nothing about it survives anywhere
 *       and its generation is older than {@code wait}.
 *   <li><b>Every grant</b> carries a previous mark of at least the recorded mark, and, for an id whose lease expired
 *       rather than being released, at least store now + the caller's borrowing bound (see
 *       {@link WorkerIdAssigner#acquire(long, Duration)}). A released id carries the exact mark its holder reported
 *       when it stopped.
 *   <li><b>Replication</b> (Sentinel, Cluster, or any master with replicas): a grant or renewal counts only once
 *       the replicas have it ({@code WAIT} for as many replicas as this assigner has seen connected to that master
 *       (run_id and master_replid), within half the command timeout). A master cut off from its replicas, about to be replaced,
 *       cannot keep a holder issuing past the TTL of the last renewal they saw. A promoted replica has another
 *       run_id, and a server promoted again without a restart another master_replid: both start a new generation.
 *       A Sentinel link whose renewal its replicas did not acknowledge reconnects to the master the sentinels name.
 *       On a Sentinel link, a grant or renewal on a server without replicas counts only if the sentinels do not list
 *       that server as a replica (a master demoted by {@code SENTINEL FAILOVER} takes writes for seconds, with no
 *       replica, and a link that meets it first has none to wait for), nor a replica being promoted or not
 *       identified yet.
 *   <li><b>Silence:</b> every command has a timeout, commands fail at once while disconnected
 *       ({@code REJECT_COMMANDS}), and the client reconnects at most 500 ms apart, so a holder fences within its TTL
 *       and resumes soon after Redis is back.
 * </ul>
 * The price of a restart or failover is one {@code wait} without ids for every holder of the pool, and the first
 * start of a new pool pays it once too: Redis cannot tell a new pool from a forgotten one. It is logged at INFO, and
 * a non-zero acquire timeout is extended to cover it.
 *
 * <h2>Persistence</h2>
 * For leases, the persistence setting decides availability, never uniqueness, and less than one might think: Redis
 * cannot prove that what it reloaded is its latest state, so every restart starts a new generation and costs one
 * {@code wait}, whether it kept its data with {@code appendonly yes} and {@code appendfsync always}, with
 * {@code everysec} (which may lose the last second), from RDB snapshots (an older state), or kept nothing. What a
 * kept data set still buys: released ids keep their exact marks until the restart, and {@code meta.next} keeps a new
 * generation from walking through old records. The segment store is different: it relies on its counters surviving,
 * see {@link RedisSegmentStore}. The build refuses an {@code allkeys-*} {@code maxmemory-policy} (read from
 * {@code INFO memory}), whose evictions would cost every holder its lease and a wait like a restart; use
 * {@code noeviction} or a {@code volatile-*} policy (lease keys have no TTL). Do not replace the
 * data set without a restart ({@code DEBUG RELOAD}, a {@code RESTORE} of old keys): that is a rollback Redis does not
 * reveal. Every process of a pool should use the same worker-id range and borrowing bound.
 *
 * <p>Commands fail at once while disconnected and time out after {@link Builder#commandTimeout(Duration)}, so a
 * renewal never hangs past the lease. After a Redis restart {@code EVALSHA} answers {@code NOSCRIPT}; the script is
 * then sent with {@code EVAL}, which caches it again. Needs Redis 5.0 or later (checked when built) with
 * {@code INFO} and {@code TIME} callable from scripts (not renamed away). The assigner
 * logs one INFO line per lease acquired or released, naming the space, the worker id and the store (scheme, host,
 * port and database only: never the password); failures go to the caller, which logs them.
 */
public final class RedisWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(RedisWorkerIdAssigner.class);

  /** Default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "gene-id";
  static final Script ACQUIRE = Script.load("lease-acquire.lua");
  private static final Script RENEW = Script.load("lease-renew.lua");
  private static final Script RELEASE = Script.load("lease-release.lua");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String space;
  private final long minWorkerId;
  private final long maxWorkerId;
  private final Duration ttl;
  private final Duration acquireTimeout;
  private final String owner;
  private final LeaseLoop loop;
  private final String metaKey;
  private final String indexKey;
  private final String recordPrefix;
  private final String description;
  private final RedisConnections.Link link;
  private final RedisConnections.ReplicaWait replicas;
  /** {@link #vouchesForHistory()}: as the server of the last grant (or the build's check) showed. */
  private volatile boolean vouches;

  private RedisWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease) {
    this.space = lease.space();
    this.minWorkerId = lease.minWorkerId();
    this.maxWorkerId = lease.maxWorkerId();
    this.ttl = lease.ttl();
    this.acquireTimeout = lease.acquireTimeout();
    this.owner = lease.owner();
    this.loop = new LeaseLoop(lease, () -> "Redis at " + store());
    String base = b.keyPrefix + ":lease:{" + space + "}:";
    this.metaKey = base + "meta";
    this.indexKey = base + "expiry";
    this.recordPrefix = base + "w:";
    Duration timeout = b.commandTimeout != null ? b.commandTimeout
        : Duration.ofMillis(Math.max(100, Math.min(ttl.toMillis() / 3, 5_000)));
    this.replicas = new RedisConnections.ReplicaWait(timeout);
    if (b.connection != null || b.clusterConnection != null) {
      this.link = b.connection != null ? RedisConnections.Link.of(b.connection)
          : RedisConnections.Link.of(Objects.requireNonNull(b.clusterConnection));
      this.description = "connection " + link.connection();
      if (b.commandTimeout != null) {
        link.connection().setTimeout(timeout);
      }
    } else {
      RedisConnections.Target target = RedisConnections.parse("redisUri",
          Objects.requireNonNull(b.redisUri, "redisUri or connection is required"));
      this.description = RedisConnections.describe(target);
      try {
        this.link = RedisConnections.connect(target, timeout);
      } catch (RedisException e) {
        throw new GeneIdException(RedisConnections.connectFailure("the worker-id lease store", description, e), e);
      }
    }
    try {
      // in a cluster: the master that owns this pool's slot, where the scripts run
      RedisClusterCommands<String, String> server = link.serverOf(metaKey);
      String serverInfo = RedisConnections.checkedServerInfo(server, "the worker-id lease store, Redis at "
          + description + ",");
      RedisConnections.checkEviction(server, "the worker-id lease store, Redis at " + description + ",",
          "the keys of space '" + space + "' (" + base + "*)", "every holder of the pool loses its lease and every"
          + " worker id waits one TTL + borrowing + 2 s, as after a restart (an evicted record or pool meta is"
          + " noticed, not trusted)");
      // the policy was checked just above; the identity is what the scripts read too
      vouches = vouches(RedisConnections.infoField(serverInfo, "run_id") + ":"
          + RedisConnections.infoField(server.info("replication"), "master_replid"), "noeviction");
    } catch (RedisException e) {
      close();
      throw new GeneIdException("cannot reach the worker-id lease store, Redis at " + description + ": "
          + e.getMessage(), e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** A builder; {@link Builder#redisUri(String)} or {@link Builder#connection(StatefulRedisConnection)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String space() {
    return space;
  }

  @Override
  public Duration ttl() {
    return ttl;
  }

  /** The Redis keys of this pool: the meta hash, the expiry index and the prefix of the per-worker-id records. */
  public List<String> keys() {
    return List.of(metaKey, indexKey, recordPrefix);
  }

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    boolean[] told = {false};
    WorkerLease lease = loop.acquire(layoutMaxWorkerId, borrowSlack, (lo, hi, slack) -> attempt(lo, hi, slack, told));
    LOG.debug("acquired worker id {} of space '{}' at {} until {} (store time); previous holder's mark {}",
        lease.workerId(), space, description, lease.expiresAt(), lease.previousHighWaterMark());
    return lease;
  }

  /**
   * One run of {@code lease-acquire.lua}, the atomic step: the script reads the pool, decides with the server's
   * clock and history (generation, unknown-history waits) and grants in one go, so it never loses a race.
   */
  private LeaseLoop.Attempt attempt(long lo, long hi, long slack, boolean[] told) {
    long token = LeaseLoop.newToken();
    RedisClusterCommands<String, String> server = link.serverOf(metaKey);
    List<Object> reply = run(server, ACQUIRE, new String[] {metaKey, indexKey}, recordPrefix, owner,
        Long.toString(ttl.toMillis()), Long.toString(lo), Long.toString(hi), Long.toString(slack),
        Long.toString(WorkerIdAssigner.HISTORY_MARGIN.toMillis()), Long.toString(token), newGeneration());
    if ("ok".equals(reply.get(0))) {
      // used only once the replicas have the grant: a master about to be replaced cannot hand out a lease
      awaitReplicas(server, reply, 6, "granted worker id " + reply.get(1));
      vouches = vouches(String.valueOf(reply.get(6)), reply.size() > 8 ? String.valueOf(reply.get(8)) : null);
      return LeaseLoop.Attempt.granted(new WorkerLease(space, num(reply, 1), num(reply, 2), owner, instant(reply, 3),
          instant(reply, 3), instant(reply, 4)));
    }
    // busy: now, unknown-history ids free at (0: none), generation born, then (id, owner, free at) triples
    long now = num(reply, 1);
    long unknownFree = num(reply, 2);
    long born = num(reply, 3);
    if (unknownFree > 0 && !acquireTimeout.isZero() && !told[0]) {
      told[0] = true;
      LOG.info("worker ids of space '{}' at {} have no known history since {} (a new pool, or the store "
          + "restarted, failed over or lost keys): they become usable at {}, one TTL ({}) + {} ms borrowing "
          + "+ {} ms clock margin later, when any earlier holder must have stopped; waiting", space, description,
          Instant.ofEpochMilli(born), Instant.ofEpochMilli(unknownFree), ttl, slack,
          WorkerIdAssigner.HISTORY_MARGIN.toMillis());
    }
    List<String> holders = new ArrayList<>();
    for (int i = 4; i + 2 < reply.size(); i += 3) {
      holders.add(reply.get(i) + " by " + reply.get(i + 1) + " until " + instant(reply, i + 2));
    }
    String detail = unknownFree == 0 ? "" : " (worker ids without a known history since "
        + Instant.ofEpochMilli(born) + ", when the pool was new or the store restarted, failed over or lost keys,"
        + " become usable at " + Instant.ofEpochMilli(unknownFree) + ")";
    return new LeaseLoop.Attempt(null, false, () -> holders, detail, unknownFree == 0 ? 0 : unknownFree - now);
  }

  /**
   * True: this store notices every loss of acknowledged writes it can suffer ({@link WorkerIdAssigner}), so a grant
   * is trusted and issues at once. It does when both rules of the fault model above hold for the server of the last
   * grant (at build: the server the pool's keys live on): the scripts read a real {@code run_id} and
   * {@code master_replid} (not {@code unknown}: {@code INFO} answered inside scripts), so a restart, rollback or
   * failover starts a new generation and the store waits out TTL + borrowing + 2 s itself for every worker id
   * concerned; and its {@code maxmemory-policy} cannot evict the pool's keys (not {@code allkeys-*}, refused at build
   * and read again at every grant, since {@code CONFIG SET} may change it). False otherwise, and the lease protocol
   * then makes every grant wait that long before its first id. Outside the model either way, as documented above:
   * a data set replaced without a restart ({@code DEBUG RELOAD}, a {@code RESTORE} of old keys).
   */
  @Override
  public boolean vouchesForHistory() {
    return vouches;
  }

  /** Whether a server of identity {@code server} ({@code run_id:master_replid}) with {@code policy} vouches. */
  static boolean vouches(String server, @Nullable String policy) {
    int colon = server.indexOf(':');
    boolean identified = colon > 0 && !server.startsWith("unknown") && !server.substring(colon + 1).equals("unknown");
    return identified && RedisConnections.evictionRefusal(policy, "", "", "") == null;
  }

  @Override
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    String id = Long.toString(lease.workerId());
    RedisClusterCommands<String, String> server = link.serverOf(metaKey);
    List<Object> reply = run(server, RENEW, new String[] {metaKey, indexKey, recordPrefix + id}, id,
        Long.toString(lease.token()), Long.toString(ttl.toMillis()), Long.toString(highWaterMark.toEpochMilli()));
    if (!"ok".equals(reply.get(0))) {
      String held = String.valueOf(reply.get(1));
      String why = switch (held) {
        case "generation" -> "the store restarted, failed over or lost the pool's meta since it was granted, so "
            + "every worker id of the pool has an unknown history again";
        case "" -> "the store has no lease for it (released, or the store lost its data)";
        default -> "it was taken over (token " + held + ")";
      };
      throw new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId() + " of space '"
          + space + "' is no longer leased under token " + lease.token() + " in Redis at " + description + ": "
          + why, null);
    }
    // a renewal counts once the replicas have it: a master cut off from its replicas (and soon replaced) cannot
    // keep a holder issuing past the TTL of its last renewal they saw
    awaitReplicas(server, reply, 3, "renewed worker id " + lease.workerId());
    return lease.renewed(instant(reply, 1), instant(reply, 2));
  }

  @Override
  public void release(WorkerLease lease, Instant highWaterMark) {
    String id = Long.toString(lease.workerId());
    List<Object> reply = run(RELEASE, new String[] {metaKey, indexKey, recordPrefix + id}, id,
        Long.toString(lease.token()), Long.toString(highWaterMark.toEpochMilli()));
    if ("ok".equals(reply.get(0))) {
      LOG.debug("released worker id {} of space '{}' at {} with high-water mark {}", lease.workerId(), space,
          description, highWaterMark);
    } else {
      LOG.warn("worker id {} of space '{}' at {} was not released: it is no longer leased under token {}",
          lease.workerId(), space, description, lease.token());
    }
  }

  @Override
  public void close() {
    link.close();
  }

  /** {@code WAIT} for the replicas after a script whose reply holds the server and its replicas from {@code at}. */
  private void awaitReplicas(RedisClusterCommands<String, String> server, List<Object> reply, int at, String what) {
    String done = "the worker-id lease store, Redis at " + description + ", " + what + " of space '" + space + "'";
    try {
      replicas.await(link, server, String.valueOf(reply.get(at)), Integer.parseInt(String.valueOf(reply.get(at + 1))),
          done);
    } catch (RedisException e) {
      throw new GeneIdException(done + " but failed on WAIT: " + e.getMessage(), e);
    }
  }


  private static String newGeneration() {
    return String.format("%016x", RANDOM.nextLong());
  }

  List<Object> run(Script script, String[] keys, String... args) {
    return run(link.serverOf(metaKey), script, keys, args);
  }

  /** Runs {@code script} on {@code commands}: the server of the pool's slot (in a cluster, its master's connection). */
  private List<Object> run(RedisClusterCommands<String, String> commands, Script script, String[] keys,
      String... args) {
    Object reply;
    try {
      try {
        reply = commands.evalsha(script.sha, ScriptOutputType.MULTI, keys, args);
      } catch (RedisNoScriptException e) {
        // the server's script cache is empty (restart, SCRIPT FLUSH): EVAL sends the body and caches it again
        reply = commands.eval(script.body, ScriptOutputType.MULTI, keys, args);
      }
    } catch (RedisException e) {
      throw new GeneIdException("the worker-id lease store, Redis at " + description + ", failed on " + script.name
          + " for space '" + space + "': " + e.getMessage(), e);
    }
    if (reply instanceof List) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) reply;
      return list;
    }
    return List.of(String.valueOf(reply));
  }

  String recordPrefix() {
    return recordPrefix;
  }

  private static long num(List<Object> reply, int index) {
    return Long.parseLong(String.valueOf(reply.get(index)));
  }

  private static Instant instant(List<Object> reply, int index) {
    return Instant.ofEpochMilli(num(reply, index));
  }

  @Override
  public String store() {
    return description;
  }

  @Override
  public String toString() {
    return "RedisWorkerIdAssigner[space=" + space + ", pool=[" + minWorkerId + ", "
        + (maxWorkerId == Integer.MAX_VALUE ? "layout max" : maxWorkerId) + "], ttl=" + ttl + ", Redis at "
        + description + "]";
  }

  /** A Lua script from the class path with its SHA-1. */
  static final class Script {
    final String name;
    final String body;
    final String sha;

    private Script(String name, String body, String sha) {
      this.name = name;
      this.body = body;
      this.sha = sha;
    }

    /** A script from its text (tests use it to send a body the server has never cached). */
    static Script of(String name, String body) {
      try {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
        return new Script(name, body, HexFormat.of().formatHex(digest));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The text of a resource of this package. */
    static String resource(String name) {
      try (InputStream in = RedisWorkerIdAssigner.class.getResourceAsStream(name)) {
        if (in == null) {
          throw new IllegalStateException("missing resource io/geneid/redis/" + name);
        }
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** A lease script: {@code lease-common.lua} followed by {@code name}. */
    static Script load(String name) {
      return of(name, resource("lease-common.lua") + resource(name));
    }
  }

  /**
   * Configuration of a {@link RedisWorkerIdAssigner}: the Redis and its key prefix here, the pool's settings
   * ({@code space}, {@code workerIds}, {@code ttl}, {@code acquireTimeout}, {@code owner}) in
   * {@link LeaseAssignerBuilder}.
   */
  public static final class Builder extends LeaseAssignerBuilder<Builder> {
    String keyPrefix = DEFAULT_KEY_PREFIX;
    @Nullable String redisUri;
    @Nullable StatefulRedisConnection<String, String> connection;
    @Nullable StatefulRedisClusterConnection<String, String> clusterConnection;
    @Nullable Duration commandTimeout;

    private Builder() {}

    /**
     * The Redis to connect to: {@code redis://127.0.0.1:6379/0}, the master of a Sentinel deployment
     * ({@code redis-sentinel://host1:26379,host2:26379,host3:26379/0#mymaster}) or a Redis Cluster
     * ({@code redis-cluster://host1:6379,host2:6379}, or {@code redis://} with several {@code host:port}); see
     * {@code docs/leases.md}. The assigner owns (and closes) the client.
     */
    public Builder redisUri(String redisUri) {
      this.redisUri = Objects.requireNonNull(redisUri, "redisUri");
      this.connection = null;
      this.clusterConnection = null;
      return this;
    }

    /**
     * An existing connection (String codec), not closed by the assigner. Configure it as an assigner built from a URI
     * configures its own: {@code DisconnectedBehavior.REJECT_COMMANDS}, a command timeout well below the TTL, and a
     * capped reconnect delay ({@code ClientResources.reconnectDelay}, e.g. at most 500 ms; Lettuce's default grows to
     * 30 s and keeps a holder fenced that long after Redis is back).
     */
    public Builder connection(StatefulRedisConnection<String, String> connection) {
      this.connection = Objects.requireNonNull(connection, "connection");
      this.clusterConnection = null;
      this.redisUri = null;
      return this;
    }

    /**
     * An existing Redis Cluster connection (String codec), not closed by the assigner; configure it as
     * {@link #connection(StatefulRedisConnection)} says, and with topology refresh (periodic and adaptive) so that
     * the pool's slot is found on its new master soon after a failover.
     */
    public Builder clusterConnection(StatefulRedisClusterConnection<String, String> connection) {
      this.clusterConnection = Objects.requireNonNull(connection, "connection");
      this.connection = null;
      this.redisUri = null;
      return this;
    }

    /** The first part of every key. Default {@code gene-id}. */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = RedisConnections.checkKeyPrefix(keyPrefix);
      return this;
    }

    /** Command timeout. Default a third of the TTL, in [100 ms, 5 s]. */
    public Builder commandTimeout(Duration commandTimeout) {
      this.commandTimeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
      return this;
    }

    /**
     * Connects (when given a URI).
     *
     * @throws GeneIdException if Redis cannot be reached
     */
    public RedisWorkerIdAssigner build() {
      WorkerIdAssigners.LeaseSettings lease = leaseSettings();
      if (redisUri == null && connection == null && clusterConnection == null) {
        throw new IllegalArgumentException("a Redis URI (redis-uri) or a connection is required");
      }
      return new RedisWorkerIdAssigner(this, lease);
    }
  }
}
