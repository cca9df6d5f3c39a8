package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.bucket.BucketFrozenException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.jdbc.core.connection.ShardingSphereConnection;
import org.apache.shardingsphere.sharding.rule.ShardingRule;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * {@code GENE_BUCKET_FREEZE} on H2: writes that touch a frozen bucket fail with the retryable
 * {@link BucketFrozenException} naming the bucket; other buckets and every read keep going; unfrozen, the same write
 * succeeds. While a bucket switches, scans are refused too, and reads by key go on.
 */
class GeneBucketFreezeTest {

  static String yaml() {
    return Rules.gene().replace("type: GENE_MOD", "type: GENE_BUCKET")
        .replace("      keyGenerateStrategy:", "      auditStrategy:\n        auditorNames: [gene_freeze]\n"
            + "        allowHintDisable: false\n      keyGenerateStrategy:")
        .replace("  keyGenerators:", "  auditors:\n    gene_freeze:\n      type: GENE_BUCKET_FREEZE\n  keyGenerators:");
  }

  static GeneBucketShardingAlgorithm algorithm(DataSource sharded, String name) throws SQLException {
    try (Connection c = sharded.getConnection()) {
      ShardingSphereConnection ss = c.unwrap(ShardingSphereConnection.class);
      ShardingRule rule = ss.getContextManager().getDatabase(ss.getCurrentDatabaseName()).getRuleMetaData()
          .getSingleRule(ShardingRule.class);
      return (GeneBucketShardingAlgorithm) rule.getShardingAlgorithms().get(name);
    }
  }

  @Test
  void writesToAFrozenBucketFailFastNamingItAndSucceedOnceItIsUnfrozen() throws Exception {
    assertThat(yaml()).contains("type: GENE_BUCKET_FREEZE").contains("auditorNames: [gene_freeze]");
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(yaml());
      GeneBucketShardingAlgorithm db = algorithm(sharded, "gene_db");
      long frozenOrder = (1001L << 6) | 5;
      long otherOrder = (1002L << 6) | 6;
      long earlierOrder = (1000L << 6) | 5;
      try (Connection c = sharded.getConnection()) {
        insertOrder(c, earlierOrder);
        BucketMap frozen = db.map().withState(List.of(5), BucketState.FROZEN).withVersion(1);
        db.useMap(frozen);

        assertRefused(() -> insertOrder(c, frozenOrder), "GENE_BUCKET_FREEZE: bucket 5 is frozen while it moves"
            + " (map version 1): INSERT of t_order.id = " + frozenOrder + " refused; retry in a few seconds, the"
            + " write then goes to the bucket's new node", 5);
        assertRefused(() -> insertItem(c, (7L << 6) | 5, earlierOrder), "GENE_BUCKET_FREEZE: bucket 5 is frozen"
            + " while it moves (map version 1): INSERT of t_item.id = " + ((7L << 6) | 5) + " refused; retry in a"
            + " few seconds, the write then goes to the bucket's new node", 5);
        assertRefused(() -> update(c, "UPDATE t_order SET customer = 'x' WHERE id = " + earlierOrder),
            "GENE_BUCKET_FREEZE: bucket 5 is frozen while it moves (map version 1): UPDATE of t_order.id = "
                + earlierOrder + " refused; retry in a few seconds, the write then goes to the bucket's new node", 5);
        assertRefused(() -> update(c, "DELETE FROM t_order WHERE customer = 'nobody'"),
            "GENE_BUCKET_FREEZE: DELETE of t_order without a sharding value may touch the frozen buckets 5 (map"
                + " version 1) and is refused; retry when the move is done, or name the rows by their sharding"
                + " column", 5);

        insertOrder(c, otherOrder); // another bucket keeps taking writes
        assertThat(customer(c, earlierOrder)).as("reads of the frozen bucket go on").isEqualTo("c" + earlierOrder);

        db.useMap(frozen.withState(List.of(5), BucketState.NORMAL).withVersion(2));
        insertOrder(c, frozenOrder); // the retry succeeds
        assertThat(customer(c, frozenOrder)).isEqualTo("c" + frozenOrder);
        assertThat(customer(c, otherOrder)).isEqualTo("c" + otherOrder);
      }
    }
  }

  @Test
  void aRouterThatLosesItsMapStoreStopsWritesButNotReads() throws Exception {
    com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
    config.setJdbcUrl("jdbc:h2:mem:gid_freeze_store_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    config.setConnectionTimeout(250);
    com.zaxxer.hikari.HikariDataSource storePool = new com.zaxxer.hikari.HikariDataSource(config);
    io.geneid.jdbc.JdbcBucketMapStore store = io.geneid.jdbc.JdbcBucketMapStore.builder().dataSource(storePool)
        .createTable(true).build();
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(yaml());
      GeneBucketShardingAlgorithm db = algorithm(sharded, "gene_db");
      assertThat(store.compareAndSet("orders", -1, db.map().withVersion(1))).isTrue();
      try (io.geneid.core.bucket.BucketMapRouter router = io.geneid.core.bucket.BucketMapRouter
          .builder(store, "orders").routerId("app-1").refreshInterval(java.time.Duration.ofMillis(50))
          .staleAfter(java.time.Duration.ofMillis(300)).onNewMap(db::useMap).build();
           Connection c = sharded.getConnection()) {
        router.start();
        db.follow(router);
        assertThat(db.map().version()).isEqualTo(1);
        long order = (2001L << 6) | 9;
        insertOrder(c, order);
        storePool.close(); // the map store is gone for this router
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
        Throwable refused = null;
        for (long n = 2002; refused == null && System.nanoTime() < deadline; n++) {
          try {
            insertOrder(c, (n << 6) | 9);
            Thread.sleep(20);
          } catch (SQLException e) {
            refused = e;
          }
        }
        Throwable t = refused;
        while (t != null && !(t instanceof io.geneid.core.bucket.BucketMapStaleException)) {
          t = t.getCause();
        }
        assertThat(t).as("cause chain of %s", refused).isInstanceOf(io.geneid.core.bucket.BucketMapStaleException.class)
            .hasMessageContaining("router " + router.routerId() + " refuses writes: bucket map 'orders' (version 1) was last refreshed")
            .hasMessageContaining("more than stale-after 300ms");
        assertThat(((SQLException) refused).getSQLState()).as("retryable, as a serialization failure")
            .isEqualTo("40001");
        assertThat(customer(c, order)).as("reads go on with the last map").isEqualTo("c" + order);
      }
    }
  }

  @Test
  void whileABucketSwitchesScansAreRefusedAndReadsByKeyGoOn() throws Exception {
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(yaml());
      GeneBucketShardingAlgorithm db = algorithm(sharded, "gene_db");
      long switching = (1001L << 6) | 5;
      long other = (1002L << 6) | 6;
      try (Connection c = sharded.getConnection()) {
        insertOrder(c, switching);
        insertOrder(c, other);
        insertItem(c, (7L << 6) | 5, switching);
        db.useMap(db.map().withState(List.of(5), BucketState.FROZEN).withVersion(1));
        assertThat(count(c, "SELECT COUNT(*) FROM t_order")).as("a scan while frozen").isEqualTo(2);
        db.useMap(db.map().withState(List.of(5), BucketState.SWITCHING).withVersion(2));

        // reads that name their rows by a sharding column go to the nodes the map names, the switching bucket's too
        assertThat(count(c, "SELECT COUNT(*) FROM t_order WHERE id = " + switching)).isEqualTo(1);
        assertThat(count(c, "SELECT COUNT(*) FROM t_order o WHERE o.id IN (" + switching + ", " + other
            + ") AND customer LIKE 'c%'")).isEqualTo(2);
        assertThat(count(c, "SELECT COUNT(*) FROM t_order WHERE id = " + other + " OR id = " + switching))
            .isEqualTo(2);
        assertThat(count(c, "SELECT COUNT(*) FROM t_item WHERE order_id = " + switching)).isEqualTo(1);
        assertThat(customer(c, switching)).isEqualTo("c" + switching);
        update(c, "UPDATE t_order SET customer = 'x' WHERE id = " + other);

        String why = "; while the routers follow the switch the bucket's rows are on two nodes and a scan could count"
            + " them twice, so it is refused. Retry in a moment (about one refresh of the map), or name the rows by id"
            + " in every OR branch";
        String head = "GENE_BUCKET_FREEZE: SELECT of t_order cannot be proved to avoid the buckets 5, switching to"
            + " their new node (map version 2): ";
        assertRefused(() -> count(c, "SELECT COUNT(*) FROM t_order"), head + "it names no value of id" + why, 5);
        assertRefused(() -> count(c, "SELECT COUNT(*) FROM t_order WHERE customer = 'x'"), head + "the OR branch"
            + " 'customer = 'x'' names no value of id (= or IN of literals or parameters)" + why, 5);
        assertRefused(() -> count(c, "SELECT COUNT(*) FROM t_order WHERE id > 0"), head + "the OR branch 'id > 0'"
            + " names no value of id (= or IN of literals or parameters)" + why, 5);
        assertRefused(() -> count(c, "SELECT COUNT(*) FROM t_order WHERE id = " + other + " OR customer = 'x'"),
            head + "the OR branch 'customer = 'x'' names no value of id (= or IN of literals or parameters)" + why, 5);
        assertRefused(() -> count(c, "SELECT COUNT(*) FROM t_order WHERE id IN (SELECT order_id FROM t_item)"),
            head + "it reads a join, a subquery, a UNION or a WITH" + why, 5);
        assertThatThrownBy(() -> count(c, "SELECT COUNT(*) FROM t_order")).isInstanceOfSatisfying(SQLException.class,
            e -> assertThat(e.getSQLState()).isEqualTo(GeneBucketFreezeAuditAlgorithm.SQL_STATE));
        assertRefused(() -> update(c, "UPDATE t_order SET customer = 'y' WHERE id = " + switching),
            "GENE_BUCKET_FREEZE: bucket 5 is switching to its new node (map version 2): UPDATE of t_order.id = "
                + switching + " refused; retry in a few seconds, the write then goes to the bucket's new node", 5);

        db.useMap(db.map().withState(List.of(5), BucketState.MOVED).withVersion(3));
        assertThat(count(c, "SELECT COUNT(*) FROM t_order")).as("a scan once moved").isEqualTo(2);
      }
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  private static void assertRefused(ThrowingCallable write, String message, int bucket) {
    assertThatThrownBy(write).satisfies(e -> {
      Throwable t = e;
      while (t != null && !(t instanceof BucketFrozenException)) {
        t = t.getCause();
      }
      assertThat(t).as("cause chain of %s", e).isInstanceOf(BucketFrozenException.class).hasMessage(message);
      assertThat(((BucketFrozenException) t).bucket()).isEqualTo(bucket);
    });
  }

  private static void insertOrder(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, ?)")) {
      ps.setLong(1, id);
      ps.setString(2, "c" + id);
      ps.executeUpdate();
    }
  }

  private static void insertItem(Connection c, long id, long orderId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)")) {
      ps.setLong(1, id);
      ps.setLong(2, orderId);
      ps.setString(3, "i" + id);
      ps.executeUpdate();
    }
  }

  private static void update(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }

  private static String customer(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getString(1);
      }
    }
  }
}
