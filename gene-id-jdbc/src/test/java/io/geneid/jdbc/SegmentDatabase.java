package io.geneid.jdbc;

import io.geneid.core.testing.TestTime;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A database of its own for one test (segment stores, the bucket mover): created with a name unique to this module and run on the shared service
 * (or in memory for H2), dropped by {@link #close()}. A service that cannot be reached fails the test, naming it.
 */
final class SegmentDatabase implements AutoCloseable {

  /** The databases the JDBC segment store is tested on. */
  enum Kind {
    H2(null, 0, "", ""),
    MARIADB("127.0.0.1", 3306, "root", ""),
    POSTGRESQL("127.0.0.1", 5432, "postgres", "");

    final String host;
    final int port;
    final String user;
    final String password;

    Kind(String host, int port, String user, String password) {
      this.host = host;
      this.port = port;
      this.user = user;
      this.password = password;
    }

    String url(int port, String database) {
      switch (this) {
        case H2:
          return "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
        case MARIADB:
          return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
        default:
          return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
      }
    }
  }

  final Kind kind;
  final String name;
  private final List<HikariDataSource> pools = new ArrayList<>();

  private SegmentDatabase(Kind kind, String name) {
    this.kind = kind;
    this.name = name;
  }

  /** Creates {@code gid_segment_<random>} on the service of {@code kind}. */
  static SegmentDatabase create(Kind kind) {
    String name = "gid_segment_" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
    if (kind != Kind.H2) {
      admin(kind, "CREATE DATABASE " + name);
    }
    return new SegmentDatabase(kind, name);
  }

  /** The URL of this database through {@code port} (the service's own port, or a proxy's). */
  String url(int port) {
    return kind.url(port, name);
  }

  String url() {
    return url(kind.port);
  }

  /** A pool on this database, closed with it. */
  HikariDataSource pool() {
    return pool(url(), 8);
  }

  /**
   * A pool on {@code url} that gives up on a connection after 1 s at the tests' time scale, so a store outage shows
   * quickly and a busy machine's slow connection is no outage.
   */
  HikariDataSource pool(String url, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(kind.user);
    config.setPassword(kind.password);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(TestTime.millis(1_000));
    config.setValidationTimeout(TestTime.millis(500));
    config.setInitializationFailTimeout(-1);
    config.setPoolName("segment-" + kind.name().toLowerCase(Locale.ROOT) + "-" + pools.size());
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  @Override
  public void close() {
    pools.forEach(HikariDataSource::close);
    if (kind == Kind.H2) {
      try (Connection c = DriverManager.getConnection(url(), "", ""); Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      } catch (SQLException e) {
        throw new IllegalStateException("could not drop H2 database " + name, e);
      }
    } else {
      admin(kind, kind == Kind.POSTGRESQL ? "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"
          : "DROP DATABASE IF EXISTS " + name);
    }
  }

  private static void admin(Kind kind, String sql) {
    String url = kind.url(kind.port, "test");
    try (Connection c = DriverManager.getConnection(url, kind.user, kind.password);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(kind + " at " + url + " (user " + kind.user + ") must be up for this test: "
          + sql + " failed: " + e.getMessage(), e);
    }
  }

  /** Runs the segment table's DDL ({@link JdbcSegmentStore#ddl(String)}) on {@code ds}. */
  static void createTable(javax.sql.DataSource ds) {
    try (java.sql.Connection c = ds.getConnection(); java.sql.Statement st = c.createStatement()) {
      st.execute(JdbcSegmentStore.ddl(JdbcSegmentStore.DEFAULT_TABLE));
    } catch (java.sql.SQLException e) {
      throw new AssertionError("could not create the segment table: " + e, e);
    }
  }
}
