package io.geneid.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL 15 cluster of a test's own ({@code initdb} in a temporary directory, {@code pg_ctl} on a free
 * loopback port), or a streaming standby of one ({@code pg_basebackup -R}), so that a test can cut its replication,
 * crash it and promote it without touching the shared server. Run as root, every PostgreSQL program runs as the
 * {@code postgres} user (the server refuses root). {@link #close()} stops, through {@code pg_ctl} and the cluster's
 * own pid file, only the server this object started, and deletes its directory.
 */
final class PrivatePostgres implements AutoCloseable {

  static final Path BIN = Path.of(System.getProperty("postgres.bin", "/usr/lib/postgresql/15/bin"));
  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

  final Path dir;
  final Path data;
  final int port;
  private boolean running;

  private PrivatePostgres(Path dir, int port) {
    this.dir = dir;
    this.data = dir.resolve("data");
    this.port = port;
  }

  /** A new cluster (superuser {@code postgres}, trust authentication), started. */
  static PrivatePostgres primary() throws IOException {
    PrivatePostgres pg = new PrivatePostgres(newDir("gid-pg-primary"), freePort());
    pg.run(List.of(BIN.resolve("initdb").toString(), "-D", pg.data.toString(), "-U", "postgres", "--auth=trust",
        "-N"));
    pg.configure("postgresql.conf");
    pg.start();
    return pg;
  }

  /**
   * A hot standby of this cluster from {@code pg_basebackup -R}, streaming through {@code upstreamPort} (a proxy in
   * front of this cluster, so that a test can cut the link), started.
   */
  PrivatePostgres standby(int upstreamPort) throws IOException {
    PrivatePostgres pg = new PrivatePostgres(newDir("gid-pg-standby"), freePort());
    pg.run(List.of(BIN.resolve("pg_basebackup").toString(), "-D", pg.data.toString(), "-h", "127.0.0.1", "-p",
        Integer.toString(port), "-U", "postgres", "-R", "-X", "stream"));
    pg.configure("postgresql.auto.conf"); // after the copied postgresql.conf: this port and socket win
    Files.writeString(pg.data.resolve("postgresql.auto.conf"), "primary_conninfo = 'host=127.0.0.1 port="
        + upstreamPort + " user=postgres'\n", java.nio.file.StandardOpenOption.APPEND);
    pg.start();
    return pg;
  }

  private void configure(String file) throws IOException {
    Files.writeString(data.resolve(file), "\nport = " + port + "\nlisten_addresses = '127.0.0.1'\n"
        + "unix_socket_directories = '" + dir + "'\nfsync = off\nwal_retrieve_retry_interval = '500ms'\n",
        java.nio.file.StandardOpenOption.APPEND);
  }

  private void start() throws IOException {
    run(List.of(BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
        "-w", "-t", "60", "start"));
    running = true;
  }

  /** {@code pg_ctl promote -w}: the standby leaves recovery and takes writes (on a new timeline). */
  void promote() throws IOException {
    run(List.of(BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-w", "-t", "60", "promote"));
  }

  /** {@code pg_ctl stop -m immediate}: the server stops as on a crash, without a shutdown checkpoint. */
  void crash() throws IOException {
    run(List.of(BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
    running = false;
  }

  /**
   * The JDBC URL of database {@code postgres} here, with connect, login and socket timeouts; the connect and login
   * timeouts are those of {@link FaultTables#CONNECT_SECONDS} (2 s at the tests' time scale).
   */
  String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout="
        + FaultTables.CONNECT_SECONDS + "&loginTimeout=" + FaultTables.CONNECT_SECONDS + "&socketTimeout=5";
  }

  void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  String queryString(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Polls this standby until it has replayed the primary's WAL up to {@code lsn}. */
  void awaitReplayed(String lsn, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!"t".equals(queryString("SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the standby on port " + port + " did not replay up to " + lsn + " within "
            + timeout.toMillis() + " ms; see " + dir.resolve("server.log"));
      }
      Thread.sleep(20);
    }
  }

  private void run(List<String> command) throws IOException {
    List<String> full = new ArrayList<>();
    if (ROOT) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    Path out = dir.resolve("commands.log");
    Process p = new ProcessBuilder(full).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile())).start();
    try {
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish in 90 s; see " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + String.join(" ", command), e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " exited with " + p.exitValue() + ": "
          + Files.readString(out));
    }
  }

  private static Path newDir(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    if (ROOT) {
      UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
      Files.setOwner(dir, postgres);
    }
    return dir;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws IOException {
    if (running) {
      try {
        crash();
      } catch (IOException e) {
        // already stopped
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> {
        try {
          Files.delete(f);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
