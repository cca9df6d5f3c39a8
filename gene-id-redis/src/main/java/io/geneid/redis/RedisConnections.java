package io.geneid.redis;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.GeneIdException;
import io.geneid.core.internal.StoreUrls;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How both Redis stores of this module connect, so they fail and recover the same way: a client of their own whose
 * reconnect attempts back off from 10 ms to at most 500 ms (Lettuce's default grows to 30 s, which kept a lease
 * holder fenced for seconds after Redis was back), commands rejected at once while disconnected
 * ({@code REJECT_COMMANDS}), a connect timeout ({@link #connectTimeout(Duration)}) and a timeout on every command.
 *
 * <p>Three kinds of store: one Redis ({@code redis://}); the master of a Redis Sentinel deployment
 * ({@code redis-sentinel://}, Lettuce's own support: every reconnect asks the sentinels for the current master; a
 * link drops its connection when its writes go unacknowledged, see {@link Link#reconnectIfSentinel()}); and a Redis Cluster
 * ({@link RedisClusterClient}: each command goes to the master of its key's slot, the topology is refreshed every
 * second and at once on a redirect or a lost connection). In each, a store's scripts touch keys of one slot and read
 * the server's time and identity ({@code TIME}, {@code run_id}, {@code master_replid}) inside the script, so on the
 * server that owns the keys.
 */
final class RedisConnections {

  /** Reconnect backoff: 10, 20, 40, ... ms, never more than 500 ms apart. */
  static final Delay RECONNECT_DELAY =
      Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS);

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.\\d+)?.*");

  private RedisConnections() {}

  /**
   * What a store talks to: one Redis (a {@code redis://} URI, or the master a {@code redis-sentinel://} URI names,
   * found again through the sentinels after every reconnect) or a Redis Cluster, with the client and resources it
   * owns, if any ({@link #close()} shuts them down; a link over a connection it was given closes nothing).
   */
  static final class Link implements AutoCloseable {
    private final StatefulConnection<String, String> connection;
    private final RedisClusterCommands<String, String> commands;
    private final @Nullable StatefulRedisClusterConnection<String, String> cluster;
    private final @Nullable AbstractRedisClient client;
    private final @Nullable ClientResources resources;
    private final boolean sentinel;
    /** The Sentinel URI of a link to a Sentinel master (its sentinels and master name), else null. */
    private final @Nullable RedisURI sentinelUri;
    private @Nullable StatefulRedisSentinelConnection<String, String> sentinels;

    private Link(StatefulConnection<String, String> connection, RedisClusterCommands<String, String> commands,
        @Nullable StatefulRedisClusterConnection<String, String> cluster, @Nullable AbstractRedisClient client,
        @Nullable ClientResources resources, @Nullable RedisURI sentinelUri) {
      this.sentinel = sentinelUri != null;
      this.sentinelUri = sentinelUri;
      this.connection = connection;
      this.commands = commands;
      this.cluster = cluster;
      this.client = client;
      this.resources = resources;
    }

    /** Over a connection to one Redis the caller owns. */
    static Link of(StatefulRedisConnection<String, String> connection) {
      return new Link(connection, connection.sync(), null, null, null, null);
    }

    /** Over a cluster connection the caller owns. */
    static Link of(StatefulRedisClusterConnection<String, String> connection) {
      return new Link(connection, connection.sync(), connection, null, null, null);
    }

    StatefulConnection<String, String> connection() {
      return connection;
    }

    /** Whether this link reaches one server through a plain URI or connection (neither Sentinel nor Cluster). */
    boolean plain() {
      return cluster == null && sentinelUri == null;
    }

    /** Commands routed by their first key: in a cluster, to the master of that key's slot. */
    RedisClusterCommands<String, String> commands() {
      return commands;
    }

    /**
     * The commands of the one server that owns {@code key}: the same as {@link #commands()} outside a cluster; in a
     * cluster, a connection to the master of the key's slot, for commands that carry no key but must run where the
     * key lives ({@code WAIT} after a write, {@code INFO}).
     *
     * @throws GeneIdException if no known node serves the slot (the topology is being refreshed)
     */
    RedisClusterCommands<String, String> serverOf(String key) {
      StatefulRedisClusterConnection<String, String> c = cluster;
      if (c == null) {
        return commands;
      }
      int slot = SlotHash.getSlot(key);
      RedisClusterNode node = c.getPartitions().getPartitionBySlot(slot);
      if (node == null) {
        throw new GeneIdException("no node of the Redis Cluster is known to serve slot " + slot + " (key " + key
            + ") yet");
      }
      try {
        return c.getConnection(node.getNodeId()).sync();
      } catch (RedisException e) {
        throw new GeneIdException("cannot reach the master of slot " + slot + " of the Redis Cluster (node "
            + node.getUri().getHost() + ":" + node.getUri().getPort() + "): " + e.getMessage(), e);
      }
    }

    /**
     * After a write its replicas did not acknowledge, on a link of its own to a Sentinel master: drops the
     * connection ({@code CLIENT KILL ID} of itself), so that the client reconnects to whatever master the sentinels
     * name now. A master demoted by a failover keeps its clients, and keeps taking writes that will be lost, until
     * the sentinels reconfigure it (seconds later); its replicas are gone, so this is how its clients notice.
     */
    void reconnectIfSentinel() {
      if (!sentinel || client == null) {
        return;
      }
      try {
        commands.clientKill(new KillArgs().id(commands.clientId()).skipme(false));
      } catch (RedisException e) {
        // the connection is gone already, or going: it reconnects through the sentinels either way
      }
    }

    /**
     * On a link of its own to a Sentinel master, after a write on a server that has no replica connected and none
     * seen before (so {@code WAIT} had nothing to wait for): refuses the write if the sentinels list that server,
     * {@code runId}, as a replica ({@code SENTINEL REPLICAS}, whose {@code runid} they refresh every second). After a
     * {@code SENTINEL FAILOVER} the old master goes on taking writes, with no replica, for seconds until the sentinels
     * reconfigure it, while they already list it as a replica of the new master: a link that meets it for the first
     * time has seen none of its replicas, and without this check it would hand out a worker id (or a segment range)
     * that the new master hands out again. While a failover is under way the sentinels list the replica being
     * promoted ({@code promoted}), and right after it the old master without its run_id until they reach it: a
     * replica that is not down and is being promoted or not identified yet refuses too (a dead old master is
     * identified as down after {@code down-after-milliseconds}). The new master, alone until the old one replicates
     * it, and a master whose replicas are down still count. Drops the connection ({@link #reconnectIfSentinel()})
     * when it refuses.
     *
     * @throws GeneIdException if the sentinels list the server as a replica, or a live replica that is being promoted
     *     or not identified yet, or none of them answers
     */
    void checkAloneMaster(String runId, String what) {
      RedisURI uri = sentinelUri;
      if (uri == null || client == null) {
        return;
      }
      for (Map<String, String> r : sentinelReplicas(uri, what + ": the server that took it has no replica")) {
        String flags = r.getOrDefault("flags", "");
        String known = r.getOrDefault("runid", "");
        if (runId.equals(known)) {
          refuseDemoted(uri, r, runId, what);
        }
        boolean down = flags.contains("s_down") || flags.contains("o_down");
        if (!down && (known.isEmpty() || flags.contains("promoted"))) {
          reconnectIfSentinel();
          throw new GeneIdException(what + ": the server that took it has no replica, and the sentinels list a"
              + " replica of master '" + uri.getSentinelMasterId() + "' that is being promoted or that they have"
              + " not identified yet (" + r.get("ip") + ":" + r.get("port") + ", " + flags + "): a failover is"
              + " under way and this server may be the master it replaces; it cannot count until it is over");
        }
      }
    }

    /**
     * The replicas a failover could promote in place of the server that owns {@code key}, as the deployment lists
     * them, whatever their state: on a Sentinel link the replicas the sentinels list for the master
     * ({@code SENTINEL REPLICAS}: they keep listing a replica whose link is cut, that is down, or the old master of a
     * failover, each of which they may promote once it answers again), except those with {@code replica-priority 0},
     * which they never promote; in a cluster the replicas the topology lists for the master of the key's slot
     * ({@code CLUSTER NODES}, failed ones included); 0 on a plain {@code redis://} link, which cannot see a replica
     * that is not connected. On a Sentinel link, refuses a server the sentinels list as a replica (a master demoted
     * by a failover, still taking writes), as {@link #checkAloneMaster} does.
     *
     * @param runId the run_id of the server the write went to
     * @throws GeneIdException if the server is a replica as the sentinels see it, or no sentinel answers
     */
    int deploymentReplicas(String key, String runId, String what) {
      StatefulRedisClusterConnection<String, String> c = cluster;
      if (c != null) {
        RedisClusterNode master = c.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
        int n = 0;
        for (RedisClusterNode node : c.getPartitions()) {
          n += master != null && master.getNodeId().equals(node.getSlaveOf()) ? 1 : 0;
        }
        return n;
      }
      RedisURI uri = sentinelUri;
      if (uri == null || client == null) {
        return 0;
      }
      int n = 0;
      for (Map<String, String> r : sentinelReplicas(uri, what)) {
        if (runId.equals(r.getOrDefault("runid", ""))) {
          refuseDemoted(uri, r, runId, what);
        }
        n += "0".equals(r.getOrDefault("slave-priority", r.getOrDefault("replica-priority", ""))) ? 0 : 1;
      }
      return n;
    }

    private List<Map<String, String>> sentinelReplicas(RedisURI uri, String what) {
      try {
        return sentinels(uri).sync().replicas(uri.getSentinelMasterId());
      } catch (RedisException e) {
        dropSentinels();
        throw new GeneIdException(what + ": no sentinel answered which replicas master '" + uri.getSentinelMasterId()
            + "' has: " + e.getMessage(), e);
      }
    }

    private void refuseDemoted(RedisURI uri, Map<String, String> r, String runId, String what) {
      reconnectIfSentinel();
      throw new GeneIdException(what + ": the server that took it (" + r.get("ip") + ":" + r.get("port")
          + ", run_id " + runId + ") is a replica of master '" + uri.getSentinelMasterId() + "' as the"
          + " sentinels see it: a master demoted by a failover, still taking writes that will be lost; the"
          + " connection goes to the master the sentinels name");
    }

    private synchronized StatefulRedisSentinelConnection<String, String> sentinels(RedisURI uri) {
      StatefulRedisSentinelConnection<String, String> c = sentinels;
      if (c == null || !c.isOpen()) {
        c = ((RedisClient) Objects.requireNonNull(client)).connectSentinel(uri);
        c.setTimeout(connection.getTimeout());
        sentinels = c;
      }
      return c;
    }

    private synchronized void dropSentinels() {
      StatefulRedisSentinelConnection<String, String> c = sentinels;
      sentinels = null;
      if (c != null) {
        c.closeAsync();
      }
    }

    @Override
    public void close() {
      if (client == null) {
        return;
      }
      dropSentinels();
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      if (resources != null) {
        resources.shutdown(0, 2, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Waits after a write until the replicas have it ({@code WAIT}), so that a failover cannot lose it: per server
   * (its {@code run_id:master_replid}), the most replicas ever seen connected to it must acknowledge, so a replica
   * that dropped off (and could still be promoted with what it had) is waited for too. A new master (a failover or
   * restart) starts from the replicas it has. Without replicas it waits for nothing, but on a Sentinel link a server
   * without replicas counts only if the sentinels do not list it as a replica ({@link Link#checkAloneMaster}): a
   * link that meets a demoted master for the first time has seen none of its replicas. A wait for the deployment
   * (segment claims) also waits for every replica the deployment lists ({@link Link#deploymentReplicas}), so a process
   * that has seen none of them (it started while they were cut off or down) still waits for them.
   */
  static final class ReplicaWait {
    private final ConcurrentHashMap<String, Integer> seen = new ConcurrentHashMap<>();
    private final long waitMillis;
    private final boolean deployment;

    /**
     * @param deployment whether to wait for every replica the deployment lists too
     *     ({@link Link#deploymentReplicas}): segment claims, which have no other defence against a failover to a
     *     replica that missed them. Leases do not: a promoted replica starts a new pool generation (its run_id), so a
     *     lease lost with the old master is never trusted, and waiting for a replica that is down would fence every
     *     holder while it is down.
     */
    ReplicaWait(Duration timeout, boolean deployment) {
      this.waitMillis = Math.max(1, timeout.toMillis() / 2);
      this.deployment = deployment;
    }

    /** A wait for the replicas this process has seen connected, not the deployment's (leases, bucket maps). */
    ReplicaWait(Duration timeout) {
      this(timeout, false);
    }

    /** {@link #await(Link, RedisClusterCommands, String, String, int, String)} of a wait without the deployment's. */
    void await(Link link, RedisClusterCommands<String, String> server, String identity, int connected, String what) {
      if (deployment) {
        throw new IllegalStateException("a wait for the deployment's replicas needs the key written");
      }
      await(link, server, "", identity, connected, what);
    }

    /**
     * {@code WAIT} on {@code server} (the connection the write went over) for the replicas of {@code identity}; when
     * too few answer, a Sentinel link reconnects ({@link Link#reconnectIfSentinel()}). With no replica to wait for, on
     * a Sentinel link, {@link Link#checkAloneMaster} (a wait for the deployment has checked the sentinels' list).
     *
     * @param key the key written, whose slot's master the deployment's replicas are counted for (in a cluster)
     * @param connected the replicas the server had when it wrote
     * @param what what was written, for the message
     * @throws GeneIdException if fewer acknowledged within half the command timeout, or a Sentinel master without
     *     replicas is a replica as the sentinels see it
     */
    void await(Link link, RedisClusterCommands<String, String> server, String key, String identity, int connected,
        String what) {
      int colon = identity.indexOf(':');
      String runId = colon < 0 ? identity : identity.substring(0, colon);
      int seenHere = seen.merge(identity, connected, Math::max);
      int listed = deployment ? link.deploymentReplicas(key, runId, what) : 0;
      int expected = Math.max(seenHere, listed);
      if (expected > 0) {
        long acked = server.waitForReplication(expected, waitMillis);
        if (acked < expected) {
          link.reconnectIfSentinel();
          String whose = listed >= seenHere ? "the deployment lists for the master (cut off, down or not in sync"
              + " yet: each may be promoted once it answers; remove a replica gone for good from the deployment:"
              + " SENTINEL RESET, CLUSTER FORGET)" : "seen connected to the master (a replica removed for good is"
              + " forgotten when this process restarts)";
          throw new GeneIdException(what + ": only " + acked + " of the " + expected + " replicas " + whose
              + " acknowledged it within " + waitMillis + " ms, so a failover could lose it");
        }
      } else if (!deployment) {
        link.checkAloneMaster(runId, what);
      }
    }
  }

  /**
   * A parsed store URI: one Redis or Sentinel URI, or the seed nodes of a cluster.
   *
   * @param uris the URI, or the cluster's seed nodes
   * @param cluster whether the URI named a Redis Cluster
   */
  record Target(List<RedisURI> uris, boolean cluster) {
    RedisURI first() {
      return uris.get(0);
    }
  }

  /**
   * Connects to {@code target} with a client of its own (see the class comment).
   *
   * @throws RedisException if Redis cannot be reached (the client is shut down first)
   */
  static Link connect(Target target, Duration timeout) {
    return connect(target, timeout, DefaultClientResources.builder().reconnectDelay(RECONNECT_DELAY).build());
  }

  /** {@link #connect(Target, Duration)} with resources of the caller's making, which the link then owns. */
  static Link connect(Target target, Duration timeout, ClientResources resources) {
    // the handshake runs under the URI's timeout: give a first connection of a busy JVM the connect timeout, then
    // hold every command to the command timeout (TimeoutOptions.enabled(): the connection's timeout, set below)
    for (RedisURI uri : target.uris()) {
      uri.setTimeout(connectTimeout(timeout));
    }
    SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout(timeout)).build();
    AbstractRedisClient client = null;
    try {
      if (target.cluster()) {
        RedisClusterClient cluster = RedisClusterClient.create(resources, target.uris());
        client = cluster;
        cluster.setOptions(ClusterClientOptions.builder()
            .autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .socketOptions(socket)
            .timeoutOptions(TimeoutOptions.enabled(timeout))
            // a failover moves slots: learn it from redirects and lost connections at once, and every second anyway
            .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(Duration.ofSeconds(1))
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(Duration.ofMillis(200))
                .refreshTriggersReconnectAttempts(2)
                .build())
            .build());
        StatefulRedisClusterConnection<String, String> connection = cluster.connect();
        connection.setTimeout(timeout);
        return new Link(connection, connection.sync(), connection, cluster, resources, null);
      }
      RedisClient single = RedisClient.create(resources, target.first());
      client = single;
      single.setOptions(ClientOptions.builder()
          .autoReconnect(true)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .socketOptions(socket)
          .timeoutOptions(TimeoutOptions.enabled())
          .build());
      StatefulRedisConnection<String, String> connection = single.connect();
      connection.setTimeout(timeout);
      return new Link(connection, connection.sync(), null, single, resources,
          target.first().getSentinels().isEmpty() ? null : target.first());
    } catch (RuntimeException e) {
      if (client != null) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw e;
    }
  }

  /**
   * The connect timeout: the command timeout, but at least 2 s. A lease's command timeout may be 100 ms, too short for
   * a first connection of a JVM that is still starting (and reconnecting never blocks a command: they are rejected
   * while disconnected).
   */
  static Duration connectTimeout(Duration timeout) {
    return timeout.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : timeout;
  }

  /**
   * Why a connection to {@code description} failed, for a message that starts with what was being reached: an
   * authentication failure (a wrong or missing password: {@code WRONGPASS}, {@code NOAUTH}, {@code ERR AUTH ...})
   * says so, rather than "cannot reach".
   */
  static String connectFailure(String what, String description, RedisException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.startsWith("WRONGPASS") || m.startsWith("NOAUTH") || m.startsWith("ERR AUTH")
          || m.startsWith("ERR invalid password")) {
        return what + ", Redis at " + description + ", refused the credentials of the URI (authentication failed: "
            + m + "): check the user and password";
      }
    }
    return "cannot reach " + what + ", Redis at " + description + ": " + e.getMessage();
  }

  /** What a "must be a Redis URI" message lists for a URI of Redis Sentinel or Cluster. */
  static final String HA_FORMS = "; Sentinel: redis-sentinel://[:password@]host1:26379,host2:26379/0#mymaster,"
      + " Cluster: redis-cluster://[:password@]host1:6379,host2:6379";

  /**
   * Parses a store URI given as setting {@code name}: {@code redis://}, {@code rediss://} or {@code redis-socket://}
   * (one Redis), {@code redis-sentinel://} (Lettuce's form: the sentinels, then {@code #<master name>} or
   * {@code ?sentinelMasterId=}), or a Redis Cluster: {@code redis-cluster://} (or {@code rediss-cluster://} for TLS)
   * with one or more seed nodes {@code host:port,host:port}, or {@code redis://} / {@code rediss://} with more than
   * one {@code host:port}. A URI that does not parse is refused with a message that shows only its scheme and what
   * follows its last {@code @} (never a password, which may hold {@code / @ : %} or spaces), and without the
   * parser's own message, which repeats the whole text.
   *
   * @throws IllegalArgumentException naming the setting
   */
  static Target parse(String name, String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    if ((lower.startsWith("redis-sentinel://") || lower.startsWith("rediss-sentinel://")) && !text.contains("#")
        && !lower.contains("sentinelmasterid=")) {
      throw new InvalidSettingException(name, "'" + StoreUrls.describe(text) + "'", "a redis-sentinel URI with the"
          + " master's name (#<master name>, e.g. redis-sentinel://host1:26379,host2:26379/0#mymaster)");
    }
    try {
      Target target = target(text);
      for (RedisURI uri : target.uris()) {
        if (uri.getHost() == null && uri.getSocket() == null && uri.getSentinels().isEmpty()) {
          throw new IllegalArgumentException("no host");
        }
      }
      if (target.cluster() && target.first().getDatabase() != 0) {
        throw new InvalidSettingException(name, "'" + StoreUrls.describe(text) + "' (database "
            + target.first().getDatabase() + ")", "database 0 for a Redis Cluster, which has only database 0");
      }
      return target;
    } catch (RuntimeException e) {
      if (e instanceof InvalidSettingException) {
        throw e;
      }
      boolean ha = lower.startsWith("redis-sentinel") || lower.startsWith("rediss-sentinel") || lower.contains(",")
          || CLUSTER.matcher(text).matches();
      throw new InvalidSettingException(name, "'" + StoreUrls.describe(text) + "' (" + e.getClass().getSimpleName()
          + "; a password with reserved characters must be percent-encoded" + (ha ? HA_FORMS : "") + ")",
          "a Redis URI such as redis://127.0.0.1:6379/0 or redis://:password@host:6379/0");
    }
  }

  private static final Pattern CLUSTER = Pattern.compile("(?i)(rediss?)-cluster://(.*)", Pattern.DOTALL);
  private static final Pattern PLAIN = Pattern.compile("(?i)(rediss?)://(.*)", Pattern.DOTALL);

  private static Target target(String text) {
    Matcher cluster = CLUSTER.matcher(text);
    if (cluster.matches()) {
      return new Target(seeds(cluster.group(1), cluster.group(2)), true);
    }
    Matcher plain = PLAIN.matcher(text);
    if (plain.matches()) {
      List<RedisURI> seeds = seeds(plain.group(1), plain.group(2));
      if (seeds.size() > 1) {
        return new Target(seeds, true);
      }
    }
    return new Target(List.of(RedisURI.create(text)), false);
  }

  /** {@code [userinfo@]host:port,host:port[/db][?query]} as one URI per host, each with the user info and the rest. */
  private static List<RedisURI> seeds(String scheme, String rest) {
    int at = rest.lastIndexOf('@');
    String userInfo = at >= 0 ? rest.substring(0, at + 1) : "";
    String address = rest.substring(at + 1);
    int end = address.length();
    for (char c : new char[] {'/', '?', '#'}) {
      int k = address.indexOf(c);
      end = k >= 0 ? Math.min(end, k) : end;
    }
    String tail = address.substring(end);
    List<RedisURI> uris = new ArrayList<>();
    for (String host : address.substring(0, end).split(",", -1)) {
      if (host.isBlank()) {
        throw new IllegalArgumentException("empty host");
      }
      uris.add(RedisURI.create(scheme.toLowerCase(Locale.ROOT) + "://" + userInfo + host.trim() + tail));
    }
    return List.copyOf(uris);
  }

  /**
   * The store as {@code redis://host:port/db}, {@code redis-sentinel://host:port,host:port/db#master} or
   * {@code redis-cluster://host:port,host:port}: never the password or other parts of the URI.
   */
  static String describe(Target target) {
    if (target.cluster()) {
      StringBuilder b = new StringBuilder("redis-cluster://");
      for (RedisURI uri : target.uris()) {
        b.append(b.length() > 16 ? "," : "").append(uri.getHost()).append(':').append(uri.getPort());
      }
      return b.toString();
    }
    return describe(target.first());
  }

  /** The store as {@code redis://host:port/db}: never the password or other parts of the URI. */
  static String describe(RedisURI uri) {
    if (!uri.getSentinels().isEmpty()) {
      StringBuilder b = new StringBuilder("redis-sentinel://");
      for (RedisURI s : uri.getSentinels()) {
        b.append(b.length() > 17 ? "," : "").append(s.getHost()).append(':').append(s.getPort());
      }
      return b + "/" + uri.getDatabase() + "#" + uri.getSentinelMasterId();
    }
    if (uri.getHost() != null) {
      return "redis://" + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    }
    return "redis-socket://" + uri.getSocket() + "/" + uri.getDatabase();
  }

  /** The value of {@code name} in an {@code INFO} reply, or null. */
  static @Nullable String infoField(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return null;
  }

  /**
   * Refuses a Redis older than 5.0 (the lease scripts rely on script effects replication, the default from 5.0 on,
   * to call TIME and INFO before they write).
   *
   * @throws GeneIdException naming the store and the version found
   */
  static void checkVersion(@Nullable String version, String what) {
    if (version == null) {
      throw new GeneIdException(what + " did not report its version (INFO server has no redis_version)");
    }
    Matcher m = VERSION.matcher(version);
    if (!m.matches()) {
      throw new GeneIdException(what + " reports a version gene-id cannot read: redis_version " + version);
    }
    if (Integer.parseInt(m.group(1)) < 5) {
      throw new GeneIdException(what + " runs Redis " + version + "; gene-id needs Redis 5.0 or later (its lease "
          + "scripts read the server's clock and run id before they write, which older servers refuse or replicate "
          + "wrongly). Upgrade Redis or use another store");
    }
  }

  /**
   * Refuses a server whose {@code maxmemory-policy} may evict keys that carry no TTL ({@code allkeys-lru},
   * {@code allkeys-lfu}, {@code allkeys-random}): none of gene-id's keys carries a TTL, so {@code noeviction} and the
   * {@code volatile-*} policies never drop them (under {@code volatile-*} a full server refuses gene-id's writes, as
   * {@code noeviction} does, rather than dropping its keys). The policy is read from {@code INFO memory}
   * ({@code maxmemory_policy}), which managed services that rename or disable {@code CONFIG} still answer, so there is
   * no case where it cannot be read and must be trusted; a server that does not report it is refused too. The policy
   * counts even without a {@code maxmemory} limit: {@code CONFIG SET maxmemory} starts evicting at any time.
   *
   * @param what the store, for the message: "the Redis segment store at redis://..."
   * @param keys the keys the policy could drop, for the message
   * @param loss what follows when they are dropped
   * @throws GeneIdException naming the policy, the keys and the fix
   */
  static void checkEviction(RedisClusterCommands<String, String> server, String what, String keys, String loss) {
    String policy = infoField(server.info("memory"), "maxmemory_policy");
    String refusal = evictionRefusal(policy, what, keys, loss);
    if (refusal != null) {
      throw new GeneIdException(refusal);
    }
  }

  /** Why {@link #checkEviction} refuses {@code policy} (null: accepted). */
  static @Nullable String evictionRefusal(@Nullable String policy, String what, String keys, String loss) {
    if (policy != null && !policy.startsWith("allkeys-")) {
      return null;
    }
    String found = policy == null ? "does not report its maxmemory-policy (INFO memory has no maxmemory_policy)"
        : "runs with maxmemory-policy " + policy;
    return what + " " + found + ": when memory runs short Redis may evict " + keys + ", and " + loss + ". Set "
        + "maxmemory-policy noeviction (or a volatile-* policy: gene-id's keys carry no TTL) on that server, or give "
        + "gene-id a Redis of its own";
  }

  /**
   * The servers a store's keys may live on, for checks at build: the one server of a {@code redis://} or Sentinel
   * link, every master of a cluster (from the client's topology).
   */
  static List<RedisClusterCommands<String, String>> masters(Link link) {
    StatefulRedisClusterConnection<String, String> c = link.cluster;
    if (c == null) {
      return List.of(link.commands());
    }
    List<RedisClusterCommands<String, String>> masters = new ArrayList<>();
    for (RedisClusterNode node : c.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
        masters.add(c.getConnection(node.getNodeId()).sync());
      }
    }
    return masters;
  }

  /** {@code INFO server} of the connection's server, checked for a version of 5.0 or later. */
  static String checkedServerInfo(RedisClusterCommands<String, String> commands, String what) {
    String info = commands.info("server");
    checkVersion(infoField(info, "redis_version"), what);
    return info;
  }

  /**
   * A key prefix for leases and segments alike: non-empty and free of {@code { }} (the lease keys put the space in a
   * hash tag).
   *
   * @throws IllegalArgumentException naming the prefix
   */
  static String checkKeyPrefix(String keyPrefix) {
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    if (keyPrefix.isBlank() || keyPrefix.contains("{") || keyPrefix.contains("}")) {
      throw new InvalidSettingException("keyPrefix", "'" + keyPrefix + "'", "non-empty and free of { }");
    }
    return keyPrefix;
  }
}
