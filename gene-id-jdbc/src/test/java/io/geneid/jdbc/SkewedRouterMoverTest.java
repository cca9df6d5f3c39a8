package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue #29, scenario 4, as the mover sees it: a router whose host clock is two minutes behind (more than the live
 * window) that has not yet seen a freeze must be waited for. Before heartbeats carried the store's time the mover
 * took it for dead and copied the bucket while that router could still write to the old node.
 */
class SkewedRouterMoverTest {

  private static HikariDataSource h2(String name) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:h2:mem:" + name + "_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    return new HikariDataSource(config);
  }

  @Test
  void aRouterWhoseClockIsBehindIsWaitedFor() throws Exception {
    try (HikariDataSource ds0 = h2("skew_ds0"); HikariDataSource ds1 = h2("skew_ds1");
        HikariDataSource storePool = h2("skew_store")) {
      JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
      for (HikariDataSource ds : List.of(ds0, ds1)) {
        sql(ds, "CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
      }
      for (long n = 0; n < 20; n++) {
        sql(ds0, "INSERT INTO t_order VALUES (" + n + ", 'c" + n + "')");
      }
      assertThat(store.compareAndSet("orders", -1, BucketMap.of(1, new int[] {0, 0}).withVersion(1))).isTrue();
      @SuppressWarnings("deprecation")
      BucketMapRouter behind = BucketMapRouter.builder(store, "orders").routerId("app-behind")
          .clock(() -> System.currentTimeMillis() - 120_000).build();
      assertThat(behind.refresh()).isTrue(); // routes with version 1, and refreshes no more for now

      JdbcBucketMover mover = JdbcBucketMover.of(store, "orders", Map.of(0, ds0, 1, ds1),
          List.of(new JdbcBucketMover.Table("id", b -> "t_order")), 50, Duration.ofMillis(300), Duration.ZERO,
          Duration.ofSeconds(30));
      assertThatThrownBy(() -> mover.move(new BucketMove(1, 0, 1)))
          .hasMessageContaining("routers [" + behind.routerId() + " (version 1)] did not reach version 2");
      assertThat(store.load("orders").orElseThrow().state(1)).isEqualTo(BucketState.FROZEN);
      assertThat(count(ds1)).as("nothing copied while a live router may still write to the old node").isZero();
    }
  }

  private static void sql(HikariDataSource ds, String sql) throws Exception {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static long count(HikariDataSource ds) throws Exception {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t_order")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
