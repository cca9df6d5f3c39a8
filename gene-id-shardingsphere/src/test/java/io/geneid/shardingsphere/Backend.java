package io.geneid.shardingsphere;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** The databases the end-to-end tests run on; MariaDB and PostgreSQL are the real services on loopback. */
enum Backend {
  H2 {
    @Override
    String url(String database) {
      return "jdbc:h2:mem:" + database
          + ";MODE=MYSQL;IGNORECASE=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;DB_CLOSE_DELAY=-1";
    }

    @Override
    void create(String database) {}

    @Override
    void drop(String database) throws SQLException {
      try (Connection c = DriverManager.getConnection(url(database), user(), password());
          Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      }
    }
  },
  MARIADB {
    @Override
    String url(String database) {
      return "jdbc:mariadb://127.0.0.1:3306/" + database;
    }

    @Override
    String user() {
      return "root";
    }

    @Override
    void create(String database) throws SQLException {
      admin("CREATE DATABASE " + database);
    }

    @Override
    void drop(String database) throws SQLException {
      admin("DROP DATABASE IF EXISTS " + database);
    }
  },
  POSTGRESQL {
    @Override
    String url(String database) {
      return "jdbc:postgresql://127.0.0.1:5432/" + database;
    }

    @Override
    String user() {
      return "postgres";
    }

    @Override
    void create(String database) throws SQLException {
      admin("CREATE DATABASE " + database);
    }

    @Override
    void drop(String database) throws SQLException {
      admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  };

  abstract String url(String database);

  String user() {
    return "sa";
  }

  String password() {
    return "";
  }

  abstract void create(String database) throws SQLException;

  abstract void drop(String database) throws SQLException;

  /** Runs one statement on the service's {@code test} database; an unreachable service fails with its address. */
  void admin(String sql) throws SQLException {
    Connection c;
    try {
      c = DriverManager.getConnection(url("test"), user(), password());
    } catch (SQLException e) {
      throw new IllegalStateException(this + " at " + url("test") + " is not reachable (it must run for these"
          + " tests; .ci/run starts it): " + e.getMessage(), e);
    }
    try (c; Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
