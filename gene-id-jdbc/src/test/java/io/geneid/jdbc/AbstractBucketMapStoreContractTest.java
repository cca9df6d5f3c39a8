package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketMapStaleException;
import io.geneid.core.bucket.BucketMapStore.MoveProgress;
import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import io.geneid.core.bucket.BucketPlanner;
import io.geneid.core.bucket.BucketState;
import io.geneid.core.testing.ManualClock;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every database under {@link JdbcBucketMapStore} must do; each test uses tables of its own name. */
abstract class AbstractBucketMapStoreContractTest {

  /** JDBC URL, user and password of the database the tables go in. */
  abstract String[] connection();

  HikariDataSource pool;
  String table;
  JdbcBucketMapStore store;

  @BeforeEach
  void setUp() {
    pool = pool();
    table = "gid_bmap_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    store = JdbcBucketMapStore.builder().dataSource(pool).table(table).createTable(true).build();
  }

  HikariDataSource pool() {
    String[] c = connection();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(c[0]);
    config.setUsername(c[1]);
    config.setPassword(c[2]);
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(1000);
    return new HikariDataSource(config);
  }

  @AfterEach
  void dropTables() throws Exception {
    try (HikariDataSource p = pool(); Connection c = p.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      s.execute("DROP TABLE IF EXISTS " + table + "_router");
      s.execute("DROP TABLE IF EXISTS " + table + "_progress");
    } finally {
      pool.close();
    }
  }

  @Test
  void storesAMapOnceAndChangesItByVersion() {
    assertThat(store.load("orders")).isEmpty();
    BucketMap two = BucketMap.ofMod(6, 2, 1).withVersion(1);
    assertThat(store.compareAndSet("orders", -1, two)).isTrue();
    assertThat(store.compareAndSet("orders", -1, two)).as("a second first map").isFalse();
    assertThat(store.load("orders")).contains(two);

    BucketMap frozen = two.withState(List.of(2, 6, 10), BucketState.FROZEN).withVersion(2);
    assertThat(store.compareAndSet("orders", 0, frozen)).as("a stale expected version").isFalse();
    assertThat(store.compareAndSet("orders", 1, frozen)).isTrue();
    assertThat(store.load("orders")).contains(frozen);
    assertThat(store.load("orders").orElseThrow().state(6)).isEqualTo(BucketState.FROZEN);

    BucketMap grown = BucketPlanner.plan(two, 4).next().withState(List.of(3), BucketState.MOVED).withVersion(3);
    assertThat(store.compareAndSet("orders", 2, grown)).isTrue();
    assertThat(store.load("orders")).contains(grown);
    assertThat(store.load("items")).isEmpty();
    assertThatThrownBy(() -> store.compareAndSet("orders", 3, grown))
        .hasMessage("a new bucket map must have a version above 3 but had 3");
  }

  @Test
  void aLargeIrregularMapRoundTrips() {
    int[] targets = new int[1 << 16];
    for (int b = 0; b < targets.length; b++) {
      targets[b] = (int) ((b * 2654435761L >>> 7) % 13);
    }
    BucketMap map = BucketMap.of(16, targets).withVersion(1);
    assertThat(store.compareAndSet("big", -1, map)).isTrue();
    assertThat(store.load("big")).contains(map);
  }

  @Test
  void recordsEachRoutersVersion() {
    store.heartbeat("orders", "app-1", 1, 1000);
    store.heartbeat("orders", "app-2", 1, 1001);
    store.heartbeat("orders", "app-1", 2, 1500);
    store.heartbeat("items", "app-1", 7, 1600);
    assertThat(store.routers("orders")).containsExactly(new RouterHeartbeat("app-1", 2, 1500),
        new RouterHeartbeat("app-2", 1, 1001));
    assertThat(store.routers("items")).containsExactly(new RouterHeartbeat("app-1", 7, 1600));
  }

  @Test
  void keepsTheLastProgressOfEachMapsMove() {
    assertThat(store.progress("orders")).isEmpty();
    MoveProgress first = new MoveProgress(2, 0, 32, 500, 1_000, 1_250);
    store.saveProgress("orders", first);
    assertThat(store.progress("orders")).contains(first);
    MoveProgress later = new MoveProgress(5, 1, 32, 1_000_000_000_000L, 1_000, 9_000);
    store.saveProgress("orders", later);
    store.saveProgress("items", new MoveProgress(1, 3, 3, 0, 7, 8));
    assertThat(store.progress("orders")).as("replaces the last record").contains(later);
    assertThat(store.progress("items")).contains(new MoveProgress(1, 3, 3, 0, 7, 8));
    assertThat(store.load("orders")).as("progress is not a map").isEmpty();
    JdbcBucketMapStore other = JdbcBucketMapStore.builder().dataSource(pool).table(table).build();
    assertThat(other.progress("orders")).as("another store over the same tables").contains(later);
  }

  @Test
  void aRouterStartedWithAnOldMapLearnsTheNewOneWithinTheRefreshInterval() throws Exception {
    BucketMap two = BucketMap.ofMod(6, 2, 1).withVersion(1);
    store.compareAndSet("orders", -1, two);
    AtomicReference<BucketMap> seen = new AtomicReference<>();
    try (BucketMapRouter router = BucketMapRouter.builder(store, "orders").routerId("app-1")
        .refreshInterval(Duration.ofMillis(100)).staleAfter(Duration.ofSeconds(30)).onNewMap(seen::set).build()) {
      router.start();
      assertThat(router.current()).isEqualTo(two);
      assertThat(seen.get()).isEqualTo(two);
      BucketMap four = BucketPlanner.plan(two, 4).next().withVersion(2);
      assertThat(store.compareAndSet("orders", 1, four)).isTrue();
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (router.current().version() != 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(router.current()).isEqualTo(four);
      assertThat(seen.get()).isEqualTo(four);
      while (store.routers("orders").get(0).version() != 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(store.routers("orders")).extracting(RouterHeartbeat::routerId, RouterHeartbeat::version)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("app-1", 2L));
      router.checkWritable();
    }
  }

  @Test
  void aRouterThatCannotReachTheStoreStopsWritesWithinItsBound() {
    store.compareAndSet("orders", -1, BucketMap.ofMod(6, 2, 1).withVersion(1));
    ManualClock clock = new ManualClock(1_000_000);
    HikariDataSource own = pool();
    JdbcBucketMapStore ownStore = JdbcBucketMapStore.builder().dataSource(own).table(table).build();
    BucketMapRouter router = BucketMapRouter.builder(ownStore, "orders").routerId("app-9")
        .refreshInterval(Duration.ofMillis(100)).staleAfter(Duration.ofMillis(500)).clock(clock).build();
    assertThat(router.refresh()).isTrue();
    router.checkWritable();
    own.close(); // the store is out of reach for this router
    clock.advance(300);
    assertThat(router.refresh()).isFalse();
    router.checkWritable(); // within the bound: still writing
    assertThat(router.current().version()).as("reads keep the last map").isEqualTo(1);
    clock.advance(201);
    assertThatThrownBy(router::checkWritable)
        .isInstanceOf(BucketMapStaleException.class)
        .hasMessageStartingWith("router app-9 refuses writes: bucket map 'orders' (version 1) was last refreshed"
            + " 501ms ago, more than stale-after 500ms; last error: the JDBC bucket map store (table " + table
            + ") could not load map 'orders'")
        .satisfies(e -> assertThat(((BucketMapStaleException) e).staleMillis()).isEqualTo(501));
  }

  @Test
  void aNeverLoadedRouterRefusesWrites() {
    BucketMapRouter router = BucketMapRouter.builder(store, "nothing").routerId("app-3").build();
    assertThat(router.refresh()).isFalse();
    assertThatThrownBy(router::checkWritable).isInstanceOf(BucketMapStaleException.class)
        .hasMessageStartingWith("router app-3 refuses writes: bucket map 'nothing' was never loaded; last error:"
            + " no bucket map named 'nothing' in JdbcBucketMapStore[table " + table + "]");
    assertThatThrownBy(router::current).hasMessageStartingWith("bucket map 'nothing' has not been loaded");
    assertThatThrownBy(() -> BucketMapRouter.builder(store, "x").refreshInterval(Duration.ofSeconds(5)).build())
        .hasMessage("stale after (5000ms) must be longer than the refresh interval (5000ms), or every router"
            + " fences between refreshes");
  }
}
