package io.geneid.spring.boot;

import io.geneid.redis.PrivateRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL 15 cluster of a test's own that asks for a password (scram-sha-256), on a free loopback port with its
 * data in a temporary directory of its own: the shared server on 5432 trusts every password, so it cannot refuse one.
 * Run as root, the cluster's programs run as the {@code postgres} user (initdb refuses root), so the directory is
 * made directly under the system's temporary directory, where that user can reach it. {@link #close()} stops this
 * cluster only (pg_ctl on its own data directory) and deletes the directory.
 */
final class PrivatePostgres implements AutoCloseable {

  private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  private final Path dir;
  private final int port;

  private PrivatePostgres(Path dir, int port) {
    this.dir = dir;
    this.port = port;
  }

  /** Creates and starts a cluster whose user {@code postgres} has {@code password}. */
  static PrivatePostgres start(String password) {
    try {
      Path dir = Files.createTempDirectory("gene-id-pg");
      Path passwordFile = dir.resolve("password");
      Files.writeString(passwordFile, password + "\n", StandardCharsets.UTF_8);
      boolean root = "root".equals(System.getProperty("user.name"));
      if (root) {
        run(List.of("chown", "-R", "postgres", dir.toString()), dir);
      }
      PrivatePostgres pg = new PrivatePostgres(dir, PrivateRedis.freePort());
      pg.pg(root, BIN.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", "postgres",
          "--auth=scram-sha-256", "--pwfile=" + passwordFile, "-N");
      pg.pg(root, BIN.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l",
          dir.resolve("log").toString(), "-w", "-o", "-p " + pg.port + " -k " + dir
              + " -c listen_addresses=127.0.0.1 -c fsync=off", "start");
      return pg;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return port;
  }

  @Override
  public void close() {
    pg("root".equals(System.getProperty("user.name")), BIN.resolve("pg_ctl").toString(), "-D",
        dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void pg(boolean root, String... command) {
    List<String> all = new ArrayList<>();
    if (root) {
      all.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    all.addAll(List.of(command));
    run(all, dir);
  }

  private static void run(List<String> command, Path dir) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(dir.resolve("commands.log").toFile()).start();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(command + " failed: " + Files.readString(dir.resolve("commands.log")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
