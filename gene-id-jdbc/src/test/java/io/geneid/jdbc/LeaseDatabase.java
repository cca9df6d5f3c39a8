package io.geneid.jdbc;

import io.geneid.core.testing.TestTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.h2.tools.Server;

/**
 * A database of its own for one test class, on MariaDB (3306), PostgreSQL (5432) or an H2 TCP server, created with a
 * name unique to this run ({@code gid_lease_jdbc_<random>}) and dropped afterwards. A service that is down fails the
 * test with a message saying so.
 */
final class LeaseDatabase implements AutoCloseable {

  enum Kind { MARIADB, POSTGRESQL, H2 }

  /**
   * The drivers' connect and socket timeouts in {@link #url(int)}: 2 s at the tests' time scale, so that a busy
   * machine's slow connection or query is not an error, and they keep their proportion to the tests' scaled TTLs.
   */
  static final long DRIVER_TIMEOUT_MILLIS = TestTime.millis(2_000);

  final Kind kind;
  final String name = "gid_lease_jdbc_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  final String table = "gene_id_worker_lease";
  private final Server h2;

  LeaseDatabase(Kind kind) {
    this.kind = kind;
    try {
      switch (kind) {
        case MARIADB:
          h2 = null;
          admin("CREATE DATABASE " + name);
          break;
        case POSTGRESQL:
          h2 = null;
          admin("CREATE DATABASE " + name);
          break;
        default:
          h2 = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
          break;
      }
    } catch (SQLException e) {
      throw new AssertionError(kind + " must run on 127.0.0.1:" + servicePort(kind) + " for these tests (see .ci/run): "
          + e, e);
    }
  }

  private static int servicePort(Kind kind) {
    return kind == Kind.MARIADB ? 3306 : 5432;
  }

  int port() {
    return kind == Kind.H2 ? h2.getPort() : servicePort(kind);
  }

  String url(int port) {
    switch (kind) {
      case MARIADB:
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + name + "?user=root&connectTimeout=" + DRIVER_TIMEOUT_MILLIS
            + "&socketTimeout=" + DRIVER_TIMEOUT_MILLIS;
      case POSTGRESQL:
        long seconds = (DRIVER_TIMEOUT_MILLIS + 999) / 1000; // PgJDBC takes whole seconds
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?user=postgres&connectTimeout=" + seconds
            + "&socketTimeout=" + seconds;
      default:
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + name + ";DB_CLOSE_DELAY=-1";
    }
  }

  /** The URL through {@code port} without the driver's own connect and socket timeouts (a silent store would hang). */
  String plainUrl(int port) {
    switch (kind) {
      case MARIADB:
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + name + "?user=root";
      case POSTGRESQL:
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?user=postgres";
      default:
        return url(port);
    }
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url(port()));
  }

  void update(String sql, Object... args) {
    try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new AssertionError(sql + ": " + e, e);
    }
  }

  private void admin(String sql) throws SQLException {
    String url = kind == Kind.MARIADB ? "jdbc:mariadb://127.0.0.1:3306/test?user=root"
        : "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() {
    try {
      switch (kind) {
        case MARIADB:
          admin("DROP DATABASE IF EXISTS " + name);
          break;
        case POSTGRESQL:
          admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
          break;
        default:
          try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
          }
          h2.stop();
          break;
      }
    } catch (SQLException e) {
      throw new AssertionError("could not drop " + name + ": " + e, e);
    }
  }
}
