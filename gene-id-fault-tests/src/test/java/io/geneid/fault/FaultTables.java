package io.geneid.fault;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A lease table of its own in the shared MariaDB or PostgreSQL {@code test} database, dropped afterwards. A
 * service that is down fails the test with a message saying so (see .ci/run).
 */
final class FaultTables implements AutoCloseable {

  enum Kind {
    MARIADB(3306, "jdbc:mariadb://127.0.0.1:%d/test?user=root&connectTimeout=2000"),
    POSTGRESQL(5432, "jdbc:postgresql://127.0.0.1:%d/test?user=postgres&connectTimeout=2");

    final int port;
    final String urlFormat;

    Kind(int port, String urlFormat) {
      this.port = port;
      this.urlFormat = urlFormat;
    }
  }

  final Kind kind;
  final String table = "gid_fault_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);

  FaultTables(Kind kind) {
    this.kind = kind;
    try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    } catch (SQLException e) {
      throw new AssertionError(kind + " must run on 127.0.0.1:" + kind.port + " for the fault suite (see .ci/run): "
          + e, e);
    }
  }

  /** The URL of the service itself. */
  String url() {
    return url(kind.port);
  }

  /** The URL through another port (a proxy in front of the service). */
  String url(int port) {
    return String.format(kind.urlFormat, port);
  }

  void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() throws SQLException {
    execute("DROP TABLE IF EXISTS " + table);
  }
}
