package io.geneid.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/** {@link AbstractTablesCommandTest} on the PostgreSQL service on loopback, in databases of this run. */
class PostgreSqlTablesCommandTest extends AbstractTablesCommandTest {
  @Override
  String url(String db) {
    return "jdbc:postgresql://127.0.0.1:5432/" + (db.equals("test") ? db : prefix + "_" + db);
  }

  @Override
  String user() {
    return "postgres";
  }

  @Override
  void create(String db) throws Exception {
    admin("CREATE DATABASE " + prefix + "_" + db);
  }

  @Override
  void drop(String db) throws Exception {
    admin("DROP DATABASE IF EXISTS " + prefix + "_" + db + " WITH (FORCE)");
  }

  private void admin(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url("test"), user(), "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
