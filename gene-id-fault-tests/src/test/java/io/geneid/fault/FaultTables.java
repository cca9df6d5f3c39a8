package io.geneid.fault;

import io.geneid.core.testing.TestTime;
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

  /**
   * The connect (and PostgreSQL login) timeout of the URLs, for this JVM and the worker JVMs: 2 s at the tests' time
   * scale, so that a busy machine's slow start-up connection is not a failure. Without a login timeout in the URL the
   * JDBC assigner gives PostgreSQL one of a third of the TTL (1 s here), which JVMs starting on a loaded machine miss.
   */
  static final long CONNECT_SECONDS = (TestTime.millis(2_000) + 999) / 1000;
  /**
   * {@code jdbc-statement-timeout} for the worker JVMs: what the suite's TTLs (1 to 3 s) give by default, a third of
   * the TTL and at least 1 s, at the tests' time scale. It also bounds how long the assigner waits for a connection
   * (twice it, at least 5 s), which cold JVMs on a loaded machine missed ("no connection within 5000 ms"), so that no
   * JVM of a run issued. The lease rule does not depend on it: a holder fences itself by its own deadline.
   */
  static final String STATEMENT_TIMEOUT = TestTime.seconds(1).toMillis() + "ms";

  enum Kind {
    MARIADB(3306, "jdbc:mariadb://127.0.0.1:%d/test?user=root&connectTimeout=" + CONNECT_SECONDS * 1000),
    POSTGRESQL(5432, "jdbc:postgresql://127.0.0.1:%d/test?user=postgres&connectTimeout=" + CONNECT_SECONDS
        + "&loginTimeout=" + CONNECT_SECONDS);

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
