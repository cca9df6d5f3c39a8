package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.redis.PrivateRedis;
import io.geneid.redis.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four JVMs lease worker ids from a pool of three in a Redis the test starts itself, and the Redis fails the ways
 * operators see: it restarts from an older copy of its files (AOF {@code everysec} losing its tail, an older RDB, a
 * replica that lagged), restarts empty, loses single keys; meanwhile a JVM is paused past its TTL, one is killed and
 * one's clock steps back. No id may be issued twice.
 */
class RedisFaultTest {

  private static final String SPACE = "fault";

  @TempDir Path dir;

  private static Map<String, String> props(PrivateRedis redis) {
    return Map.of("worker-assigner", "redis", "redis-uri", redis.uri(), "space", SPACE, "worker-id-max", "2",
        "lease-ttl", "1s", "lease-acquire-timeout", "6s");
  }

  private static String key(String part) {
    return TestRedis.leaseKey("gene-id", SPACE, part);
  }

  @Test
  void rollbackToOlderFilesAndLostKeysNeverDuplicate() throws Exception {
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("redis"), PrivateRedis.Persistence.AOF_EVERYSEC)) {
      Path older = dir.resolve("older");
      FaultRun.Result r = new FaultRun("redis rollback", dir.resolve("run"))
          .props(props(redis))
          .jvms(4)
          .duration(Duration.ofSeconds(FaultRun.longProfile() ? 60 : 20))
          .at(Duration.ofSeconds(5), "copy the data files", c -> redis.copyFiles(older))
          .at(Duration.ofSeconds(7), "pause slot 0", c -> c.pause(0))
          .at(Duration.ofSeconds(8), "restart from the older files", c -> redis.restartFrom(older))
          .at(Duration.ofMillis(9_500), "resume slot 0", c -> c.resume(0))
          .at(Duration.ofSeconds(12), "DEL the expiry index", c -> redis.redis().del(key("expiry")))
          .at(Duration.ofMillis(12_500), "kill -9 slot 1", c -> c.kill(1))
          .at(Duration.ofSeconds(13), "DEL the pool's meta", c -> redis.redis().del(key("meta")))
          .run();
      System.out.println("redis rollback: " + r);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
      assertThat(r.maxCloseMillis()).as("longest close(): " + r).isLessThan(5_000);
    }
  }

  @Test
  void restartEmptyLostRecordAndClockStepNeverDuplicate() throws Exception {
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("redis"), PrivateRedis.Persistence.NONE)) {
      FaultRun.Result r = new FaultRun("redis forgets", dir.resolve("run"))
          .props(props(redis))
          .jvms(4)
          .duration(Duration.ofSeconds(FaultRun.longProfile() ? 60 : 18))
          .at(Duration.ofSeconds(6), "restart empty", c -> redis.restartEmpty())
          .at(Duration.ofSeconds(10), "DEL worker record 0", c -> redis.redis().del(key("w:0")))
          .at(Duration.ofSeconds(11), "slot 2 clock -2 s", c -> c.stepClock(2, -2_000))
          .at(Duration.ofSeconds(12), "pause slot 0", c -> c.pause(0))
          .at(Duration.ofMillis(14_500), "resume slot 0", c -> c.resume(0))
          .run();
      System.out.println("redis forgets: " + r);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
      assertThat(r.maxCloseMillis()).as("longest close(): " + r).isLessThan(5_000);
    }
  }
}
