package io.geneid.redis;

import io.geneid.core.segment.SegmentMultiJvm;
import io.geneid.core.testing.TestTime;
import java.util.List;

/**
 * One process of {@link RedisSegmentMultiJvmTest}: {@link SegmentMultiJvm#issue} over a shared Redis. Store
 * arguments: redisUri keyPrefix.
 */
public final class SegmentRedisJvmMain {

  private SegmentRedisJvmMain() {}

  public static void main(String[] args) throws Exception {
    List<String> store = SegmentMultiJvm.storeArgs(args);
    // the default 2 s, at the time scale the test JVM passed on: three JVMs starting at once on a busy machine
    try (RedisSegmentStore s = RedisSegmentStore.builder().redisUri(store.get(0)).keyPrefix(store.get(1))
        .commandTimeout(TestTime.seconds(2)).allowWithoutPersistence(true).build()) {
      SegmentMultiJvm.issue(args, s);
    }
  }
}
