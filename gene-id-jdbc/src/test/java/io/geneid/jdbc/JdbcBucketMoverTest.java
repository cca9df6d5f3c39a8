package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
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
    // what a run killed mid-copy leaves: the bucket frozen, the first batches in the new node's staging table
    BucketMap frozen = BucketMap.of(1, new int[] {0, 0}).withState(List.of(1), BucketState.FROZEN).withVersion(2);
    assertThat(store.compareAndSet("orders", -1, frozen)).isTrue();
    sql(ds1, "CREATE TABLE " + JdbcBucketMover.stagingTable("t_order") + " AS SELECT * FROM t_order WHERE 1 = 0");
    for (long n = 1; n < 60; n += 2) {
      sql(ds1, "INSERT INTO t_order_gid_copy VALUES (" + n + ", 'c" + n + "')");
    }
    JdbcBucketMover.MoveResult result = mover().move(new BucketMove(1, 0, 1));
    assertThat(result.rowsCopied()).as("only the rows the crashed run had not copied").isEqualTo(70);
    BucketMap after = store.load("orders").orElseThrow();
    assertThat(after.target(1)).isEqualTo(1);
    assertThat(after.state(1)).isEqualTo(BucketState.MOVED);
    assertThat(after.version()).as("SWITCHING at 3, switched at 4, MOVED at 5").isEqualTo(5);
    assertThat(count(ds1, "MOD(id, 2) = 1")).isEqualTo(100);
    assertThat(count(ds1, "MOD(id, 2) = 0")).isZero();

    assertThat(mover().cleanup("test")).isEqualTo(100);
    assertThat(count(ds0, "MOD(id, 2) = 1")).isZero();
    assertThat(count(ds0, "MOD(id, 2) = 0")).isEqualTo(100);
    assertThat(store.load("orders").orElseThrow().state(1)).isEqualTo(BucketState.NORMAL);
    assertThat(mover().moveTo(BucketMap.of(1, new int[] {0, 1}))).as("a second run has nothing left").isEmpty();
  }

  @Test
  void aRunFinishesTheSwitchAnInterruptedRunLeftOnEitherTarget() throws Exception {
    // killed after the copy was published and the map switched, before the set-aside: rows of bucket 1 on both
    BucketMap switched = BucketMap.of(1, new int[] {0, 1}).withState(List.of(1), BucketState.SWITCHING)
        .withVersion(4);
    assertThat(store.compareAndSet("orders", -1, switched)).isTrue();
    for (long n = 1; n < 200; n += 2) {
      sql(ds1, "INSERT INTO t_order VALUES (" + n + ", 'c" + n + "')"); // the published copy
    }
    assertThat(count(ds1, "MOD(id, 2) = 1")).isEqualTo(100);
    assertThat(mover().moveTo(BucketMap.of(1, new int[] {0, 1}))).as("the bucket is on its new target").isEmpty();
    BucketMap after = store.load("orders").orElseThrow();
    assertThat(after.state(1)).isEqualTo(BucketState.MOVED);
    assertThat(count(ds0, "MOD(id, 2) = 1")).as("set aside on the old target").isZero();
    assertThat(count(ds1, "MOD(id, 2) = 1")).isEqualTo(100);
    assertThat(count(ds0, "MOD(id, 2) = 0")).isEqualTo(100);

    // killed after the copy was published, before the map switched: the map still names the old target
    assertThat(store.compareAndSet("orders", after.version(), after.withTarget(1, 0).withState(List.of(1),
        BucketState.SWITCHING).withVersion(after.version() + 1))).isTrue();
    assertThatThrownBy(() -> sql(ds0, "INSERT INTO t_order VALUES (1001, 'late')"))
        .as("the old node keeps its fence until cleanup: a write routed there late is refused")
        .isInstanceOfSatisfying(java.sql.SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("40001"));
    // what the interrupted run did, as the mover (its session passes the fence)
    sql(ds0, "SET @gene_id_mover = 1; INSERT INTO t_order SELECT * FROM t_order_gid_aside WHERE MOD(id, 2) = 1;"
        + " SET @gene_id_mover = NULL");
    sql(ds0, "DELETE FROM t_order_gid_aside");
    List<JdbcBucketMover.MoveResult> moved = mover().moveTo(BucketMap.of(1, new int[] {0, 1}));
    assertThat(moved).as("the switch is finished on the old target, then the bucket moves again").hasSize(1);
    assertThat(moved.get(0).rowsCopied()).isEqualTo(100);
    assertThat(store.load("orders").orElseThrow().state(1)).isEqualTo(BucketState.MOVED);
    assertThat(count(ds0, "MOD(id, 2) = 1")).isZero();
    assertThat(count(ds1, "MOD(id, 2) = 1")).as("once, in the routed table").isEqualTo(100);
  }

  @Test
  void recordsProgressAfterEachBatchAndBucket() {
    assertThat(store.compareAndSet("orders", -1, BucketMap.of(1, new int[] {0, 0}).withVersion(1))).isTrue();
    List<JdbcBucketMover.Progress> seen = new java.util.ArrayList<>();
    long[] now = {10_000};
    JdbcBucketMover mover = JdbcBucketMover.builder(store, "orders").targets(Map.of(0, ds0, 1, ds1))
        .tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order"))).batchSize(30).settle(Duration.ZERO)
        .routerWait(Duration.ofSeconds(1)).clock(() -> now[0] += 100).progressListener(seen::add).build();
    assertThat(mover.moveTo(BucketMap.of(1, new int[] {0, 1}))).hasSize(1);
    // a first record, 4 batches of bucket 1 (30, 30, 30, 10 rows), then the bucket done
    assertThat(seen).extracting(p -> p.recorded().rowsCopied()).containsExactly(0L, 30L, 60L, 90L, 100L, 100L);
    assertThat(seen).extracting(p -> p.recorded().bucketsDone()).containsExactly(0, 0, 0, 0, 0, 1);
    assertThat(seen.get(1).bucket()).isEqualTo(new BucketMove(1, 0, 1));
    assertThat(seen.get(1).timeLeft()).as("unknown before a bucket is done").isNull();
    JdbcBucketMover.Progress last = seen.get(seen.size() - 1);
    assertThat(last.bucket()).isEqualTo(new BucketMove(1, 0, 1));
    assertThat(last.timeLeft()).isEqualTo(Duration.ZERO);
    assertThat(store.progress("orders")).contains(last.recorded());
    assertThat(last.recorded().bucketsTotal()).isEqualTo(1);
    assertThat(last.recorded().targetVersion()).as("frozen at 2, SWITCHING at 3, switched at 4, MOVED at 5")
        .isEqualTo(5);
    long elapsed = last.recorded().updatedAtMillis() - last.recorded().startedAtMillis();
    assertThat(last.rowsPerSecond()).isEqualTo(100 * 1000.0 / elapsed);
    assertThat(last.describe()).isEqualTo("buckets 1/1, 100 rows, " + Math.round(100 * 1000.0 / elapsed)
        + " rows/s, time left 0s");
  }

  @Test
  void estimatesTimeLeftFromTheBucketsPerSecondSoFar() {
    BucketMapStore.MoveProgress p = new BucketMapStore.MoveProgress(9, 4, 32, 20_000, 0, 40_000);
    JdbcBucketMover.Progress progress = JdbcBucketMover.Progress.of(p, new BucketMove(9, 1, 3));
    assertThat(progress.rowsPerSecond()).isEqualTo(500.0);
    assertThat(progress.timeLeft()).isEqualTo(Duration.ofSeconds(280));
    assertThat(progress.describe()).isEqualTo("buckets 4/32, 20000 rows, 500 rows/s, time left 4m40s");
    assertThat(JdbcBucketMover.Progress.duration(Duration.ofSeconds(3723))).isEqualTo("1h02m03s");
  }

  @Test
  void refusesANewMapThatStrandsAFrozenBucket() {
    BucketMap frozen = BucketMap.of(1, new int[] {0, 0}).withState(List.of(1), BucketState.FROZEN).withVersion(2);
    assertThat(store.compareAndSet("orders", -1, frozen)).isTrue();
    assertThatThrownBy(() -> mover().moveTo(BucketMap.of(1, new int[] {0, 0})))
        .hasMessage("bucket 1 of map 'orders' is FROZEN by an interrupted move, but the new map keeps it on target"
            + " 0; give a new map that moves it (plan from the stored map, version 2)");
  }

  @Test
  void aCopyThatDiffersLeavesTheBucketFrozenOnItsOldNode() throws Exception {
    // an interrupted move's bucket, with a row at the new node that the old node does not have
    assertThat(store.compareAndSet("orders", -1, BucketMap.of(1, new int[] {0, 0})
        .withState(List.of(1), BucketState.FROZEN).withVersion(1))).isTrue();
    sql(ds1, "CREATE TABLE t_order_gid_copy AS SELECT * FROM t_order WHERE 1 = 0");
    sql(ds1, "INSERT INTO t_order_gid_copy VALUES (1001, 'stray')");
    assertThatThrownBy(() -> mover().move(new BucketMove(1, 0, 1)))
        .hasMessage("bucket 1 of t_order differs after the copy: the first row that differs, in primary-key order, is"
            + " [1, c1] on target 0 but [1001, stray] on target 1; the bucket stays frozen on target 0");
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
