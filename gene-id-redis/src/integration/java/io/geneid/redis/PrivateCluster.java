package io.geneid.redis;

import io.geneid.core.testing.TestTime;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of a test's own on loopback: six {@code redis-server} processes in cluster mode
 * ({@code cluster-node-timeout 1000}, nothing kept on disk), joined by
 * {@code redis-cli --cluster create ... --cluster-replicas 1 --cluster-yes}: three masters, one replica each.
 * {@link #close()} kills exactly the processes it started.
 */
public final class PrivateCluster implements AutoCloseable {

  private final RedisProcesses processes;
  private final List<Integer> ports = new ArrayList<>();
  private RedisClusterClient client;
  private StatefulRedisClusterConnection<String, String> connection;

  private PrivateCluster(Path dir) {
    this.processes = new RedisProcesses(dir);
  }

  /** Starts the six nodes, creates the cluster and waits until every node says it is ok. */
  public static PrivateCluster start(Path dir) {
    PrivateCluster c = new PrivateCluster(dir);
    try {
      List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
      for (int i = 0; i < 6; i++) {
        int port = PrivateRedis.freePort();
        List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
            dir.resolve(port + "/nodes.conf").toString(), "--cluster-node-timeout", "1000", "--save", "",
            "--appendonly", "no"));
        args.addAll(RedisProcesses.replicationUser()); // cutReplicaLink can cut a replica's link
        c.processes.start(port, args);
        c.ports.add(port);
        create.add("127.0.0.1:" + port);
      }
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      Process cli = new ProcessBuilder(create).redirectErrorStream(true)
          .redirectOutput(dir.resolve("cluster-create.out").toFile()).start();
      if (!cli.waitFor(60, TimeUnit.SECONDS) || cli.exitValue() != 0) {
        cli.destroyForcibly();
        throw new IllegalStateException("redis-cli --cluster create failed; see " + dir.resolve("cluster-create.out"));
      }
      for (int port : c.ports) {
        RedisProcesses.await(() -> "ok".equals(RedisConnections.infoField(c.processes.redis(port).clusterInfo(),
            "cluster_state")), Duration.ofSeconds(20), "node " + port + " to see the cluster ok");
      }
      for (int port : c.ports) { // every replica synchronised: a claim waits for its master's replica
        RedisProcesses.await(() -> {
          String info = c.processes.redis(port).info("replication");
          return "slave".equals(RedisConnections.infoField(info, "role"))
              ? "up".equals(RedisConnections.infoField(info, "master_link_status"))
              : "1".equals(RedisConnections.infoField(info, "connected_slaves"))
                  && String.valueOf(RedisConnections.infoField(info, "slave0")).contains("state=online");
        }, Duration.ofSeconds(30), "node " + port + " to be a synchronised master or replica");
      }
      List<RedisURI> seeds = new ArrayList<>();
      for (int port : c.ports) {
        seeds.add(RedisURI.create("redis://127.0.0.1:" + port));
      }
      c.client = RedisClusterClient.create(seeds);
      c.client.setDefaultTimeout(TestTime.seconds(5)); // admin commands, at the time scale
      c.connection = c.client.connect();
      return c;
    } catch (IOException e) {
      c.close();
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      c.close();
      throw new IllegalStateException(e);
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  /** {@code redis-cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>}: three of the six nodes as seeds. */
  public String uri() {
    return "redis-cluster://127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1) + ",127.0.0.1:"
        + ports.get(2);
  }

  /** The six ports. */
  public List<Integer> ports() {
    return List.copyOf(ports);
  }

  /** Commands on the cluster (routed by key), over a connection of this object's own. */
  public RedisAdvancedClusterCommands<String, String> redis() {
    return connection.sync();
  }

  /** The port of the master that serves {@code key}'s slot, as the nodes see it now. */
  public int masterPortOf(String key) {
    int slot = SlotHash.getSlot(key);
    for (int port : ports) {
      if (!processes.isRunning(port)) {
        continue;
      }
      for (String line : processes.redis(port).clusterNodes().split("\n")) {
        String[] f = line.split(" ");
        if (f.length < 8 || !f[2].contains("master") || f[2].contains("fail")) {
          continue;
        }
        for (int i = 8; i < f.length; i++) {
          String[] range = f[i].split("-");
          if (range[0].startsWith("[")) {
            continue;
          }
          int lo = Integer.parseInt(range[0]);
          int hi = range.length > 1 ? Integer.parseInt(range[1]) : lo;
          if (slot >= lo && slot <= hi) {
            return Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
          }
        }
      }
      break;
    }
    throw new IllegalStateException("no master serves slot " + slot + " of " + key);
  }

  /** Waits until a node other than {@code port} serves {@code key}'s slot as master and the cluster is ok. */
  public int awaitFailover(String key, int port, Duration timeout) {
    RedisProcesses.await(() -> {
      try {
        int now = masterPortOf(key);
        return now != port && "ok".equals(RedisConnections.infoField(processes.redis(now).clusterInfo(),
            "cluster_state"));
      } catch (RuntimeException e) {
        return false;
      }
    }, timeout, "a replica to take over the slot of " + key + " from port " + port);
    return masterPortOf(key);
  }

  /**
   * Commands on the node at {@code port} itself (not routed), over a connection of this object's own (for tests
   * outside this package, e.g. gene-id-fault-tests).
   */
  public RedisCommands<String, String> node(int port) {
    return processes.redis(port);
  }

  /** The port of a replica of the master on {@code masterPort}, as that master's {@code CLUSTER NODES} says. */
  public int replicaOf(int masterPort) {
    String nodes = processes.redis(masterPort).clusterNodes();
    String masterId = null;
    for (String line : nodes.split("\n")) {
      String[] f = line.split(" ");
      if (f.length > 2 && f[2].contains("myself")) {
        masterId = f[0];
      }
    }
    for (String line : nodes.split("\n")) {
      String[] f = line.split(" ");
      if (f.length > 3 && f[2].contains("slave") && !f[2].contains("fail") && f[3].equals(masterId)) {
        return Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
      }
    }
    throw new IllegalStateException("the master on port " + masterPort + " has no replica: " + nodes);
  }

  /** Waits until the master on {@code port} has one replica, synchronised ({@code state=online}). */
  public void awaitSynchronisedReplica(int port, Duration timeout) {
    RedisProcesses.await(() -> {
      String info = processes.redis(port).info("replication");
      return "1".equals(RedisConnections.infoField(info, "connected_slaves"))
          && String.valueOf(RedisConnections.infoField(info, "slave0")).contains("state=online");
    }, timeout, "the master on port " + port + " to have a synchronised replica");
  }

  /**
   * {@code CLUSTER FAILOVER} on the replica on {@code replicaPort} (a manual failover: its master stops accepting
   * writes until the replica caught up, then the replica takes over its slots and the master becomes its replica).
   */
  public void failoverTo(int replicaPort) {
    processes.redis(replicaPort).clusterFailover(false);
  }

  /**
   * Cuts the replication link of the replica of the master on {@code master}: the replica stays up and in the cluster
   * (its bus is untouched), and cannot replicate until {@link #restoreReplicaLink(int)}.
   */
  public void cutReplicaLink(int master) {
    processes.cutReplicaLinks(master);
  }

  /** Lets the replica of the master on {@code master} replicate again. */
  public void restoreReplicaLink(int master) {
    processes.restoreReplicaLinks(master);
  }

  /** {@code kill -9} of the node this object started on {@code port}; waits for it to end. */
  public void kill9(int port) {
    processes.kill9(port);
  }

  /**
   * Starts the node killed on {@code port} again, with its {@code nodes.conf} and no data: it rejoins the cluster as
   * a replica of the node that took its slots. Waits until every running node says the cluster is ok.
   */
  public void restart(int port, Duration timeout) {
    processes.restart(port, List.of());
    for (int p : ports) {
      if (processes.isRunning(p)) {
        RedisProcesses.await(() -> "ok".equals(RedisConnections.infoField(processes.redis(p).clusterInfo(),
            "cluster_state")), timeout, "node " + p + " to see the cluster ok");
      }
    }
  }

  /** The nodes, started and stopped by pid. */
  public RedisProcesses processes() {
    return processes;
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
    processes.close();
  }

  @Override
  public String toString() {
    return "PrivateCluster" + ports;
  }
}
