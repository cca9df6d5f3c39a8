package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The mover on two H2 databases: a run that resumes the state a crashed run left, verification, cleanup. */
class JdbcBucketMoverTest {

  private HikariDataSource ds0;
  private HikariDataSource ds1;
  private HikariDataSource storePool;
  private JdbcBucketMapStore store;

  private static HikariDataSource h2(String name) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:h2:mem:" + name + "_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    return new HikariDataSource(config);
  }

  @BeforeEach
  void setUp() throws Exception {
    ds0 = h2("mover_ds0");
    ds1 = h2("mover_ds1");
    storePool = h2("mover_store");
    store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
    for (HikariDataSource ds : List.of(ds0, ds1)) {
      sql(ds, "CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
    }
    for (long n = 0; n < 200; n++) {
      sql(ds0, "INSERT INTO t_order VALUES (" + n + ", 'c" + n + "')"); // buckets 0 and 1 of G = 1
    }
  }

  @AfterEach
  void tearDown() {
    ds0.close();
    ds1.close();
    storePool.close();
  }

  private JdbcBucketMover mover() {
    return JdbcBucketMover.of(store, "orders", Map.of(0, ds0, 1, ds1),
        List.of(new JdbcBucketMover.Table("id", b -> "t_order")), 7, Duration.ofSeconds(1), Duration.ZERO,
        Duration.ofSeconds(5));
  }

  @Test
  void resumesWhereACrashedRunStoppedAndCleansUp() throws Exception {
    // what a run killed mid-copy leaves: the bucket frozen, the first batches committed on the new node
    BucketMap frozen = BucketMap.of(1, new int[] {0, 0}).withState(List.of(1), BucketState.FROZEN).withVersion(2);
    assertThat(store.compareAndSet("orders", -1, frozen)).isTrue();
    for (long n = 1; n < 60; n += 2) {
      sql(ds1, "INSERT INTO t_order VALUES (" + n + ", 'c" + n + "')");
    }
    JdbcBucketMover.MoveResult result = mover().move(new BucketMove(1, 0, 1));
    assertThat(result.rowsCopied()).as("only the rows the crashed run had not copied").isEqualTo(70);
    BucketMap after = store.load("orders").orElseThrow();
    assertThat(after.target(1)).isEqualTo(1);
    assertThat(after.state(1)).isEqualTo(BucketState.MOVED);
    assertThat(after.version()).isEqualTo(3);
    assertThat(count(ds1, "MOD(id, 2) = 1")).isEqualTo(100);
    assertThat(count(ds1, "MOD(id, 2) = 0")).isZero();

    assertThat(mover().cleanup("test")).isEqualTo(100);
    assertThat(count(ds0, "MOD(id, 2) = 1")).isZero();
    assertThat(count(ds0, "MOD(id, 2) = 0")).isEqualTo(100);
    assertThat(store.load("orders").orElseThrow().state(1)).isEqualTo(BucketState.NORMAL);
    assertThat(mover().moveTo(BucketMap.of(1, new int[] {0, 1}))).as("a second run has nothing left").isEmpty();
  }

  @Test
  void aCopyThatDiffersLeavesTheBucketFrozenOnItsOldNode() throws Exception {
    assertThat(store.compareAndSet("orders", -1, BucketMap.of(1, new int[] {0, 0}).withVersion(1))).isTrue();
    sql(ds1, "INSERT INTO t_order VALUES (1001, 'stray')"); // a row the old node does not have
    assertThatThrownBy(() -> mover().move(new BucketMove(1, 0, 1)))
        .hasMessage("bucket 1 of t_order differs after the copy: target 0 has 100 rows (id sum 10000), target 1"
            + " has 1 (id sum 1001); the bucket stays frozen on target 0");
    BucketMap after = store.load("orders").orElseThrow();
    assertThat(after.target(1)).isZero();
    assertThat(after.state(1)).isEqualTo(BucketState.FROZEN);
  }

  private static void sql(HikariDataSource ds, String sql) throws Exception {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static long count(HikariDataSource ds, String where) throws Exception {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t_order WHERE " + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
