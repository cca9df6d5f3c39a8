package io.geneid.redis;

import io.geneid.core.testing.TestTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} of a test's own, started as a child process on a free loopback port with its data in a
 * directory of the test, so a test can break it: restart it empty, restart it from older files (an RDB snapshot or a
 * copy of the AOF taken earlier: a Redis that goes back in time), stop it with {@code SHUTDOWN NOSAVE} or
 * {@code kill -9}. {@link #close()} always stops the process it started, and only that one. Shared with other modules
 * through this module's test-jar, next to {@link TestRedis}.
 */
public final class PrivateRedis implements AutoCloseable {

  /** What the server keeps on disk. */
  public enum Persistence {
    /** Nothing ({@code save ""}, {@code appendonly no}): a restart comes back empty. */
    NONE,
    /** An RDB file written only by {@link #save()} ({@code save ""} otherwise). */
    RDB,
    /** {@code appendonly yes}, {@code appendfsync everysec}, and the RDB file of {@link #save()}. */
    AOF_EVERYSEC
  }

  private final Path dir;
  private final Persistence persistence;
  private final int port;
  private @Nullable String password;
  private @Nullable Process process;
  private @Nullable RedisClient client;
  private @Nullable StatefulRedisConnection<String, String> connection;

  private PrivateRedis(Path dir, Persistence persistence, int port) {
    this.dir = dir;
    this.persistence = persistence;
    this.port = port;
  }

  /** Starts a server with its data in {@code dir} (created if needed) on a free port. */
  public static PrivateRedis start(Path dir, Persistence persistence) {
    return start(dir, persistence, freePort(), null);
  }

  /**
   * Starts a server on {@code port} with its data in {@code dir}, first filled with the files of {@code seed} (a
   * directory made by {@link #copyFiles(Path)}) if given: e.g. a replica that lagged, promoted on the old address.
   */
  public static PrivateRedis start(Path dir, Persistence persistence, int port, @Nullable Path seed) {
    PrivateRedis redis = new PrivateRedis(dir, persistence, port);
    try {
      Files.createDirectories(dir);
      if (seed != null) {
        redis.replaceFiles(seed);
      }
      redis.startProcess();
    } catch (IOException e) {
      redis.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
    return redis;
  }

  /**
   * Starts a server without persistence that requires {@code password} ({@code requirepass}) on a free port:
   * {@link #redis()} authenticates with it; {@link #uri()} carries none.
   */
  public static PrivateRedis startWithPassword(Path dir, String password) {
    PrivateRedis redis = new PrivateRedis(dir, Persistence.NONE, freePort());
    redis.password = password;
    try {
      Files.createDirectories(dir);
      redis.startProcess();
    } catch (IOException e) {
      redis.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
    return redis;
  }

  /** A free loopback port (closed again, so a server can take it). */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return port;
  }

  /** {@code redis://127.0.0.1:<port>}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** Commands on this server, over a connection of this object's own (opened again after a restart). */
  public RedisCommands<String, String> redis() {
    if (connection == null) {
      RedisURI uri = RedisURI.create(uri());
      if (password != null) {
        uri.setPassword(password.toCharArray());
      }
      client = RedisClient.create(uri);
      client.setDefaultTimeout(TestTime.seconds(5)); // admin commands, at the time scale
      connection = client.connect();
    }
    return connection.sync();
  }

  /** The server's {@code run_id}: a new one after every start. */
  public String runId() {
    for (String line : redis().info("server").split("\r?\n")) {
      if (line.startsWith("run_id:")) {
        return line.substring(7).trim();
      }
    }
    throw new IllegalStateException("no run_id in INFO server of " + uri());
  }

  /** {@code SAVE}: writes the RDB file now. */
  public void save() {
    redis().save();
  }

  /**
   * Waits until the server has written every command it acknowledged to its append-only file ({@code aof_buffer_length}
   * 0 in {@code INFO persistence}, no rewrite under way), so that a {@link #copyFiles(Path)} holds them: a copy reads
   * the file as the operating system has it, written or fsynced. At most 10 s.
   */
  public void awaitAofWritten() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (;;) {
      String info = redis().info("persistence");
      if (info.contains("aof_enabled:1") && info.contains("aof_buffer_length:0")
          && info.contains("aof_rewrite_in_progress:0") && info.contains("aof_rewrite_scheduled:0")) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the AOF of " + this + " was not written within 10 s: " + info);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * Copies the data files as they are now ({@code dump.rdb} and the AOF directory, whichever exist) into
   * {@code target}: the state a later {@link #restartFrom(Path)} goes back to. With AOF, call
   * {@link #awaitAofWritten()} first, or the copy may miss the last writes, as a crash would.
   */
  public Path copyFiles(Path target) {
    try {
      Files.createDirectories(target);
      copyTree(dir.resolve("dump.rdb"), target.resolve("dump.rdb"));
      copyTree(dir.resolve("appendonlydir"), target.resolve("appendonlydir"));
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code kill -9}, then a start with no data files at all: a Redis without persistence after a crash. */
  public void restartEmpty() {
    kill9();
    try {
      deleteDataFiles();
      startProcess();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code kill -9}, then a start from the files of {@code saved} (see {@link #copyFiles(Path)}). */
  public void restartFrom(Path saved) {
    kill9();
    try {
      replaceFiles(saved);
      startProcess();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the server again (after {@link #kill9()} or {@link #shutdownNoSave()}) with the files it has. */
  public void restart() {
    try {
      startProcess();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code SHUTDOWN NOSAVE}, and waits for the process to end. */
  public void shutdownNoSave() {
    try {
      redis().shutdown(false);
    } catch (RuntimeException e) {
      // the server closes the connection as it goes
    }
    closeConnection();
    awaitExit(false);
  }

  /** {@code kill -9}, and waits for the process to end. */
  public void kill9() {
    closeConnection();
    awaitExit(true);
  }

  /** Whether the process this object started is running. */
  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Stops the process this object started (kill -9) and closes the connection. */
  @Override
  public void close() {
    closeConnection();
    awaitExit(true);
  }

  @Override
  public String toString() {
    return "PrivateRedis[" + uri() + ", " + persistence + ", " + dir + "]";
  }

  private void startProcess() throws IOException {
    if (isRunning()) {
      throw new IllegalStateException(this + " is running");
    }
    List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--dir", dir.toString(), "--dbfilename", "dump.rdb", "--save", "",
        "--daemonize", "no", "--logfile", dir.resolve("redis.log").toString()));
    if (password != null) {
      command.addAll(List.of("--requirepass", password));
    }
    if (persistence == Persistence.AOF_EVERYSEC) {
      command.addAll(List.of("--appendonly", "yes", "--appendfsync", "everysec", "--appenddirname", "appendonlydir"));
    } else {
      command.addAll(List.of("--appendonly", "no"));
    }
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.out").toFile()));
    process = pb.start();
    long deadline = System.nanoTime() + TestTime.seconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server exited with " + process.exitValue() + " on port " + port
            + "; see " + dir.resolve("redis.log"));
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        if ("PONG".equals(redis().ping())) {
          return;
        }
      } catch (IOException | RuntimeException e) {
        closeConnection();
        try {
          Thread.sleep(10);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(ie);
        }
      }
    }
    throw new IllegalStateException("redis-server did not answer on port " + port + " within 10 s");
  }

  private void awaitExit(boolean kill) {
    Process p = process;
    if (p == null) {
      return;
    }
    if (kill) {
      p.destroyForcibly();
    }
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  private void closeConnection() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      client = null;
    }
  }

  private void deleteDataFiles() throws IOException {
    deleteTree(dir.resolve("dump.rdb"));
    deleteTree(dir.resolve("appendonlydir"));
  }

  private void replaceFiles(Path saved) throws IOException {
    deleteDataFiles();
    copyTree(saved.resolve("dump.rdb"), dir.resolve("dump.rdb"));
    copyTree(saved.resolve("appendonlydir"), dir.resolve("appendonlydir"));
  }

  private static void copyTree(Path from, Path to) throws IOException {
    if (!Files.exists(from)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
