package io.geneid.redis;

import io.geneid.core.testing.TestTime;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code redis-server} processes of a test's own (plain, cluster nodes, sentinels) on free loopback ports, each with
 * its own directory, stopped by the {@link Process} this object started (never by name). The building block of
 * {@link PrivateSentinel} and {@link PrivateCluster}.
 */
final class RedisProcesses implements AutoCloseable {

  private final Path dir;
  private final Map<Integer, Process> processes = new ConcurrentHashMap<>();
  private final Map<Integer, List<String>> commands = new ConcurrentHashMap<>();
  private final Map<Integer, StatefulRedisConnection<String, String>> connections = new ConcurrentHashMap<>();
  private final List<RedisClient> clients = new ArrayList<>();

  RedisProcesses(Path dir) {
    this.dir = dir;
  }

  /**
   * Starts {@code redis-server} on {@code port} with {@code args} (a config file first, if any) in a directory of
   * its own.
   */
  synchronized void start(int port, List<String> args) {
    try {
      Path home = dir.resolve(Integer.toString(port));
      Files.createDirectories(home);
      List<String> command = new ArrayList<>(List.of("redis-server"));
      command.addAll(args);
      command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", home.toString(),
          "--daemonize", "no", "--logfile", home.resolve("redis.log").toString()));
      commands.put(port, command);
      launch(port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts the process on {@code port} again (after {@link #kill9(int)}), as it was first started followed by
   * {@code moreArgs} (a later option wins).
   */
  synchronized void restart(int port, List<String> moreArgs) {
    try {
      List<String> command = new ArrayList<>(commands.get(port));
      command.addAll(moreArgs);
      commands.put(port, command);
      launch(port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void launch(int port) throws IOException {
    Path home = dir.resolve(Integer.toString(port));
    Process p = new ProcessBuilder(commands.get(port)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("redis.out").toFile())).start();
    processes.put(port, p);
    await(() -> {
      if (!p.isAlive()) {
        throw new IllegalStateException("redis-server exited with " + p.exitValue() + " on port " + port + "; see "
            + home.resolve("redis.log"));
      }
      try {
        return "PONG".equals(redis(port).ping());
      } catch (RuntimeException e) {
        drop(port);
        return false;
      }
    }, Duration.ofSeconds(10), "redis-server on port " + port);
  }

  /** Commands on the process at {@code port}, over a connection of this object's own. */
  RedisCommands<String, String> redis(int port) {
    return connections.computeIfAbsent(port, p -> {
      RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + p));
      client.setDefaultTimeout(TestTime.seconds(5)); // admin commands, at the time scale
      synchronized (clients) {
        clients.add(client);
      }
      return client.connect();
    }).sync();
  }

  /** The field {@code name} of {@code INFO section} at {@code port}, or null. */
  String info(int port, String section, String name) {
    return RedisConnections.infoField(redis(port).info(section), name);
  }

  boolean isRunning(int port) {
    Process p = processes.get(port);
    return p != null && p.isAlive();
  }

  /** {@code kill -9} of the process this object started on {@code port}; waits for it to end. */
  void kill9(int port) {
    drop(port);
    Process p = processes.remove(port);
    if (p != null) {
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Options that make a data node replicate as a user of its own ({@code masteruser}), defined on every node, so a
   * test can cut a replica's link to its master with {@link #cutReplicaLinks(int)} while the replica stays up.
   */
  static List<String> replicationUser() {
    return List.of("--user", REPLICATION_USER, "on", ">" + REPLICATION_SECRET, "~*", "&*", "+@all",
        "--masteruser", REPLICATION_USER, "--masterauth", REPLICATION_SECRET);
  }

  private static final String REPLICATION_USER = "repl";
  private static final String REPLICATION_SECRET = "repl-secret";

  /**
   * Cuts the link of every replica of the master on {@code master} (started with {@link #replicationUser()}): their
   * user is turned off there and their connections killed, so they stay up, answer everyone else, and cannot
   * replicate until {@link #restoreReplicaLinks(int)}. Waits until the master lists no replica.
   */
  void cutReplicaLinks(int master) {
    redis(master).aclSetuser(REPLICATION_USER, AclSetuserArgs.Builder.off());
    redis(master).clientKill(KillArgs.Builder.user(REPLICATION_USER));
    await(() -> "0".equals(info(master, "replication", "connected_slaves")), Duration.ofSeconds(10),
        "the master on port " + master + " to lose its replicas");
  }

  /** Lets the replicas of the master on {@code master} replicate again (see {@link #cutReplicaLinks(int)}). */
  void restoreReplicaLinks(int master) {
    redis(master).aclSetuser(REPLICATION_USER, AclSetuserArgs.Builder.on());
  }

  /** {@code kill -<signal>} of the process this object started on {@code port} (e.g. STOP, CONT). */
  void signal(int port, String signal) {
    Process p = processes.get(port);
    if (p == null || !p.isAlive()) {
      throw new IllegalStateException("no process of this test runs on port " + port);
    }
    try {
      int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
      if (exit != 0) {
        throw new IllegalStateException("kill -" + signal + " " + p.pid() + " exited with " + exit);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void drop(int port) {
    StatefulRedisConnection<String, String> c = connections.remove(port);
    if (c != null) {
      c.close();
    }
  }

  Path dir() {
    return dir;
  }

  @Override
  public void close() {
    for (Integer port : List.copyOf(processes.keySet())) {
      kill9(port);
    }
    synchronized (clients) {
      for (RedisClient client : clients) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      }
      clients.clear();
    }
  }

  /**
   * Polls {@code condition} every 20 ms until it holds, or fails naming {@code what} after {@code base} times the
   * tests' time scale ({@link TestTime}).
   */
  static void await(BooleanSupplier condition, Duration base, String what) {
    Duration timeout = TestTime.scaled(base);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
