package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketFrozenException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStaleException;
import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import io.geneid.core.bucket.BucketState;
import io.geneid.jdbc.JdbcBucketMapStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GENE_BUCKET} following a map store from its YAML properties alone ({@code map-store: jdbc}, an H2 map
 * table): it seeds the store with its YAML map, routes with the stored map, learns a new version within its refresh
 * interval, and refuses writes once the store has been out of reach for {@code stale-after}.
 */
class GeneBucketMapStoreTest {

  /** The YAML of these tests ({@link Rules}, GENE_BUCKET at both levels, the freeze auditor) with store props. */
  static String yaml(String storeProps) {
    String db = "sharding-count: 2\n        " + storeProps.strip().replace("\n", "\n        ");
    return Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1", db, "sharding-count: 2\n        gene-divisor: 2")
        .replace("type: GENE_MOD", "type: GENE_BUCKET")
        .replace("      keyGenerateStrategy:", "      auditStrategy:\n        auditorNames: [gene_freeze]\n"
            + "        allowHintDisable: false\n      keyGenerateStrategy:")
        .replace("  keyGenerators:", "  auditors:\n    gene_freeze:\n      type: GENE_BUCKET_FREEZE\n  keyGenerators:");
  }

  static String unique(String what) {
    return "gid_" + what + "_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
  }

  @AfterEach
  void stopRouters() {
    BucketMapFollowers.stopAll();
  }

  @Test
  void seedsAnEmptyStoreWithItsYamlMapAndLearnsEachNewVersionWithinTheRefreshInterval() throws Exception {
    String db = unique("bmap_store");
    String url = "jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1";
    JdbcDataSource storeDb = new JdbcDataSource();
    storeDb.setURL(url);
    JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(storeDb).build();
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(yaml("""
          map-store: jdbc
          map-store-url: "%s"
          map-store-create-table: true
          map-name: orders
          router-id: app-1
          refresh-interval: 100ms
          stale-after: 2s
          """.formatted(url)));
      GeneBucketShardingAlgorithm gene = GeneBucketFreezeTest.algorithm(sharded, "gene_db");
      BucketMap seeded = BucketMap.ofMod(6, 2, 1).withVersion(1);
      assertThat(store.load("orders")).as("the YAML map, stored as version 1").contains(seeded);
      assertThat(gene.map()).isEqualTo(seeded);
      assertThat(store.routers("orders")).extracting(RouterHeartbeat::routerId).singleElement().asString()
          .startsWith("app-1#");

      long gene5 = (3001L << 6) | 5;
      long gene6 = (3002L << 6) | 6;
      try (Connection c = sharded.getConnection()) {
        insertOrder(c, gene5);
        assertThat(rows(databases, "ds_1", gene5)).as("GENE_MOD's map: gene 5 on ds_1").isOne();

        // a mover freezes bucket 6: within the refresh interval writes to it are refused, others go on
        BucketMap frozen = seeded.withState(List.of(6), BucketState.FROZEN).withVersion(2);
        assertThat(store.compareAndSet("orders", 1, frozen)).isTrue();
        await(() -> gene.map().version() == 2, "version 2 within the refresh interval");
        assertThat(causeOf(() -> insertOrder(c, gene6), BucketFrozenException.class)).hasMessageStartingWith(
            "GENE_BUCKET_FREEZE: bucket 6 is frozen while it moves (map version 2)");
        insertOrder(c, (3003L << 6) | 5);

        // ... and switches it to ds_1: the write retried goes there
        BucketMap switched = frozen.withTarget(6, 1).withState(List.of(6), BucketState.MOVED).withVersion(3);
        assertThat(store.compareAndSet("orders", 2, switched)).isTrue();
        await(() -> gene.map().version() == 3, "version 3 within the refresh interval");
        insertOrder(c, gene6);
        assertThat(rows(databases, "ds_1", gene6)).as("bucket 6 now on ds_1").isOne();
        assertThat(rows(databases, "ds_0", gene6)).isZero();
        await(() -> store.routers("orders").get(0).version() == 3, "the heartbeat of version 3");
      }
    }
  }

  /**
   * Issue #38, scenario 8: two data sources of one JVM follow one map with other refresh settings and the default
   * router-id ({@code <host>:<pid>}); each router heartbeats under an id of its own, so the mover waits for both.
   */
  @Test
  void twoDataSourcesOfOneJvmWithOtherRefreshSettingsHeartbeatUnderTwoIds() throws Exception {
    String url = "jdbc:h2:mem:" + unique("bmap_two") + ";DB_CLOSE_DELAY=-1";
    JdbcDataSource storeDb = new JdbcDataSource();
    storeDb.setURL(url);
    JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(storeDb).createTable(true).build();
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      String props = "map-store: jdbc\nmap-store-url: \"" + url + "\"\nmap-store-create-table: true\n"
          + "map-name: orders\n";
      databases.shardingSphere(yaml(props + "refresh-interval: 100ms\nstale-after: 2s"));
      databases.shardingSphere(yaml(props + "refresh-interval: 200ms\nstale-after: 3s"));
      assertThat(store.routers("orders")).as("one heartbeat per router").extracting(RouterHeartbeat::routerId)
          .hasSize(2).doesNotHaveDuplicates()
          .allSatisfy(id -> assertThat(id).startsWith(GeneBucketShardingAlgorithm.defaultRouterId() + "#"));
      assertThat(store.liveRoutersOnePerId("orders", java.time.Duration.ofSeconds(30))).hasSize(2);
    }
  }

  @Test
  void aStartingProcessRoutesWithTheStoredMapNotItsYamlMap() throws Exception {
    String url = "jdbc:h2:mem:" + unique("bmap_store") + ";DB_CLOSE_DELAY=-1";
    JdbcDataSource storeDb = new JdbcDataSource();
    storeDb.setURL(url);
    JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(storeDb).createTable(true).build();
    BucketMap halves = BucketMap.parse(6, "0=0-31; 1=32-63").withVersion(7);
    assertThat(store.compareAndSet("orders", -1, halves)).isTrue();
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(yaml("map-store: jdbc\nmap-store-url: \"" + url
          + "\"\nmap-name: orders"));
      assertThat(GeneBucketFreezeTest.algorithm(sharded, "gene_db").map()).isEqualTo(halves);
      assertThat(store.load("orders")).as("the store keeps its map").contains(halves);
      long gene1 = (4001L << 6) | 1;
      try (Connection c = sharded.getConnection()) {
        insertOrder(c, gene1);
      }
      assertThat(rows(databases, "ds_0", gene1)).as("bucket 1 is in the first half: ds_0, not GENE_MOD's ds_1")
          .isOne();
      assertThat(store.routers("orders")).extracting(RouterHeartbeat::routerId).singleElement().asString()
          .startsWith(GeneBucketShardingAlgorithm.defaultRouterId() + "#");
    }
  }

  @Test
  void aRouterWhoseStoreIsOutOfReachStopsWritesWithinStaleAfterButNotReads() throws Exception {
    String db = unique("bmap_lost");
    // the test holds the database open; the algorithm's URL only opens it if it exists, so after SHUTDOWN the
    // store is out of reach (not an empty new database)
    Connection holder = DriverManager.getConnection("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1");
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(yaml("""
          map-store: jdbc
          map-store-url: "jdbc:h2:mem:%s;IFEXISTS=TRUE"
          map-store-create-table: true
          map-name: orders
          router-id: app-2
          refresh-interval: 50ms
          stale-after: 400ms
          """.formatted(db)));
      long order = (5001L << 6) | 9;
      try (Connection c = sharded.getConnection()) {
        insertOrder(c, order);
        try (Statement s = holder.createStatement()) {
          s.execute("SHUTDOWN");
        }
        long lost = System.nanoTime();
        BucketMapStaleException refused = null;
        for (long n = 5002; refused == null && System.nanoTime() - lost < Duration.ofSeconds(10).toNanos(); n++) {
          try {
            insertOrder(c, (n << 6) | 9);
            Thread.sleep(20);
          } catch (SQLException e) {
            refused = causeOf(e, BucketMapStaleException.class);
          }
        }
        long after = (System.nanoTime() - lost) / 1_000_000;
        assertThat(refused).isNotNull();
        assertThat(refused).hasMessageStartingWith("router app-2#")
            .hasMessageContaining(" refuses writes: bucket map 'orders' (version 1)"
            + " was last refreshed").hasMessageContaining("more than stale-after 400ms; last error: the JDBC bucket"
            + " map store (table gene_id_bucket_map) could not load map 'orders'");
        assertThat(after).as("refused within stale-after and a refresh or two").isLessThan(400 + 2_000);
        assertThat(customer(c, order)).as("reads go on with the last map").isEqualTo("c" + order);
      }
    } finally {
      holder.close();
    }
  }

  @Test
  void badStorePropertiesAreRefusedNamingThem() {
    assertRefused("map-store: zookeeper\nmap-name: x", "GENE_BUCKET property 'map-store' must be jdbc or redis but"
        + " was 'zookeeper'");
    assertRefused("map-name: orders", "GENE_BUCKET property 'map-name' goes with 'map-store' (jdbc or redis), which"
        + " is not set");
    assertRefused("map-store: jdbc\nmap-store-url: jdbc:h2:mem:x\nmap-name: orders\nmap-store-key-prefix: p",
        "GENE_BUCKET has no property 'map-store-key-prefix'");
    assertRefused("map-store: redis\nmap-store-url: redis://127.0.0.1:6379\nmap-name: orders\nmap-store-table: t",
        "GENE_BUCKET has no property 'map-store-table'");
    assertRefused("map-store: jdbc\nmap-name: orders", "GENE_BUCKET property 'map-store-url' is required");
    assertRefused("map-store: jdbc\nmap-store-url: redis://h:6379\nmap-name: orders", "GENE_BUCKET property"
        + " 'map-store-url' must be a JDBC URL starting with jdbc: (map-store is jdbc) but was 'redis://h:6379'");
    assertRefused("map-store: redis\nmap-store-url: \"redis://:s3cret@\"\nmap-name: orders", "GENE_BUCKET"
        + " property 'map-store-url' must be a Redis URI such as redis://127.0.0.1:6379/0 (map-store is redis)");
    assertRefused("map-store: redis\nmap-store-url: redis://127.0.0.1:6379\nmap-name: orders\n"
        + "map-store-key-prefix: \"a{b\"", "GENE_BUCKET property 'map-store-key-prefix' must be non-empty and free"
        + " of { } but was 'a{b'");
    assertRefused("map-store: jdbc\nmap-store-url: jdbc:h2:mem:x\nmap-name: orders\nrefresh-interval: 2s\n"
        + "stale-after: 1s", "GENE_BUCKET property 'stale-after' (1000ms) must be longer than 'refresh-interval'"
        + " (2000ms), or every router fences between refreshes");
    assertRefused("map-store: jdbc\nmap-store-url: jdbc:h2:mem:x\nmap-name: orders\nmap-store-table: \"a b\"",
        "GENE_BUCKET property 'map-store-table'");
    assertThatThrownBy(() -> init("map-store: redis\nmap-store-url: \"redis://:s3cret@\"\nmap-name: orders"))
        .message().doesNotContain("s3cret");
  }

  @Test
  void anUnreachableStoreFailsStartUpNamingIt() {
    assertThatThrownBy(() -> init("map-store: jdbc\nmap-store-url: \"jdbc:h2:mem:" + unique("none")
        + ";IFEXISTS=TRUE\"\nmap-store-password: s3cret\nmap-name: orders"))
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("GENE_BUCKET cannot follow bucket map 'orders' in the jdbc map store at h2:mem:")
        .message().doesNotContain("s3cret");
  }

  private static void init(String storeProps) {
    Properties props = Rules.properties("sharding-count: 2\n" + storeProps);
    new GeneBucketShardingAlgorithm().init(props);
  }

  private static void assertRefused(String storeProps, String messageStart) {
    assertThatThrownBy(() -> init(storeProps)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(messageStart);
  }

  static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + what + " within 10 s");
      }
      Thread.sleep(10);
    }
  }

  interface Write {
    void run() throws Exception;
  }

  static <T extends Throwable> T causeOf(Write write, Class<T> type) {
    try {
      write.run();
    } catch (Exception e) {
      return causeOf(e, type);
    }
    throw new AssertionError("the write was not refused");
  }

  static <T extends Throwable> T causeOf(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " in the cause chain of " + e, e);
  }

  static void insertOrder(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, ?)")) {
      ps.setLong(1, id);
      ps.setString(2, "c" + id);
      ps.executeUpdate();
    }
  }

  static String customer(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getString(1);
      }
    }
  }

  /** Rows of {@code id} in the t_order tables of one physical database. */
  static int rows(ShardedDatabases databases, String dataSource, long id) throws SQLException {
    int n = 0;
    try (Connection c = databases.physical(dataSource).getConnection()) {
      for (int t = 0; t < 2; t++) {
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM t_order_" + t + " WHERE id = ?")) {
          ps.setLong(1, id);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            n += rs.getInt(1);
          }
        }
      }
    }
    return n;
  }
}
