package io.geneid.shardingsphere;

import static io.geneid.shardingsphere.GeneBucketMapStoreTest.await;
import static io.geneid.shardingsphere.GeneBucketMapStoreTest.causeOf;
import static io.geneid.shardingsphere.GeneBucketMapStoreTest.customer;
import static io.geneid.shardingsphere.GeneBucketMapStoreTest.insertOrder;
import static io.geneid.shardingsphere.GeneBucketMapStoreTest.rows;
import static io.geneid.shardingsphere.GeneBucketMapStoreTest.unique;
import static io.geneid.shardingsphere.GeneBucketMapStoreTest.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStaleException;
import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import io.geneid.redis.PrivateRedis;
import io.geneid.redis.RedisBucketMapStore;
import io.geneid.redis.TestRedis;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GENE_BUCKET} following a Redis map store from its YAML properties ({@code map-store: redis}): on the shared
 * Redis under a key prefix of the test's own, and on a redis-server of the test's own that it kills.
 */
class RedisGeneBucketMapStoreTest {

  @TempDir Path dir;
  private TestRedis redis;

  @AfterEach
  void stopRouters() {
    BucketMapFollowers.stopAll(); // before TestRedis deletes the keys: no heartbeat writes them again
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void aRouterStartedWithAnOldMapLearnsTheNewOneWithinTheRefreshInterval() throws Exception {
    String map = unique("orders");
    redis = new TestRedis("ss_bucket_map");
    try (RedisBucketMapStore store = RedisBucketMapStore.builder().redisUri(TestRedis.URI).keyPrefix(redis.prefix)
            .build();
        ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      BucketMap old = BucketMap.ofMod(6, 2, 1).withVersion(4);
      assertThat(store.compareAndSet(map, -1, old)).isTrue();
      DataSource sharded = databases.shardingSphere(yaml("""
          map-store: redis
          map-store-url: %s
          map-store-key-prefix: %s
          map-name: %s
          router-id: app-r
          refresh-interval: 100ms
          stale-after: 3s
          """.formatted(TestRedis.URI, redis.prefix, map)));
      GeneBucketShardingAlgorithm gene = GeneBucketFreezeTest.algorithm(sharded, "gene_db");
      assertThat(gene.map()).isEqualTo(old);

      BucketMap halves = BucketMap.parse(6, "0=0-31; 1=32-63").withVersion(5);
      long changed = System.nanoTime();
      assertThat(store.compareAndSet(map, 4, halves)).isTrue();
      await(() -> gene.map().version() == 5, "version 5");
      assertThat((System.nanoTime() - changed) / 1_000_000).as("ms to learn it, refresh interval 100 ms")
          .isLessThan(2_000);
      long gene1 = (6001L << 6) | 1;
      try (Connection c = sharded.getConnection()) {
        insertOrder(c, gene1);
      }
      assertThat(rows(databases, "ds_0", gene1)).as("bucket 1 now in the first half, on ds_0").isOne();
      await(() -> store.routers(map).stream().anyMatch(r -> r.version() == 5), "the heartbeat of version 5");
      assertThat(store.routers(map)).extracting(RouterHeartbeat::routerId).singleElement().asString()
          .startsWith("app-r#");
    }
  }

  @Test
  void aRouterWhoseRedisIsKilledStopsWritesWithinStaleAfterButNotReads() throws Exception {
    try (PrivateRedis own = PrivateRedis.start(dir.resolve("redis"), PrivateRedis.Persistence.NONE);
        ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(yaml("""
          map-store: redis
          map-store-url: %s
          map-name: orders
          router-id: app-k
          refresh-interval: 50ms
          stale-after: 500ms
          """.formatted(own.uri())));
      long order = (7001L << 6) | 9;
      try (Connection c = sharded.getConnection()) {
        insertOrder(c, order);
        own.kill9(); // the map store is gone
        long lost = System.nanoTime();
        BucketMapStaleException refused = null;
        for (long n = 7002; refused == null && System.nanoTime() - lost < Duration.ofSeconds(10).toNanos(); n++) {
          try {
            insertOrder(c, (n << 6) | 9);
            Thread.sleep(20);
          } catch (SQLException e) {
            refused = causeOf(e, BucketMapStaleException.class);
          }
        }
        long after = (System.nanoTime() - lost) / 1_000_000;
        assertThat(refused).isNotNull();
        assertThat(refused).hasMessageStartingWith("router app-k#")
            .hasMessageContaining(" refuses writes: bucket map 'orders' (version 1)"
            + " was last refreshed").hasMessageContaining("more than stale-after 500ms; last error: the Redis"
            + " bucket map store at " + own.uri() + "/0 could not load map 'orders'");
        assertThat(after).as("ms until writes were refused, stale-after 500 ms").isLessThan(500 + 2_000);
        assertThat(customer(c, order)).as("reads go on with the last map").isEqualTo("c" + order);
      }
    }
  }
}
