package io.geneid.shardingsphere;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * {@code segment-store: jdbc} with the segment table on the PostgreSQL of 127.0.0.1:5432 (database {@code test}, a
 * table unique to the run, created by {@code jdbc-create-table} and dropped afterwards); the sharded data is on H2.
 */
class JdbcSegmentShardingEndToEndTest extends AbstractSegmentShardingEndToEndTest {

  private static final String URL = Backend.POSTGRESQL.url("test");
  private final String table = run + "_segment";

  @Override
  void beforeStart() throws SQLException {
    Backend.POSTGRESQL.admin("SELECT 1"); // fails with the address when PostgreSQL is down
  }

  @Override
  String keyGeneratorProps() {
    return "segment-store: jdbc\n"
        + "jdbc-url: " + URL + "\n"
        + "jdbc-username: postgres\n"
        + "jdbc-table: " + table + "\n"
        + "jdbc-create-table: true\n"
        + "min-step: 10\n"
        + "max-step: 100";
  }

  @Override
  long storeCounter(String tag) throws SQLException {
    try (Connection c = DriverManager.getConnection(URL, "postgres", "");
        PreparedStatement ps = c.prepareStatement("SELECT max_id FROM " + table + " WHERE biz_tag = ?")) {
      ps.setString(1, tag);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("no row for tag " + tag + " in " + table);
        }
        return rs.getLong(1);
      }
    }
  }

  @Override
  void cleanStore() throws SQLException {
    Backend.POSTGRESQL.admin("DROP TABLE IF EXISTS " + table);
  }
}
