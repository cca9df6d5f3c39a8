package io.geneid.spring.boot;

import io.geneid.core.SegmentStore;
import io.geneid.redis.RedisSegmentStore;
import java.time.Duration;

/** Everything that touches gene-id-redis classes; loaded only when gene-id-redis is on the class path. */
final class RedisSupport {

  private RedisSupport() {}

  /** The segment store at {@code gene-id.redis.uri}; it owns its client and is closed with the context. */
  static SegmentStore segmentStore(String uri, String keyPrefix, Duration timeout) {
    return RedisSegmentStore.builder(uri).keyPrefix(keyPrefix).timeout(timeout).build();
  }
}
