package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.segment.SegmentMultiJvm;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three JVMs issue segment ids from one Redis at the same time: zero duplicates. */
class RedisSegmentMultiJvmTest {

  @Test
  void threeJvmsSharingOneRedisNeverIssueTheSameId(@TempDir Path dir) throws Exception {
    try (TestRedis redis = new TestRedis("segment")) {
      Set<Long> ids = SegmentMultiJvm.run(SegmentRedisJvmMain.class, List.of(TestRedis.URI, redis.prefix), dir);
      // every value the three processes took came from the one counter
      long counter = Long.parseLong(redis.redis().get(redis.segmentKey(SegmentMultiJvm.TAG)));
      assertThat(ids).allMatch(id -> (id >>> 6) <= counter);
    }
  }
}
