package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.segment.Segment;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only the Redis segment store does: its key, its checks of the counter, its connection handling. The store's
 * contract runs in {@link RedisSegmentStoreContractTest}.
 */
class RedisSegmentStoreTest {

  private final TestRedis redis = new TestRedis("segment");
  private final List<RedisSegmentStore> stores = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    stores.forEach(RedisSegmentStore::close);
    redis.close();
  }

  private RedisSegmentStore store() {
    // the shared CI Redis keeps nothing on disk
    RedisSegmentStore store = RedisSegmentStore.builder().redisUri(TestRedis.URI).keyPrefix(redis.prefix)
        .allowWithoutPersistence(true).build();
    stores.add(store);
    return store;
  }

  @Test
  void aTagIsOnePlainKeyHoldingItsCounter() {
    RedisSegmentStore store = store();
    assertThat(store.nextSegment("order", 10)).isEqualTo(new Segment(1, 10));
    assertThat(store.nextSegment("order", 20)).isEqualTo(new Segment(11, 30));
    assertThat(store.nextSegment("item", 5)).isEqualTo(new Segment(1, 5));
    assertThat(store.key("order")).isEqualTo(redis.segmentKey("order"));
    assertThat(redis.redis().get(redis.segmentKey("order"))).isEqualTo("30");
  }

  @Test
  void aCounterThatIsNotAValidMaximumIsRefused() {
    RedisSegmentStore store = store();
    redis.redis().set(redis.segmentKey("negative"), "-100");
    assertThatThrownBy(() -> store.nextSegment("negative", 10)).isInstanceOf(GeneIdException.class)
        .hasMessage("the Redis key " + redis.segmentKey("negative") + " at redis://127.0.0.1:6379/0 held -100 before INCRBY "
            + "10: a segment counter must not be negative");

    redis.redis().set(redis.segmentKey("text"), "abc");
    assertThatThrownBy(() -> store.nextSegment("text", 10)).isInstanceOf(GeneIdException.class)
        .hasMessage("the Redis segment store at redis://127.0.0.1:6379/0 could not hand out 10 values of tag 'text' "
            + "(INCRBY " + redis.segmentKey("text") + "): ERR value is not an integer or out of range");
  }

  @Test
  void anUnreachableRedisFailsTheBuildFastAndSaysWhere() throws Exception {
    int deadPort;
    try (ServerSocket s = new ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    long start = System.nanoTime();
    assertThatThrownBy(() -> RedisSegmentStore.builder().redisUri("redis://127.0.0.1:" + deadPort).build())
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("cannot reach the segment store, Redis at redis://127.0.0.1:" + deadPort + "/0: ");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void aStoreOverAnExistingConnectionLeavesItOpen() {
    RedisSegmentStore store = RedisSegmentStore.builder().connection(redis.connection()).keyPrefix(redis.prefix)
        .allowWithoutPersistence(true).build();
    assertThat(store.nextSegment("shared", 3)).isEqualTo(new Segment(1, 3));
    store.close();
    assertThat(redis.connection().isOpen()).isTrue();
  }

  /**
   * Issue 11 scenario 14: segments on a Redis that keeps nothing on disk gave 101,021 duplicate ids between two JVMs
   * after a restart. Such a store is refused unless the user opts in by name.
   */
  @Test
  void aRedisThatKeepsNothingOnDiskIsRefusedUnlessTheUserOptsIn(@TempDir Path dir) {
    try (PrivateRedis none = PrivateRedis.start(dir.resolve("none"), PrivateRedis.Persistence.NONE)) {
      String where = "redis://127.0.0.1:" + none.port() + "/0";
      assertThatThrownBy(() -> RedisSegmentStore.builder().redisUri(none.uri()).build()).isInstanceOf(GeneIdException.class)
          .hasMessage("the Redis segment store at " + where + " keeps nothing on disk (appendonly no, save \"\"): "
              + "after a restart of Redis its counters start again from zero, and two processes (or one restarted) "
              + "would issue the same segment values, so duplicate ids. Turn on appendonly yes (appendfsync always "
              + "or everysec) on the server, use the JDBC segment store, or accept the risk with "
              + "allowWithoutPersistence(true) (property redis-allow-without-persistence=true)");
      try (RedisSegmentStore accepted = RedisSegmentStore.builder().redisUri(none.uri()).allowWithoutPersistence(true).build()) {
        assertThat(accepted.nextSegment("order", 10)).isEqualTo(new Segment(1, 10));
      }
    }
    try (PrivateRedis aof = PrivateRedis.start(dir.resolve("aof"), PrivateRedis.Persistence.AOF_EVERYSEC);
        RedisSegmentStore store = RedisSegmentStore.builder().redisUri(aof.uri()).build()) {
      assertThat(store.nextSegment("order", 10)).isEqualTo(new Segment(1, 10));
    }
  }

  @Test
  void badArgumentsAreNamed() {
    RedisSegmentStore store = store();
    assertThatThrownBy(() -> store.nextSegment("order", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step must be at least 1 but was 0");
    assertThatThrownBy(() -> store.nextSegment("", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bizTag must not be empty");
    assertThatThrownBy(() -> RedisSegmentStore.builder().redisUri(TestRedis.URI).commandTimeout(Duration.ofMinutes(2)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("commandTimeout must be in [10ms, 60000ms] but was 120000ms");
    assertThatThrownBy(() -> RedisSegmentStore.builder().redisUri("localhost:6379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("redisUri must be a Redis URI such as redis://127.0.0.1:6379/0 or"
            + " redis://:password@host:6379/0 but was 'localhost:6379' (");
    // #12 item 3: an unparsable URI is not echoed whole (the parser's message would repeat the password)
    for (String password : new String[] {"pa ss", "p/a@ss", "p%zz", "p:a+ss"}) {
      assertThatThrownBy(() -> RedisSegmentStore.builder().redisUri("redis://:" + password + "@127.0.0.1:6379/x"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("redisUri must be a Redis URI such as")
          .hasMessageContaining("but was 'redis://127.0.0.1:6379/x'")
          .hasMessageNotContaining(password)
          .hasNoCause();
    }
  }
}
