package io.geneid.redis;

import io.geneid.core.snowflake.LeasedGenerators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.testing.TestTime;
import java.net.ServerSocket;
import java.nio.file.Path;
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
import org.junit.jupiter.api.io.TempDir;

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

  /**
   * The TTL of the leases here, on the shared Redis and the system clock: 1 s at the tests' time scale (its commands
   * time out after a third of it).
   */
  private static final Duration TTL = TestTime.seconds(1);

  private static RedisWorkerIdAssigner.Builder assigner(String space) {
    return RedisWorkerIdAssigner.builder().redisUri(TestRedis.URI).keyPrefix(store.prefix).space(space)
        .ttl(TTL).acquireTimeout(Duration.ZERO).workerIds(0, 3);
  }

  @Test
  void aPoolWithoutRecordsWaitsOneTtlPlusSlackBecauseItsHistoryIsUnknown() {
    String space = space();
    Duration borrow = Duration.ofMillis(300);
    try (RedisWorkerIdAssigner a = assigner(space).owner("early").build()) {
      assertThatThrownBy(() -> a.acquire(255, borrow))
          .hasMessageStartingWith("no free worker id in space '" + space + "': all 4 worker ids of the pool [0, 3] "
              + "are taken (worker ids without a known history since ")
          .hasMessageContaining(", when the pool was new or the store restarted, failed over or lost keys, become "
              + "usable at ")
          .hasMessageContaining(") in Redis at redis://127.0.0.1:6379/0 after waiting 0 ms");
    }
    long born = Long.parseLong(store.redis().hget(store.leaseKey(space, "meta"), "born"));
    // an acquire timeout (one TTL; the default, 2 x TTL, is too at a time scale below 2.3) shorter than the wait
    // (TTL + 2.3 s): it is extended, not failed
    try (RedisWorkerIdAssigner a = RedisWorkerIdAssigner.builder().redisUri(TestRedis.URI).keyPrefix(store.prefix)
        .space(space).ttl(TTL).acquireTimeout(TTL).workerIds(0, 3).build()) {
      java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
      java.io.PrintStream stderr = System.err;
      WorkerLease lease;
      System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
      try {
        lease = a.acquire(255, borrow);
      } finally {
        System.setErr(stderr);
      }
      long usableAt = born + TTL.toMillis() + borrow.toMillis() + io.geneid.core.lease.WorkerIdAssigner.HISTORY_MARGIN.toMillis();
      // the first start says once, at INFO, what it waits for and until when
      assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
          .containsOnlyOnce("INFO io.geneid.redis.RedisWorkerIdAssigner - worker ids of space '" + space + "' at "
              + "redis://127.0.0.1:6379/0 have no known history since " + Instant.ofEpochMilli(born) + " (a new pool, "
              + "or the store restarted, failed over or lost keys): they become usable at "
              + Instant.ofEpochMilli(usableAt) + ", one TTL (" + TTL + ") + 300 ms borrowing + 2000 ms clock margin "
              + "later, "
              + "when any earlier holder must have stopped; waiting")
          // the grant itself is logged once, by the leased generator ("leased worker id ..."), not by the store
          .doesNotContain("acquired worker id");
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
        .assigner(assigner(space).acquireTimeout(TestTime.seconds(10)).build()).build()) {
      Set<Long> ids = new HashSet<>();
      for (int i = 0; i < 1_000; i++) {
        ids.add(g.nextId());
      }
      Instant markBefore = g.lease().orElseThrow().highWaterMark();
      store.forgetPool(space); // a Redis restart without persistence
      long forgotten = System.currentTimeMillis();
      long deadline = System.nanoTime() + TestTime.seconds(10).toNanos();
      while (g.leasesLost() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(g.leasesLost()).isEqualTo(1);
      assertThatThrownBy(g::nextId).hasMessageContaining("its lease was lost at")
          .hasMessageContaining("the store restarted, failed over or lost the pool's meta since it was granted");
      while (!g.isIssuing() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(g.isIssuing()).isTrue();
      // back only after one TTL and the slack, with a mark beyond anything the lost lease could have issued
      assertThat(System.currentTimeMillis() - forgotten).isGreaterThanOrEqualTo(TTL.toMillis() + 1_900);
      assertThat(g.lease().orElseThrow().previousHighWaterMark()).isAfter(markBefore.minusMillis(1_000));
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
      List<Object> reply = a.run(uncached, new String[] {store.leaseKey(space, "meta"),
          store.leaseKey(space, "expiry")}, a.recordPrefix(), "noscript", "1000", "0", "3", "10", "2000", "12345",
          "g1");
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
        .hasMessageStartingWith("cannot reach the worker-id lease store, Redis at redis://127.0.0.1:" + dead + "/0: ");
  }

  /** #12 item 10: a wrong password was reported as "cannot reach ... Unable to connect". */
  @Test
  void aWrongPasswordIsReportedAsAnAuthenticationFailure(@TempDir Path dir) {
    try (PrivateRedis redis = PrivateRedis.start(dir, PrivateRedis.Persistence.NONE)) {
      redis.redis().configSet("requirepass", "right-one"); // our own server; this connection stays authenticated
      String uri = "redis://:wrong-one@127.0.0.1:" + redis.port();
      assertThatThrownBy(() -> RedisWorkerIdAssigner.builder().redisUri(uri).build())
          .isInstanceOf(GeneIdException.class)
          .hasMessageStartingWith("the worker-id lease store, Redis at redis://127.0.0.1:" + redis.port()
              + "/0, refused the credentials of the URI (authentication failed: WRONGPASS")
          .hasMessageEndingWith("): check the user and password")
          .hasMessageNotContaining("wrong-one");
      assertThatThrownBy(() -> RedisSegmentStore.builder().redisUri(uri).build())
          .hasMessageStartingWith("the segment store, Redis at redis://127.0.0.1:" + redis.port()
              + "/0, refused the credentials of the URI (authentication failed: WRONGPASS");
    }
  }

  /** Issue 11 scenario 10: a Redis older than 5.0 is refused when the assigner is built, with a clear message. */
  @Test
  void aRedisOlderThanFiveIsRefusedByVersion() {
    String what = "the worker-id lease store, Redis at redis://10.0.0.1:6379/0,";
    assertThatThrownBy(() -> RedisConnections.checkVersion("4.0.14", what)).isInstanceOf(GeneIdException.class)
        .hasMessage(what + " runs Redis 4.0.14; gene-id needs Redis 5.0 or later (its lease scripts read the "
            + "server's clock and run id before they write, which older servers refuse or replicate wrongly). "
            + "Upgrade Redis or use another store");
    assertThatThrownBy(() -> RedisConnections.checkVersion("3.2", what)).hasMessageContaining("runs Redis 3.2;");
    assertThatThrownBy(() -> RedisConnections.checkVersion(null, what))
        .hasMessage(what + " did not report its version (INFO server has no redis_version)");
    assertThatThrownBy(() -> RedisConnections.checkVersion("unstable", what))
        .hasMessage(what + " reports a version gene-id cannot read: redis_version unstable");
    RedisConnections.checkVersion("5.0.0", what);
    RedisConnections.checkVersion("7.0.15", what);
    RedisConnections.checkVersion("10.2.1", what);
    String info = "# Server\r\nredis_version:4.0.9\r\nrun_id:abc\r\n";
    assertThat(RedisConnections.infoField(info, "redis_version")).isEqualTo("4.0.9");
    assertThat(RedisConnections.infoField(info, "run_id")).isEqualTo("abc");
  }

  @Test
  void theStoreIsDescribedWithoutItsPassword() {
    assertThat(RedisConnections.describe(io.lettuce.core.RedisURI.create("redis://:s3cret@10.0.0.1:6380/2")))
        .isEqualTo("redis://10.0.0.1:6380/2");
    try (RedisWorkerIdAssigner a = assigner(space()).build()) {
      assertThat(a.toString()).contains("Redis at redis://127.0.0.1:6379/0").doesNotContain("@");
    }
  }

  @Test
  void propertiesBuildASharedRedisLeasedGenerator() {
    String space = space();
    store.agePool(space);
    Map<String, String> props = Map.of("worker-assigner", "redis", "redis-uri", TestRedis.URI,
        "redis-key-prefix", store.prefix, "space", space, "worker-id-min", "8", "worker-id-max", "9",
        "lease-ttl", TestTime.seconds(2).toMillis() + "ms", "gene-bits", "4", "sequence-bits", "10");
    GeneIdRegistry.Handle<LeasedGeneGenerator> g = LeasedGenerators.sharedGenerator(props);
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> again = LeasedGenerators.sharedGenerator(Map.copyOf(props))) {
      assertThat(again.generator()).isSameAs(g.generator());
      assertThat(g.generator().workerId()).isEqualTo(8);
      assertThat(g.geneBits()).isEqualTo(4);
      assertThat(store.redis().hget(store.workerKey(space, 8), "owner")).isNotNull();
    } finally {
      g.close();
      store.forgetPool(space);
    }
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "redis")))
        .hasMessage("redis-uri is required: a Redis URI such as redis://127.0.0.1:6379/0");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "redis", "redis-url", "x")))
        .hasMessageStartingWith("worker-assigner=redis has no property 'redis-url'; allowed: ");
  }
}
