package io.geneid.spring.boot;

import io.geneid.core.segment.SegmentStore;
import io.geneid.redis.RedisSegmentStore;
import java.time.Duration;

/** Everything that touches gene-id-redis classes; loaded only when gene-id-redis is on the class path. */
final class RedisSupport {

  private RedisSupport() {}

  /**
   * The segment store at {@code gene-id.redis.uri}; it owns its client and is closed with the context. A Redis that
   * keeps nothing on disk is refused unless {@code gene-id.redis.segment-allow-without-persistence}.
   */
  static SegmentStore segmentStore(String uri, String keyPrefix, Duration timeout, boolean allowWithoutPersistence) {
    return RedisSegmentStore.builder().redisUri(uri).keyPrefix(keyPrefix).commandTimeout(timeout)
        .allowWithoutPersistence(allowWithoutPersistence).build();
  }
}
