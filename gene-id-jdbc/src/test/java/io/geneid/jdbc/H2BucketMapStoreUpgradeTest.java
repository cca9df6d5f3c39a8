package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * A {@code _router} table made before issue #38 (no instance columns) gains them when the store creates its tables,
 * and keeps its rows; the signs of two writers under one id work on it from then on.
 */
class H2BucketMapStoreUpgradeTest {

  @Test
  void anOldRouterTableGainsTheInstanceColumnsAndKeepsItsRows() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:gid_upgrade_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        + ";DB_CLOSE_DELAY=-1");
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE gid_old_router (name VARCHAR(128) NOT NULL, router_id VARCHAR(128) NOT NULL,"
          + " version BIGINT NOT NULL, seen_at BIGINT NOT NULL, PRIMARY KEY (name, router_id))");
      s.execute("INSERT INTO gid_old_router VALUES ('orders', 'host:1', 4, 1000)");
    }
    JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(ds).table("gid_old").createTable(true).build();
    assertThat(store.routers("orders")).containsExactly(new RouterHeartbeat("host:1", 4, 1000));
    store.heartbeat("orders", "host:1", 5, "aaaa");
    store.heartbeat("orders", "host:1", 5, "bbbb");
    assertThatThrownBy(() -> store.liveRoutersOnePerId("orders", Duration.ofSeconds(30)))
        .hasMessageContaining("router id 'host:1' of map 'orders'").hasMessageContaining("instance bbbb at version 5")
        .hasMessageContaining("instance aaaa at version 5");
  }
}
