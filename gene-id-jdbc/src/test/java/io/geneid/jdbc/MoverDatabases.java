package io.geneid.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Databases of their own for one mover test: {@code gid_mover_<random>_<i>} on the shared MariaDB or PostgreSQL
 * (or H2 in memory), dropped by {@link #close()}. A service that cannot be reached fails the test, naming it.
 */
final class MoverDatabases implements AutoCloseable {

  /** The services the mover is tested on. */
  enum Kind {
    H2, MARIADB, POSTGRESQL;

    String url(String database) {
      switch (this) {
        case H2:
          return "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
        case MARIADB:
          return "jdbc:mariadb://127.0.0.1:3306/" + database;
        default:
          return "jdbc:postgresql://127.0.0.1:5432/" + database;
      }
    }

    String user() {
      return this == MARIADB ? "root" : this == POSTGRESQL ? "postgres" : "";
    }
  }

  final Kind kind;
  private final String prefix = "gid_mover_" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
  private final List<String> names = new ArrayList<>();
  private final List<HikariDataSource> pools = new ArrayList<>();

  MoverDatabases(Kind kind) {
    this.kind = kind;
  }

  /** A new database, {@code <prefix>_<i>}, and a pool of 8 on it. */
  HikariDataSource create() {
    String name = prefix + "_" + names.size();
    if (kind != Kind.H2) {
      admin("CREATE DATABASE " + name);
    }
    names.add(name);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(kind.url(name));
    config.setUsername(kind.user());
    config.setPassword("");
    config.setMaximumPoolSize(8);
    config.setMinimumIdle(0);
    config.setPoolName(name);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  /** A plain connection to the {@code i}-th database, outside any pool (a transaction held open by a test). */
  Connection connect(int i) throws SQLException {
    return DriverManager.getConnection(kind.url(names.get(i)), kind.user(), "");
  }

  @Override
  public void close() {
    pools.forEach(HikariDataSource::close);
    for (String name : names) {
      if (kind == Kind.H2) {
        try (Connection c = DriverManager.getConnection(kind.url(name), "", ""); Statement s = c.createStatement()) {
          s.execute("SHUTDOWN");
        } catch (SQLException e) {
          throw new IllegalStateException("could not drop H2 database " + name, e);
        }
      } else {
        admin(kind == Kind.POSTGRESQL ? "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"
            : "DROP DATABASE IF EXISTS " + name);
      }
    }
  }

  private void admin(String sql) {
    String url = kind.url("test");
    try (Connection c = DriverManager.getConnection(url, kind.user(), ""); Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(kind + " at " + url + " must be up for this test: " + sql + " failed: "
          + e.getMessage(), e);
    }
  }
}
