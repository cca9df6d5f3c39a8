package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33, case 2: a Redis that also serves a cache ({@code maxmemory 8mb}, AOF with {@code appendfsync always})
 * under a {@code maxmemory-policy} that may evict any key. A segment counter, touched once per segment, is the
 * coldest key and is evicted first; {@code INCRBY} then starts again from 0 and a process started after the eviction
 * issues the ids of the processes before it. The stores refuse such a server at build, by name; a server switched to
 * such a policy at run time is refused by the next claim and the next build.
 */
class RedisEvictionFaultTest {

  private static final String PREFIX = "gid_evict";
  private static final String TAG = "order";
  private static final int IDS = 20_000;

  @TempDir Path dir;

  private static List<String> cacheServer(String policy) {
    return List.of("--maxmemory", "8mb", "--maxmemory-policy", policy, "--appendonly", "yes", "--appendfsync",
        "always", "--save", "");
  }

  private static RedisSegmentStore store(int port) {
    return RedisSegmentStore.builder().redisUri("redis://127.0.0.1:" + port).keyPrefix(PREFIX).build();
  }

  private static GeneSegmentGenerator generator(RedisSegmentStore store) {
    return GeneSegmentGenerator.builder(store, TAG).minStep(1_000).maxStep(1_000).build();
  }

  private static Set<Long> take(GeneSegmentGenerator g, int n) {
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < n; i++) {
      ids.add(g.nextId());
    }
    return ids;
  }

  /**
   * Fills the cache (MSET of 1 KB values, 100 keys a command) until {@code key} is evicted; returns the keys
   * evicted by then.
   */
  private static long fillUntilEvicted(RedisProcesses redis, int port, String key) {
    String value = "x".repeat(1024);
    int batch = 0;
    while (redis.redis(port).exists(key) == 1) {
      assertThat(batch).as("batches of cache writes before %s was evicted", key).isLessThan(5_000);
      Map<String, String> keys = new HashMap<>();
      for (int i = 0; i < 100; i++) {
        keys.put("cache:" + batch + ":" + i, value);
      }
      redis.redis(port).mset(keys);
      batch++;
    }
    return Long.parseLong(redis.info(port, "stats", "evicted_keys"));
  }

  /** An {@code allkeys-*} policy is refused by both stores when built, naming the policy, the key and the fix. */
  @Test
  void aServerThatMayEvictAnyKeyIsRefusedAtBuild() {
    try (RedisProcesses redis = new RedisProcesses(dir)) {
      int port = PrivateRedis.freePort();
      redis.start(port, cacheServer("allkeys-lru"));
      assertThatThrownBy(() -> store(port))
          .isInstanceOf(GeneIdException.class)
          .hasMessageContaining("maxmemory-policy allkeys-lru")
          .hasMessageContaining(PREFIX + ":segment:")
          .hasMessageContaining("maxmemory-policy noeviction");
      assertThatThrownBy(() -> RedisWorkerIdAssigner.builder().redisUri("redis://127.0.0.1:" + port)
          .keyPrefix(PREFIX).space("evict").workerIds(0, 3).build())
          .isInstanceOf(GeneIdException.class)
          .hasMessageContaining("maxmemory-policy allkeys-lru")
          .hasMessageContaining(PREFIX + ":lease:{evict}:")
          .hasMessageContaining("maxmemory-policy noeviction");
    }
  }

  /**
   * The assigner vouches for the pool's history (the lease protocol then trusts its grants) while the server of its
   * grants can evict none of its keys, and stops vouching from the first grant after a switch to {@code allkeys-lru}.
   */
  @Test
  void theLeaseStoreVouchesForHistoryOnlyWhileItsKeysCannotBeEvicted() {
    try (RedisProcesses redis = new RedisProcesses(dir)) {
      int port = PrivateRedis.freePort();
      redis.start(port, cacheServer("noeviction"));
      try (RedisWorkerIdAssigner assigner = RedisWorkerIdAssigner.builder().redisUri("redis://127.0.0.1:" + port)
          .keyPrefix(PREFIX).space("vouch").workerIds(0, 3).ttl(TestTime.seconds(1)) // commands: a third of it
          .acquireTimeout(TestTime.seconds(10)).build()) {
        assertThat(assigner.vouchesForHistory()).as("built on noeviction").isTrue();
        assigner.acquire(255, Duration.ofMillis(10));
        assertThat(assigner.vouchesForHistory()).as("after a grant on noeviction").isTrue();
        redis.redis(port).configSet("maxmemory-policy", "allkeys-lru");
        assigner.acquire(255, Duration.ofMillis(10));
        assertThat(assigner.vouchesForHistory()).as("after a grant on allkeys-lru").isFalse();
      }
    }
    assertThat(RedisWorkerIdAssigner.vouches("unknown:0123", "noeviction")).as("no run_id").isFalse();
    assertThat(RedisWorkerIdAssigner.vouches("abc:unknown", "noeviction")).as("no master_replid").isFalse();
    assertThat(RedisWorkerIdAssigner.vouches("abc:def", "volatile-lru")).isTrue();
  }

  /**
   * The reproduction: process 1 issues {@value #IDS} ids on a server that evicts nothing, an operator switches it to
   * {@code allkeys-lru}, a cache fills it and evicts the tag's counter. Before the fix process 1 went on without an
   * error from a counter back at 0, and a process 2 started after the eviction issued {@value #IDS} ids of which
   * every one had been issued before (20,000 of 20,000). Now process 1's next claim is refused and process 2 is
   * refused at build: no id repeats.
   */
  @Test
  void aCounterEvictedAtRunTimeIsNeverCountedAgain() {
    try (RedisProcesses redis = new RedisProcesses(dir)) {
      int port = PrivateRedis.freePort();
      redis.start(port, cacheServer("noeviction"));
      Set<Long> issued = new HashSet<>();
      long duplicates = 0;
      List<String> refusals = new ArrayList<>();
      try (RedisSegmentStore s1 = store(port); GeneSegmentGenerator g1 = generator(s1)) {
        issued.addAll(take(g1, IDS));
        redis.redis(port).configSet("maxmemory-policy", "allkeys-lru");
        long evicted = fillUntilEvicted(redis, port, s1.key(TAG));
        System.out.printf("[eviction] %s evicted after %d evicted keys%n", s1.key(TAG), evicted);
        try {
          s1.nextSegment(TAG, 1_000);
          refusals.add("none");
        } catch (GeneIdException e) {
          refusals.add(e.getMessage());
        }
      }
      // process 2, started after the eviction
      try (RedisSegmentStore s2 = store(port); GeneSegmentGenerator g2 = generator(s2)) {
        for (long id : take(g2, IDS)) {
          duplicates += issued.contains(id) ? 1 : 0;
        }
        refusals.add("none");
      } catch (GeneIdException e) {
        refusals.add(e.getMessage());
      }
      System.out.printf("[eviction] process 2 (started after the eviction): %d of %d ids issued before;"
          + " refusals: %s%n", duplicates, IDS, refusals);
      assertThat(duplicates).as("ids of process 2 issued before by process 1").isZero();
      assertThat(refusals).as("process 1's claim after the eviction, then process 2's build")
          .allSatisfy(m -> assertThat(m).contains("maxmemory-policy allkeys-lru"));
    }
  }
}
