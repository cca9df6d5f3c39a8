package io.geneid.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.AbstractBucketMapStoreContractTest;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.testing.TestTime;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The bucket map store contract ({@link AbstractBucketMapStoreContractTest}) on one database under
 * {@link JdbcBucketMapStore}; each test uses tables of its own name, dropped afterwards.
 */
abstract class AbstractJdbcBucketMapStoreContractTest extends AbstractBucketMapStoreContractTest {

  /** JDBC URL, user and password of the database the tables go in. */
  abstract String[] connection();

  private final List<HikariDataSource> pools = new ArrayList<>();
  private final Map<BucketMapStore, HikariDataSource> ownPools = new IdentityHashMap<>();
  String table;
  JdbcBucketMapStore store;

  @BeforeEach
  void setUp() {
    table = "gid_bmap_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    store = JdbcBucketMapStore.builder().dataSource(pool()).table(table).createTable(true).build();
  }

  HikariDataSource pool() {
    String[] c = connection();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(c[0]);
    config.setUsername(c[1]);
    config.setPassword(c[2]);
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(TestTime.millis(1_000));
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  @AfterEach
  void dropTables() throws Exception {
    try (HikariDataSource p = pool(); Connection c = p.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      s.execute("DROP TABLE IF EXISTS " + table + "_router");
      s.execute("DROP TABLE IF EXISTS " + table + "_progress"); // once JdbcBucketMapStore records progress
    } finally {
      pools.forEach(HikariDataSource::close);
    }
  }

  @Override
  protected BucketMapStore store() {
    return store;
  }

  /** A store over a pool of its own, which {@link #cutOff(BucketMapStore)} closes. */
  @Override
  protected BucketMapStore ownStore() {
    HikariDataSource pool = pool();
    JdbcBucketMapStore own = JdbcBucketMapStore.builder().dataSource(pool).table(table).build();
    ownPools.put(own, pool);
    return own;
  }

  @Override
  protected void cutOff(BucketMapStore own) {
    ownPools.get(own).close();
  }

  @Override
  protected String loadFailure(BucketMapStore own, String name) {
    return "the JDBC bucket map store (table " + table + ") could not load map '" + name + "'";
  }
}
