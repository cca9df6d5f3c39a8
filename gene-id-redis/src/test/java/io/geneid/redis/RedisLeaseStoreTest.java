package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdRegistry;
import io.geneid.core.LeasedGeneGenerator;
import io.geneid.core.WorkerIdAssigners;
import io.geneid.core.WorkerLease;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Redis-specific behaviour: a store that forgets, NOSCRIPT, an unreachable server, properties. */
class RedisLeaseStoreTest {

  private static TestRedis store;

  @BeforeAll
  static void connect() {
    store = new TestRedis("lease_redis");
  }

  @AfterAll
  static void disconnect() {
    store.close();
  }

  private static String space() {
    return "gid_lease_r" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  private static RedisWorkerIdAssigner.Builder assigner(String space) {
    return RedisWorkerIdAssigner.builder().redisUri(TestRedis.URI).keyPrefix(store.prefix).space(space)
        .ttl(Duration.ofSeconds(1)).acquireTimeout(Duration.ZERO).workerIds(0, 3);
  }

  @Test
  void aPoolWithoutRecordsWaitsOneTtlPlusSlackBecauseItsHistoryIsUnknown() {
    String space = space();
    try (RedisWorkerIdAssigner a = assigner(space).owner("early").build()) {
      assertThatThrownBy(() -> a.acquire(255))
          .hasMessageStartingWith("no free worker id in space '" + space + "': all 4 worker ids of the pool [0, 3] "
              + "are taken (4 of them have an unknown history after the store lost its data, and become usable at ");
    }
    long born = Long.parseLong(store.redis().hget(store.leaseKey(space, "meta"), "born"));
    try (RedisWorkerIdAssigner a = assigner(space).acquireTimeout(Duration.ofSeconds(10)).build()) {
      WorkerLease lease = a.acquire(255);
      long usableAt = born + 1_000 + RedisWorkerIdAssigner.UNKNOWN_HISTORY_SLACK.toMillis();
      assertThat(lease.previousHighWaterMark().toEpochMilli()).isEqualTo(usableAt);
      assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(usableAt - 50); // server and client share a host
    } finally {
      store.forgetPool(space);
    }
  }

  @Test
  void aHolderWhoseStoreForgotFencesAtOnceAndComesBackAfterTheUnknownHistoryWait() throws Exception {
    String space = space();
    store.agePool(space);
    try (LeasedGeneGenerator g = LeasedGeneGenerator.builder()
        .assigner(assigner(space).acquireTimeout(Duration.ofSeconds(10)).build()).build()) {
      Set<Long> ids = new HashSet<>();
      for (int i = 0; i < 1_000; i++) {
        ids.add(g.nextId());
      }
      Instant markBefore = g.lease().highWaterMark();
      store.forgetPool(space); // a Redis restart without persistence
      long forgotten = System.currentTimeMillis();
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (g.leasesLost() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(g.leasesLost()).isEqualTo(1);
      assertThatThrownBy(g::nextId).hasMessageContaining("its lease was lost at")
          .hasMessageContaining("the store has no lease for it (released, or the store lost its data)");
      while (!g.isIssuing() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(g.isIssuing()).isTrue();
      // back only after one TTL and the slack, with a mark beyond anything the lost lease could have issued
      assertThat(System.currentTimeMillis() - forgotten).isGreaterThanOrEqualTo(2_900);
      assertThat(g.lease().previousHighWaterMark()).isAfter(markBefore.minusMillis(1_000));
      for (int i = 0; i < 1_000; i++) {
        assertThat(ids.add(g.nextId())).isTrue();
      }
    } finally {
      store.forgetPool(space);
    }
  }

  @Test
  void noScriptAfterARestartFallsBackToEval() {
    String space = space();
    store.agePool(space);
    try (RedisWorkerIdAssigner a = assigner(space).build()) {
      // a body the server has never cached stands for the cache a restart empties (no SCRIPT FLUSH on a shared
      // server)
      RedisWorkerIdAssigner.Script uncached = RedisWorkerIdAssigner.Script.of("lease-acquire.lua",
          "-- " + System.nanoTime() + "\n" + RedisWorkerIdAssigner.ACQUIRE.body);
      assertThat(store.redis().scriptExists(uncached.sha)).containsExactly(false);
      List<Object> reply = a.run(uncached, "noscript", "1000", "0", "3", "2000");
      assertThat(reply.get(0)).isEqualTo("ok");
      assertThat(store.redis().scriptExists(uncached.sha)).containsExactly(true);
    } finally {
      store.forgetPool(space);
    }
  }

  @Test
  void anUnreachableServerIsAClearError() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    int dead = port;
    assertThatThrownBy(() -> RedisWorkerIdAssigner.builder().redisUri("redis://127.0.0.1:" + dead).build())
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("cannot reach the worker-id lease store, Redis at redis://127.0.0.1:" + dead + ": ");
  }

  @Test
  void propertiesBuildASharedRedisLeasedGenerator() {
    String space = space();
    store.agePool(space);
    Map<String, String> props = Map.of("worker-assigner", "redis", "redis-uri", TestRedis.URI,
        "redis-key-prefix", store.prefix, "space", space, "worker-id-min", "8", "worker-id-max", "9",
        "lease-ttl", "2s", "gene-bits", "4", "sequence-bits", "10");
    GeneIdRegistry.Handle<LeasedGeneGenerator> g = WorkerIdAssigners.sharedGenerator(props);
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> again = WorkerIdAssigners.sharedGenerator(Map.copyOf(props))) {
      assertThat(again.generator()).isSameAs(g.generator());
      assertThat(g.generator().workerId()).isEqualTo(8);
      assertThat(g.geneBits()).isEqualTo(4);
      assertThat(store.redis().zscore(store.leaseKey(space, "expiry"), "8")).isNotNull();
    } finally {
      g.close();
      store.forgetPool(space);
    }
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "redis")))
        .hasMessage("worker-assigner=redis needs the property 'redis-uri'");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "redis", "redis-url", "x")))
        .hasMessageStartingWith("unknown property 'redis-url' for worker-assigner=redis; known properties: ");
  }
}
