package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.AbstractBucketMapStoreContractTest;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The bucket map store contract on the shared Redis, under a key prefix of its own per test. */
class RedisBucketMapStoreContractTest extends AbstractBucketMapStoreContractTest {

  private TestRedis redis;
  private RedisBucketMapStore store;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Map<BucketMapStore, TcpProxy> proxies = new IdentityHashMap<>();

  @BeforeEach
  void connect() {
    redis = new TestRedis("bucket_map");
    store = track(RedisBucketMapStore.builder().redisUri(TestRedis.URI).keyPrefix(redis.prefix)
        .commandTimeout(TestTime.ofMillis(500)).build());
  }

  private <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    redis.close(); // deletes every key under the prefix
  }

  @Override
  protected BucketMapStore store() {
    return store;
  }

  /** A store whose connection goes through a proxy of its own, which {@link #cutOff(BucketMapStore)} stops. */
  @Override
  protected BucketMapStore ownStore() throws Exception {
    TcpProxy proxy = track(new TcpProxy("127.0.0.1", TestRedis.PORT));
    RedisBucketMapStore own = track(RedisBucketMapStore.builder().redisUri("redis://127.0.0.1:" + proxy.port())
        .keyPrefix(redis.prefix).commandTimeout(TestTime.ofMillis(500)).build());
    proxies.put(own, proxy);
    return own;
  }

  @Override
  protected void cutOff(BucketMapStore own) throws Exception {
    proxies.get(own).stop();
  }

  @Override
  protected String loadFailure(BucketMapStore own, String name) {
    return "the Redis bucket map store at redis://127.0.0.1:" + proxies.get(own).port() + "/0 could not load map '"
        + name + "' (" + redis.prefix + ":bucket-map:{" + name + "})";
  }

  @Test
  void keepsEachMapInTheSlotOfItsName() {
    BucketMap map = BucketMap.ofMod(6, 2, 1).withVersion(1);
    assertThat(store.compareAndSet("orders", -1, map)).isTrue();
    store.heartbeat("orders", "app-1", 1, 1000);
    store.saveProgress("orders", new io.geneid.core.bucket.BucketMapStore.MoveProgress(2, 1, 32, 77, 5, 6));
    assertThat(redis.keys()).containsExactlyInAnyOrder(redis.prefix + ":bucket-map:{orders}",
        redis.prefix + ":bucket-map:{orders}:routers", redis.prefix + ":bucket-map:{orders}:progress");
    assertThat(redis.redis().hgetall(redis.prefix + ":bucket-map:{orders}:progress"))
        .containsExactlyInAnyOrderEntriesOf(
        Map.of("target_version", "2", "buckets_done", "1", "buckets_total", "32", "rows_copied", "77",
            "started_at", "5", "updated_at", "6"));
    assertThat(redis.redis().hgetall(redis.prefix + ":bucket-map:{orders}")).containsExactlyInAnyOrderEntriesOf(
        Map.of("gene_bits", "6", "version", "1", "map", "0=0-62/2; 1=1-63/2", "states", ""));
    assertThat(redis.redis().hgetall(redis.prefix + ":bucket-map:{orders}:routers"))
        .containsExactlyEntriesOf(Map.of("app-1", "1 1000"));
    assertThat(store).hasToString("RedisBucketMapStore[redis://127.0.0.1:6379/0, keyPrefix=" + redis.prefix + "]");
  }

  @Test
  void aDamagedMapIsReportedWithItsKey() {
    redis.redis().hset(redis.prefix + ":bucket-map:{orders}", Map.of("gene_bits", "6", "version", "1",
        "map", "0=0-31", "states", ""));
    assertThatThrownBy(() -> store.load("orders")).isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("bucket map 'orders' in Redis key " + redis.prefix + ":bucket-map:{orders} at"
            + " redis://127.0.0.1:6379/0 cannot be read: bucket-map");
    redis.redis().hdel(redis.prefix + ":bucket-map:{orders}", "states");
    assertThatThrownBy(() -> store.load("orders"))
        .hasMessageEndingWith("cannot be read: the field states is missing");
  }

  @Test
  void refusesBadSettingsNamingThem() {
    assertThatThrownBy(() -> store.load("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucket map name must have 1 to 128 characters but was ''");
    assertThatThrownBy(() -> RedisBucketMapStore.builder().keyPrefix("a{b}"))
        .hasMessage("keyPrefix must be non-empty and free of { } but was 'a{b}'");
    assertThatThrownBy(() -> RedisBucketMapStore.builder().commandTimeout(Duration.ofMinutes(2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commandTimeout");
    assertThatThrownBy(() -> RedisBucketMapStore.builder().build())
        .hasMessage("a Redis URI (redisUri) or a connection is required");
    assertThatThrownBy(() -> RedisBucketMapStore.builder().redisUri("redis://:s3cret@"))
        .isInstanceOf(IllegalArgumentException.class).message().doesNotContain("s3cret");
  }

  @Test
  void anUnreachableRedisIsNamedWhenBuilt() {
    int port = PrivateRedis.freePort();
    assertThatThrownBy(() -> RedisBucketMapStore.builder().redisUri("redis://:s3cret@127.0.0.1:" + port)
        .commandTimeout(Duration.ofMillis(200)).build())
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("cannot reach the bucket map store, Redis at redis://127.0.0.1:" + port + "/0")
        .message().doesNotContain("s3cret");
  }
}
