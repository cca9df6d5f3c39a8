package io.geneid.redis;

import io.geneid.core.GeneIdException;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SegmentStore} over Redis: one counter key per business tag ({@code <prefix>:segment:<tag>}), advanced with
 * {@code INCRBY key step} in a one-key script that also reads the server's identity and replicas. The new value
 * {@code e} is the end of the claimed range {@code [e - step + 1, e]}; Redis runs commands one at a time, so ranges
 * handed to racing processes are disjoint.
 *
 * <p><b>Sentinel, Cluster, replicas.</b> {@link Builder#redisUri(String)} takes {@code redis-sentinel://} and
 * {@code redis-cluster://} URIs too; in a cluster each tag's counter lives in the slot of its own key, so tags spread
 * over the masters. Replication is asynchronous: a failover to a replica that missed a claim would count from an
 * older value and hand the range out again, and segments have nothing like the leases' generation rule to notice it
 * afterwards (the store cannot know how far the lost master counted). So the rule is: <i>a range is handed out only
 * once no failover the deployment can make can lose its claim</i>, that is once every replica that could be promoted
 * has it. The claim is followed by {@code WAIT n} (within half the command timeout), n being the largest of: the
 * replicas connected to the master now (the script reads {@code INFO replication}), the replicas this store has seen
 * connected to it, and the replicas the deployment lists for it whatever their state. On Sentinel those are the
 * replicas the sentinels list ({@code SENTINEL REPLICAS}, one round trip per claim), except {@code replica-priority 0}
 * ones, which are never promoted: the sentinels keep listing a replica whose link is cut, one that is down, and the
 * old master after a failover, and promote any of them once it answers again (a frozen replica resumed after the
 * master's death is promoted before it can resynchronise). This process's own view is not enough: a process that
 * starts while the replica is cut off sees none, and before this rule its claims counted (issue #34: 400 and 200
 * duplicate ids in the two cases of {@code RedisSentinelSegmentClaimTest}, 400 in a cluster's
 * {@code RedisClusterSegmentClaimTest}, 0 now). In a cluster they are the replicas the client's topology lists for
 * the master of the key's slot, failed ones included. A {@code redis://} link sees only connected replicas: fail such
 * a master over only once its replica caught up ({@link Builder#build()} warns about a master with replicas). The
 * smaller rules do not hold: waiting only for replicas that are up lets case (b) of the issue through, and a master alone "because its
 * replicas are down" is exactly that case. The price is availability, not correctness: while a listed replica is
 * unreachable or behind, claims fail (a retryable failure: the generator lives on its buffer and retries), so after a
 * master's death claims resume when it is back as a replica and in sync, or removed ({@code SENTINEL RESET}); a
 * replica that must never be promoted takes {@code replica-priority 0}. {@code min-replicas-to-write} is not needed
 * (it bounds lag in seconds, {@code WAIT} waits for the claim itself). A claim that fails leaves its range as a gap,
 * never reused. See {@code docs/segments.md}.
 *
 * <p><b>Eviction.</b> A counter is written once per segment: on a Redis that also serves a cache it is the coldest key,
 * and an {@code allkeys-*} {@code maxmemory-policy} evicts it first, after which {@code INCRBY} counts from 0 again
 * (a process started after the eviction re-issued 19,000 of 20,000 ids in {@code RedisEvictionFaultTest}).
 * {@link Builder#build()} refuses such a server (in a cluster, every master), and the claim script checks the policy
 * again before every claim, so a {@code CONFIG SET} at run time is refused from the next claim on. The policy is read
 * from {@code INFO memory}, which managed services answer where {@code CONFIG} is renamed, so it is never trusted
 * unread. {@code noeviction} and {@code volatile-*} are accepted: the counters carry no TTL. There is no opt-out.
 *
 * <p><b>Persistence.</b> The counters are the only record of which values were handed out. A Redis that restarts
 * without its data (no AOF/RDB, or a failover to a replica that lagged) starts counting from zero again and hands
 * out used values, to every process of the fleet: a running {@link io.geneid.core.segment.GeneSegmentGenerator} refuses a
 * segment that is not above the ones it has seen, but that protects one process, not two. Run it with
 * {@code appendonly yes} and {@code appendfsync always}, or use {@code io.geneid.jdbc.JdbcSegmentStore}: with
 * {@code everysec} or less, every restart of the server refuses its tags until an operator acts (see below). {@link Builder#build()} therefore reads the server's
 * persistence ({@code CONFIG GET appendonly} and {@code save}, or {@code INFO persistence} where {@code CONFIG} is
 * disabled) and refuses a Redis that keeps nothing on disk unless
 * {@link Builder#allowWithoutPersistence(boolean)} (property {@code redis-allow-without-persistence}) says the
 * risk is accepted. RDB snapshots alone are accepted with a warning (a crash goes back to the last snapshot); a
 * server whose persistence cannot be read is accepted with a warning.
 *
 * <p><b>Lost counters (issue #39).</b> Each counter has a guard key in its slot ({@link #guardKey(String)}) holding a
 * random generation drawn when the counter was created. A store passes the generation it claimed under and the end
 * of the last range it was handed for the tag; the claim script turns the guard into a tombstone, which refuses every
 * claim of the tag until an operator acts, when the guard is gone or another (the counter was lost), the guard has no
 * counter, or the counter is below that end (it went back with its guard: an older copy, an AOF losing its last
 * second). That end check alone missed a store never handed such a range, and every store once others had claimed
 * past its end (review w39r2), so the guard also records the identity of the server of the last claim
 * ({@code <run_id>:<master_replid>} in {@code <guard key>:server}, same slot): a claim on a server of another identity (a restart, which every
 * rollback of the files comes with) lays the tombstone too, unless every master this store was built on runs
 * {@code appendonly yes} with {@code appendfsync always} ({@link #fsyncsEveryWrite}, read at build), or the server is
 * a replica promoted from the server of the last claim ({@code master_replid2}: it had every claim, by the
 * {@code WAIT} rule). The price: a clean restart with {@code everysec} is refused too ({@code docs/segments.md}).
 *
 * <p><b>Failing fast.</b> A store built from a URI owns its Lettuce client, configured to reject commands at once
 * while disconnected ({@code DisconnectedBehavior.REJECT_COMMANDS}), with short connect and command timeouts
 * ({@link Builder#commandTimeout(Duration)}) and reconnect attempts at most 500 ms apart. {@link Builder#build()} connects, and
 * fails with a clear message when Redis cannot be reached. A store built over an existing connection uses that
 * connection's settings and does not close it.
 *
 * <pre>{@code
 * try (RedisSegmentStore store = RedisSegmentStore.builder().redisUri("redis://127.0.0.1:6379").build();
 *     GeneSegmentGenerator orders = GeneSegmentGenerator.builder(store, "order").build()) {
 *   long id = orders.nextId();
 * }
 * }</pre>
 */
public final class RedisSegmentStore implements SegmentStore, AutoCloseable {

  /** The default {@link Builder#keyPrefix(String)}: counters are {@code gene-id:segment:<tag>}. */
  public static final String DEFAULT_KEY_PREFIX = "gene-id";
  /** What an evicted counter does, for the messages that refuse an evicting server. */
  static final String EVICTED = "INCRBY then counts again from 0: every process issues ids that were already "
      + "issued";
  /** The builder method and property that accept a Redis without persistence. */
  static final String OPT_IN = "allowWithoutPersistence(true) (property redis-allow-without-persistence=true)";

  private static final Logger LOG = LoggerFactory.getLogger(RedisSegmentStore.class);

  /** The default {@link Builder#commandTimeout(Duration)}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private static final RedisWorkerIdAssigner.Script CLAIM = RedisWorkerIdAssigner.Script.of("segment-claim.lua",
      RedisWorkerIdAssigner.Script.resource("segment-claim.lua"));

  private final RedisConnections.Link link;
  private final String keyPrefix;
  private final String where;
  private final RedisConnections.ReplicaWait replicas;
  /** Per tag, the generation of its counter this store claimed under ({@link #guardKey(String)}). */
  private final Map<String, String> generations = new ConcurrentHashMap<>();
  /**
   * Per tag, the end of the last range this store handed out (its claim acknowledged by every replica that counts):
   * a counter found below it went back with its guard (an older copy), and the claim script refuses it.
   */
  private final Map<String, Long> handedEnds = new ConcurrentHashMap<>();
  /** The server of the last claim, to log a failover or restart once. */
  private final AtomicReference<String> lastServer = new AtomicReference<>("");

  /**
   * Whether every master this store was built on runs {@code appendonly yes} with {@code appendfsync always}: then a
   * restart loses no acknowledged claim, and a claim on a server of another identity goes on (see the class comment).
   */
  private final boolean vouches;

  private RedisSegmentStore(RedisConnections.Link link, String keyPrefix, String where, Duration timeout,
      boolean vouches) {
    this.link = link;
    this.vouches = vouches;
    this.keyPrefix = keyPrefix;
    this.where = where;
    this.replicas = new RedisConnections.ReplicaWait(timeout, true);
  }

  /**
   * A builder; {@link Builder#redisUri(String)} or {@link Builder#connection(StatefulRedisConnection)} is required,
   * as for {@link RedisWorkerIdAssigner#builder()}.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Claims {@code step} values of {@code bizTag} with {@code INCRBY}.
   *
   * @throws IllegalArgumentException for an empty tag or a step below 1
   * @throws GeneIdException if Redis is unreachable, times out or refuses the command
   */
  @Override
  public Segment nextSegment(String bizTag, long step) {
    if (bizTag.isEmpty()) {
      throw new IllegalArgumentException("bizTag must not be empty");
    }
    if (step < 1) {
      throw new IllegalArgumentException("step must be at least 1 but was " + step);
    }
    String key = key(bizTag);
    long end;
    try {
      // the claim and its WAIT run on the one server that owns the key (in a cluster: the master of its slot)
      RedisClusterCommands<String, String> server = link.serverOf(key);
      String known = generations.getOrDefault(bizTag, "");
      Long handed = handedEnds.get(bizTag);
      List<Object> reply = claim(server, key, guardKey(bizTag), step, known, handed == null ? "" : handed.toString(),
          vouches);
      if ("lost".equals(reply.get(0))) {
        throw new GeneIdException(lost(bizTag, String.valueOf(reply.get(1))));
      }
      if ("evicting".equals(reply.get(0))) {
        String policy = String.valueOf(reply.get(1));
        throw new GeneIdException(RedisConnections.evictionRefusal("unknown".equals(policy) ? null : policy,
            "the Redis segment store at " + where + " could not hand out " + step + " values of tag '" + bizTag
            + "' (INCRBY " + key + "): the server", "the counter " + key, EVICTED));
      }
      end = Long.parseLong(String.valueOf(reply.get(0)));
      String identity = String.valueOf(reply.get(1));
      int connected = Integer.parseInt(String.valueOf(reply.get(2)));
      generations.put(bizTag, String.valueOf(reply.get(3)));
      String before = lastServer.getAndSet(identity);
      if (!before.isEmpty() && !before.equals(identity)) {
        LOG.info("the Redis segment store at {} now claims on another server (run_id:master_replid {} after {}): "
            + "a failover or restart; claims go on above the counter the new server holds", where, identity, before);
      }
      // a range is handed out only once every replica has its claim: a failover never goes back below it
      replicas.await(link, server, key, identity, connected, "the Redis segment store at " + where + " could not hand out "
          + step + " values of tag '" + bizTag + "' (INCRBY " + key + "), the range is dropped (a gap, never "
          + "reused)");
      if (end - step + 1 >= 1) {
        handedEnds.merge(bizTag, end, Math::max); // handed out below: every replica that counts has it
      }
    } catch (RedisException e) {
      // an error inside the claim script names the script's sha and line: the command's own error is what matters
      String why = String.valueOf(e.getMessage()).replaceFirst(" script: [0-9a-f]+, on @user_script:\\d+\\.?$", "");
      throw new GeneIdException("the Redis segment store at " + where + " could not hand out " + step
          + " values of tag '" + bizTag + "' (INCRBY " + key + "): " + why, e);
    }
    if (end - step + 1 < 1) {
      throw new GeneIdException("the Redis key " + key + " at " + where + " held " + (end - step)
          + " before INCRBY " + step + ": a segment counter must not be negative");
    }
    return new Segment(end - step + 1, end);
  }

  private static List<Object> claim(RedisClusterCommands<String, String> server, String key, String guard, long step,
      String known, String handedEnd, boolean vouches) {
    String[] keys = {key, guard, guard + ":server"};
    String fresh = Long.toHexString(SECURE.nextLong()) + Long.toHexString(SECURE.nextLong());
    String[] args = {Long.toString(step), known, fresh, handedEnd, vouches ? "1" : "0"};
    Object reply;
    try {
      reply = server.evalsha(CLAIM.sha, ScriptOutputType.MULTI, keys, args);
    } catch (RedisNoScriptException e) {
      reply = server.eval(CLAIM.body, ScriptOutputType.MULTI, keys, args);
    }
    @SuppressWarnings("unchecked")
    List<Object> list = (List<Object>) reply;
    return list;
  }

  private static final java.security.SecureRandom SECURE = new java.security.SecureRandom();

  /**
   * The key of {@code bizTag}'s guard: the random generation its counter counts under, or the tombstone of a lost
   * counter. {@code <counter key>:guard{<counter key>}}, so that it starts with the key prefix and hashes to the
   * counter's cluster slot; for a counter key that holds a hash tag of its own ({@code {...}}),
   * {@code <counter key>:guard}, which that tag places likewise.
   */
  public String guardKey(String bizTag) {
    String key = key(bizTag);
    int open = key.indexOf('{');
    boolean tagged = open >= 0 && key.indexOf('}', open + 1) > open + 1;
    if (!tagged && (open >= 0 || key.indexOf('}') >= 0)) {
      // Redis hashes such a key whole, and no guard key can name it as its hash tag: the guard would land in
      // another cluster slot than the counter (found by #39's review: 'a}b', '{}x', 'x{')
      throw new IllegalArgumentException("segment tag '" + bizTag + "' makes the counter key " + key + ", whose braces"
          + " are not a Redis hash tag ({...} with something inside): its guard could not share the counter's"
          + " cluster slot. Use a tag without braces, or one hash tag such as {user}");
    }
    return tagged ? key + ":guard" : key + ":guard{" + key + "}";
  }

  /** The refusal of a claim of {@code bizTag} whose counter was lost: the key, what happened, what to do. */
  private String lost(String bizTag, String tombstone) {
    String key = key(bizTag);
    return "the segment counter " + key + " of tag '" + bizTag + "' at " + where + " was lost (" + tombstone
        + "): Redis restarted without its data or from an older copy (or restarted at all without appendfsync"
        + " always, which cannot tell), was flushed, or the key was deleted, and"
        + " counting on would hand out again values already issued. Every claim of the tag is refused until an operator acts: SET " + key
        + " <a value above every id of the tag in use (id >> gene bits)> with every process that uses the tag"
        + " stopped (one still running would find the guard gone and lay the tombstone again), then DEL "
        + guardKey(bizTag) + ", then start them again";
  }

  /**
   * The key next to {@link #guardKey(String)} (same cluster slot) that records the server of the last claim of
   * {@code bizTag}: {@code <run_id>:<master_replid>}.
   */
  public String serverKey(String bizTag) {
    return guardKey(bizTag) + ":server";
  }

  /** The Redis key holding {@code bizTag}'s counter: {@code <keyPrefix>:segment:<bizTag>}. */
  public String key(String bizTag) {
    return keyPrefix + ":segment:" + bizTag;
  }

  /** Closes the connection and client if this store opened them. */
  @Override
  public void close() {
    link.close();
  }

  @Override
  public String toString() {
    return "RedisSegmentStore[" + where + ", keyPrefix=" + keyPrefix + "]";
  }

  /**
   * Configuration of a {@link RedisSegmentStore}: where Redis is ({@link #redisUri(String)} or a connection), the
   * key prefix (counters are {@code <keyPrefix>:segment:<tag>}), the command timeout, and whether a Redis without
   * persistence is accepted.
   */
  public static final class Builder extends RedisStoreBuilder<Builder> {
    private boolean allowWithoutPersistence;

    private Builder() {}

    /**
     * Whether to accept a Redis that keeps nothing on disk ({@code appendonly no} and no {@code save} points). Such a
     * Redis forgets its counters when it restarts, and every process then issues segment values that were already
     * issued: duplicate ids across the fleet. Only for tests, or when the ids need not be unique across restarts.
     * Default false.
     */
    public Builder allowWithoutPersistence(boolean allow) {
      this.allowWithoutPersistence = allow;
      return this;
    }

    /**
     * Connects (for a URI), checks that the server keeps its data (see the class comment) and returns the store.
     *
     * @throws IllegalArgumentException without a URI or connection
     * @throws GeneIdException if Redis cannot be reached, or keeps nothing on disk and
     *     {@link #allowWithoutPersistence(boolean)} was not set
     */
    public RedisSegmentStore build() {
      boolean[] vouches = {true};
      Connected c = connect("the segment store", (link, where) -> {
        checkPersistence(link.commands(), where, allowWithoutPersistence);
        for (RedisClusterCommands<String, String> master : RedisConnections.masters(link)) {
          vouches[0] &= fsyncsEveryWrite(master);
          RedisConnections.checkEviction(master, "the Redis segment store at " + where, "its segment counters ("
              + keyPrefix + ":segment:<tag>, the coldest keys: one write per segment)", EVICTED);
        }
        checkReplicas(link, where);
      });
      if (!vouches[0]) {
        LOG.info("the Redis segment store at {} runs on a Redis without appendonly yes + appendfsync always: a claim "
            + "that finds the server restarted (another run_id, not a promoted replica) refuses the tag until an "
            + "operator acts, since the counter may have come back from an older copy (docs/segments.md)",
            c.where());
      }
      return new RedisSegmentStore(c.link(), keyPrefix, c.where(), timeout, vouches[0]);
    }
  }

  /**
   * On a Sentinel link, asks the sentinels for the master's replicas once, so that a deployment whose sentinels
   * cannot say (they refuse {@code SENTINEL REPLICAS}, or list the server as a replica) is refused at build rather
   * than at every claim. On a plain link to a master with replicas, warns: this store sees only the replicas connected
   * to it, so a failover made by hand to a replica that was cut off could hand ranges out again (see the class
   * comment); refusing would lock out masters whose replicas serve reads or backups and are never promoted.
   */
  private static void checkReplicas(RedisConnections.Link link, String where) {
    RedisClusterCommands<String, String> server = link.commands();
    String what = "the Redis segment store at " + where + " cannot guarantee its claims";
    if (!link.plain()) {
      String runId = String.valueOf(RedisConnections.infoField(server.info("server"), "run_id"));
      link.deploymentReplicas("", runId, what);
      return;
    }
    String connected = RedisConnections.infoField(server.info("replication"), "connected_slaves");
    if (connected != null && !"0".equals(connected)) {
      LOG.warn("the Redis segment store at {} writes to a master with {} replicas through a plain URI: it waits for "
          + "the replicas it sees connected, and cannot see one that is cut off. Fail this master over by hand only "
          + "once its replica has caught up, or connect through redis-sentinel:// or redis-cluster://, whose "
          + "replicas it always waits for", where, connected);
    }
  }

  /**
   * Whether the server vouches that a restart loses no acknowledged claim: {@code appendonly yes} with
   * {@code appendfsync always}, read with {@code CONFIG GET} as {@link #checkPersistence} reads them. False when
   * {@code CONFIG} is renamed or disabled: {@code INFO persistence} does not tell the fsync policy.
   */
  static boolean fsyncsEveryWrite(RedisClusterCommands<String, String> commands) {
    try {
      return "yes".equalsIgnoreCase(commands.configGet("appendonly").getOrDefault("appendonly", ""))
          && "always".equalsIgnoreCase(commands.configGet("appendfsync").getOrDefault("appendfsync", ""));
    } catch (RedisException e) {
      return false;
    }
  }

  /**
   * Refuses a Redis that keeps nothing on disk unless {@code allow}; warns about RDB snapshots alone and about a
   * server whose persistence cannot be read.
   */
  static void checkPersistence(RedisClusterCommands<String, String> commands, String where, boolean allow) {
    String appendonly;
    String save;
    try {
      appendonly = commands.configGet("appendonly").getOrDefault("appendonly", "");
      save = commands.configGet("save").getOrDefault("save", "").trim();
    } catch (RedisException e) {
      // CONFIG renamed or disabled (managed services): INFO persistence says whether AOF is on, not the RDB rules
      String info;
      try {
        info = commands.info("persistence");
      } catch (RedisException e2) {
        LOG.warn("the Redis segment store at {} cannot read the server's persistence (CONFIG GET: {}; INFO "
            + "persistence: {}): make sure it keeps its data (appendonly yes), or segment values repeat after a "
            + "restart", where, e.getMessage(), e2.getMessage());
        return;
      }
      if ("1".equals(RedisConnections.infoField(info, "aof_enabled"))) {
        return;
      }
      LOG.warn("the Redis segment store at {} cannot read the server's persistence settings (CONFIG GET: {}) and "
          + "INFO persistence shows no AOF: make sure it keeps its data, or segment values repeat after a restart",
          where, e.getMessage());
      return;
    }
    if ("yes".equalsIgnoreCase(appendonly)) {
      return;
    }
    String found = "appendonly " + appendonly + ", save \"" + save + "\"";
    if (!save.isEmpty()) {
      LOG.warn("the Redis segment store at {} keeps only RDB snapshots ({}): a crash goes back to the last snapshot"
          + " and segment values handed out since then are handed out again. Use appendonly yes", where, found);
      return;
    }
    if (allow) {
      LOG.warn("the Redis segment store at {} keeps nothing on disk ({}), accepted by {}: after a restart of Redis "
          + "its counters start again from zero and processes issue segment values that were already issued",
          where, found, OPT_IN);
      return;
    }
    throw new GeneIdException("the Redis segment store at " + where + " keeps nothing on disk (" + found + "): "
        + "after a restart of Redis its counters start again from zero, and two processes (or one restarted) would "
        + "issue the same segment values, so duplicate ids. Turn on appendonly yes (appendfsync always or "
        + "everysec) on the server, use the JDBC segment store, or accept the risk with " + OPT_IN);
  }
}
