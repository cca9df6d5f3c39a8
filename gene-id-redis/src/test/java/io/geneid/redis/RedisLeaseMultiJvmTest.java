package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.LeaseMultiJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Four JVMs share one Redis pool of three worker ids; one is paused past its TTL; no id may repeat. */
class RedisLeaseMultiJvmTest {

  @TempDir Path dir;

  @Test
  void fourJvmsOneRedisZeroDuplicates() throws Exception {
    String space = "gid_lease_mj" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    try (TestRedis store = new TestRedis("lease_redis")) {
      store.agePool(space);
      Map<String, String> props = Map.of("worker-assigner", "redis", "redis-uri", TestRedis.URI,
          "redis-key-prefix", store.prefix, "space", space, "worker-id-max", "2", "lease-ttl", "1s",
          "lease-acquire-timeout", "3s");
      // the pause comes 9 s in: the other three JVMs must be running and competing by then, and a JVM may take
      // several seconds to start on a loaded machine
      LeaseMultiJvm.Result r = LeaseMultiJvm.run("redis", props, 4, Duration.ofSeconds(20), Duration.ofSeconds(9),
          Duration.ofMillis(2500), dir);
      System.out.println("multi-JVM Redis: " + r);
      assertThat(r.duplicates()).as("duplicate ids").isZero();
      assertThat(r.ids()).isGreaterThan(10_000);
      assertThat(r.idsPerWorker().keySet()).isSubsetOf(0L, 1L, 2L);
      assertThat(r.takeovers()).as("takeovers").isPositive();
      assertThat(r.fenced() + r.lost()).as("the paused JVM was fenced or lost its lease").isPositive();
    }
  }
}
