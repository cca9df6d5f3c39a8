package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review w39r2 of #39, sound cases kept as regression tests: a counter set negative below a store's last end, and a
 * counter whose claim would overflow, hand nothing out (private redis-server only).
 */
class RedisSegmentCounterEdgeReviewTest {

  private static RedisSegmentStore store(PrivateRedis redis) {
    return RedisSegmentStore.builder().redisUri(redis.uri()).allowWithoutPersistence(true)
        .commandTimeout(Duration.ofSeconds(1)).build();
  }

  @Test
  void aNegativeOrOverflowingCounterHandsNothingOut(@TempDir Path dir) {
    try (PrivateRedis redis = PrivateRedis.start(dir, PrivateRedis.Persistence.NONE);
        RedisSegmentStore a = store(redis);
        RedisSegmentStore fresh = store(redis)) {
      a.nextSegment("neg", 10);
      redis.redis().set(a.key("neg"), "-5"); // an operator's mistake, guard intact
      assertThatThrownBy(() -> a.nextSegment("neg", 10)).isInstanceOf(GeneIdException.class)
          .hasMessageContaining("was lost").hasMessageContaining("found the counter back at -5");
      redis.redis().set(fresh.key("neg2"), "-5"); // no store knows an end: the Java check refuses
      assertThatThrownBy(() -> fresh.nextSegment("neg2", 3)).isInstanceOf(GeneIdException.class)
          .hasMessageContaining("must not be negative");
      redis.redis().set(fresh.key("max"), Long.toString(Long.MAX_VALUE - 3));
      assertThatThrownBy(() -> fresh.nextSegment("max", 10)).isInstanceOf(GeneIdException.class)
          .hasMessageContaining("overflow");
      assertThatThrownBy(() -> fresh.nextSegment("max", 10)).isInstanceOf(GeneIdException.class);
    }
  }
}
