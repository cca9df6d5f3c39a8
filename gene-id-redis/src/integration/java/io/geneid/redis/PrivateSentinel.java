package io.geneid.redis;

import io.geneid.core.testing.TestTime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

/**
 * A Redis Sentinel deployment of a test's own on loopback: a master, one replica and three sentinels (quorum 2,
 * {@code down-after-milliseconds 1000}, {@code failover-timeout 2000}), each a {@code redis-server} process (the
 * sentinels run {@code redis-server <config> --sentinel}, what the {@code redis-sentinel} binary is) with a directory
 * of its own; {@link #close()} kills exactly the processes it started. The data nodes keep nothing on disk, and
 * replicate as a user of their own, so a test can cut a replica's link ({@link #cutReplicaLink(int)}) or freeze a
 * node ({@link #freeze(int)}) while it stays listed by the sentinels.
 */
public final class PrivateSentinel implements AutoCloseable {

  /** The master name the sentinels monitor. */
  public static final String MASTER = "gid";

  private final RedisProcesses processes;
  private final List<Integer> nodes = new ArrayList<>();
  private final List<Integer> sentinels = new ArrayList<>();
  private final Map<Integer, StatefulRedisSentinelConnection<String, String>> sentinelConnections =
      new ConcurrentHashMap<>();
  private final List<RedisClient> sentinelClients = new CopyOnWriteArrayList<>();

  private PrivateSentinel(Path dir) {
    this.processes = new RedisProcesses(dir);
  }

  /** Starts the master, the replica (synchronised) and the sentinels (all seeing the replica). */
  public static PrivateSentinel start(Path dir) {
    PrivateSentinel s = new PrivateSentinel(dir);
    try {
      List<String> data = new ArrayList<>(List.of("--save", "", "--appendonly", "no", "--enable-debug-command", "yes"));
      // replicas log in as a user of their own, which cutReplicaLink turns off on the master
      data.addAll(RedisProcesses.replicationUser());
      int master = PrivateRedis.freePort();
      s.processes.start(master, data);
      s.nodes.add(master);
      int replica = PrivateRedis.freePort();
      List<String> replicaArgs = new ArrayList<>(data);
      replicaArgs.addAll(List.of("--replicaof", "127.0.0.1", Integer.toString(master)));
      s.processes.start(replica, replicaArgs);
      s.nodes.add(replica);
      RedisProcesses.await(() -> "up".equals(s.processes.info(replica, "replication", "master_link_status")),
          Duration.ofSeconds(10), "the replica to synchronise");
      for (int i = 0; i < 3; i++) {
        int port = PrivateRedis.freePort();
        Path conf = dir.resolve("sentinel-" + port + ".conf");
        Files.writeString(conf, String.join("\n",
            "sentinel monitor " + MASTER + " 127.0.0.1 " + master + " 2",
            "sentinel down-after-milliseconds " + MASTER + " 1000",
            "sentinel failover-timeout " + MASTER + " 2000",
            "sentinel parallel-syncs " + MASTER + " 1", ""));
        s.processes.start(port, List.of(conf.toString(), "--sentinel"));
        s.sentinels.add(port);
      }
      s.awaitHealthyReplica(replica, Duration.ofSeconds(30));
      return s;
    } catch (IOException e) {
      s.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException | Error e) {
      s.close();
      throw e;
    }
  }

  /** {@code redis-sentinel://127.0.0.1:<s1>,127.0.0.1:<s2>,127.0.0.1:<s3>/0#gid}. */
  public String uri() {
    StringBuilder b = new StringBuilder("redis-sentinel://");
    for (int port : sentinels) {
      b.append(b.length() > 17 ? "," : "").append("127.0.0.1:").append(port);
    }
    return b + "/0#" + MASTER;
  }

  /** The port of the master as the first sentinel that answers sees it. */
  public int masterPort() {
    for (int port : sentinels) {
      if (processes.isRunning(port)) {
        try {
          return ((java.net.InetSocketAddress) sentinel(port).getMasterAddrByName(MASTER)).getPort();
        } catch (RuntimeException e) {
          // the next sentinel
        }
      }
    }
    throw new IllegalStateException("no sentinel answers");
  }

  /** The data node that is not {@code port}. */
  public int other(int port) {
    return nodes.get(0) == port ? nodes.get(1) : nodes.get(0);
  }

  /** The data nodes and the sentinels, started and stopped by pid. */
  public RedisProcesses processes() {
    return processes;
  }

  /**
   * Commands on the data node at {@code port}, over a connection of this object's own (for tests outside this
   * package, e.g. gene-id-fault-tests).
   */
  public RedisCommands<String, String> node(int port) {
    return processes.redis(port);
  }

  /** The field {@code name} of {@code INFO section} on the data node at {@code port}, or null. */
  public String info(int port, String section, String name) {
    return processes.info(port, section, name);
  }

  /** {@code kill -9} of the data node this object started on {@code port}; waits for it to end. */
  public void kill9(int port) {
    processes.kill9(port);
  }

  /** Waits until the master on {@code port} has one replica, synchronised ({@code state=online}). */
  public void awaitSynchronisedReplica(int port, Duration timeout) {
    RedisProcesses.await(() -> "1".equals(processes.info(port, "replication", "connected_slaves"))
        && String.valueOf(processes.info(port, "replication", "slave0")).contains("state=online"), timeout,
        "the master on port " + port + " to have a synchronised replica");
  }

  /**
   * Starts the data node killed on {@code port} again, empty, as a replica of the master on {@code master}, and waits
   * until it is synchronised and every sentinel sees it up: the deployment can fail over again.
   */
  public void restartAsReplica(int port, int master, Duration timeout) {
    processes.restart(port, List.of("--replicaof", "127.0.0.1", Integer.toString(master)));
    awaitSynchronisedReplica(master, timeout);
    awaitHealthyReplica(port, timeout);
  }

  /**
   * Cuts the link of every replica of the master on {@code master} (their replication user is turned off there and
   * their connections killed): the replicas stay up, answer the sentinels, and cannot replicate until
   * {@link #restoreReplicaLink(int)}. Waits until the master lists no replica.
   */
  public void cutReplicaLink(int master) {
    processes.cutReplicaLinks(master);
  }

  /** Lets the replicas of the master on {@code master} replicate again (see {@link #cutReplicaLink(int)}). */
  public void restoreReplicaLink(int master) {
    processes.restoreReplicaLinks(master);
  }

  /** {@code SIGSTOP} of the data node this object started on {@code port}: it stays connected and answers nothing. */
  public void freeze(int port) {
    processes.signal(port, "STOP");
  }

  /** {@code SIGCONT} of a node {@link #freeze(int) frozen}. */
  public void thaw(int port) {
    processes.signal(port, "CONT");
  }

  /** Waits until every sentinel flags the replica on {@code port} subjectively down ({@code s_down}). */
  public void awaitReplicaDown(int port, Duration timeout) {
    RedisProcesses.await(() -> {
      for (int s : sentinels) {
        boolean down = false;
        for (Map<String, String> r : sentinel(s).replicas(MASTER)) {
          down |= String.valueOf(port).equals(r.get("port")) && r.getOrDefault("flags", "").contains("s_down");
        }
        if (!down) {
          return false;
        }
      }
      return true;
    }, timeout, "every sentinel to flag the replica on port " + port + " down");
  }

  /** {@code SENTINEL FAILOVER gid} on the first sentinel; returns the master port before it. */
  public int failover() {
    int before = masterPort();
    awaitHealthyReplica(other(before), Duration.ofSeconds(30));
    RedisProcesses.await(() -> {
      try {
        sentinel(sentinels.get(0)).failover(MASTER);
        return true;
      } catch (RedisCommandExecutionException e) {
        // NOGOODSLAVE: this sentinel's view of the replica (its last INFO, its link) is not fresh enough yet
        if (String.valueOf(e.getMessage()).startsWith("NOGOODSLAVE")) {
          return false;
        }
        throw e;
      }
    }, Duration.ofSeconds(15), "sentinel " + sentinels.get(0) + " to accept SENTINEL FAILOVER");
    return before;
  }

  /** Waits until every sentinel names a master other than {@code port} and that server says it is a master. */
  public int awaitMasterOtherThan(int port, Duration timeout) {
    RedisProcesses.await(() -> {
      try {
        int now = masterPort();
        return now != port && "master".equals(processes.info(now, "replication", "role"));
      } catch (RuntimeException e) {
        return false;
      }
    }, timeout, "a failover away from port " + port);
    return masterPort();
  }

  private RedisSentinelCommands<String, String> sentinel(int port) {
    return sentinelConnections.computeIfAbsent(port, p -> {
      RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + p));
      client.setDefaultTimeout(TestTime.seconds(5)); // admin commands, at the time scale
      sentinelClients.add(client);
      return client.connectSentinel();
    }).sync();
  }

  /** Waits until every sentinel lists the replica on {@code port} as a replica that is up. */
  public void awaitHealthyReplica(int port, Duration timeout) {
    RedisProcesses.await(() -> {
      for (int s : sentinels) {
        boolean healthy = false;
        for (Map<String, String> r : sentinel(s).replicas(MASTER)) {
          // a replica the sentinel has had no INFO from lately is one it will not promote (NOGOODSLAVE)
          if (String.valueOf(port).equals(r.get("port")) && !r.getOrDefault("flags", "").contains("down")
              && !r.getOrDefault("flags", "").contains("disconnected") && "ok".equals(r.get("master-link-status"))
              && Long.parseLong(r.getOrDefault("info-refresh", "" + Long.MAX_VALUE)) < 20_000) {
            healthy = true;
          }
        }
        if (!healthy) {
          return false;
        }
      }
      return true;
    }, timeout, "every sentinel to see the replica on port " + port + " up");
  }

  @Override
  public void close() {
    for (RedisClient client : sentinelClients) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
    processes.close();
  }

  @Override
  public String toString() {
    return "PrivateSentinel[data " + nodes + ", sentinels " + sentinels + ", " + processes.dir() + "]";
  }
}
