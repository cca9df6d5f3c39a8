package io.geneid.shardingsphere;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code worker-assigner: jdbc} with the lease table on the MariaDB of 127.0.0.1:3306 (database {@code test}, a
 * table unique to the run, created by the assigner and dropped afterwards); the sharded data is on H2.
 */
class JdbcLeaseShardingEndToEndTest extends AbstractLeasedShardingEndToEndTest {

  private static final String URL = Backend.MARIADB.url("test");
  private final String table = space + "_lease";

  @Override
  void beforeStart() throws SQLException {
    Backend.MARIADB.admin("SELECT 1"); // fails with the address when MariaDB is down
  }

  @Override
  String keyGeneratorProps() {
    return "worker-assigner: jdbc\n"
        + "jdbc-url: " + URL + "\n"
        + "jdbc-username: root\n"
        + "jdbc-table: " + table + "\n"
        + "jdbc-create-table: true\n"
        + "space: " + space + "\n"
        + "lease-ttl: 3s";
  }

  @Override
  List<Long> leasedInStore() throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(URL, "root", "");
        PreparedStatement ps = c.prepareStatement("SELECT worker_id FROM " + table
            + " WHERE space_name = ? AND expires_at > ? ORDER BY worker_id")) {
      ps.setString(1, space);
      ps.setLong(2, System.currentTimeMillis());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
    }
    return ids;
  }

  @Override
  void cleanStore() throws SQLException {
    Backend.MARIADB.admin("DROP TABLE IF EXISTS " + table);
  }
}
