package io.geneid.redis;

import io.geneid.core.segment.SegmentStore;
import io.geneid.core.segment.SegmentStoreProvider;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.time.Duration;
import java.util.Set;

/**
 * {@code segment-store=redis}: a {@link RedisSegmentStore}. Keys: {@code redis-uri} (required),
 * {@code redis-key-prefix} (default {@code gene-id}), {@code redis-timeout} (connect and command timeout, in
 * [10ms, 60s], default 2s), {@code redis-allow-without-persistence} (default false).
 */
public final class RedisSegmentStoreProvider implements SegmentStoreProvider {

  @Override
  public String type() {
    return "redis";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(StoreKeys.REDIS_URI, StoreKeys.REDIS_KEY_PREFIX, StoreKeys.REDIS_TIMEOUT,
        StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE);
  }

  /** Checks {@code redis-uri} (present and parseable) and the key prefix without connecting. */
  @Override
  public void check(SettingsReader props) {
    RedisStoreSettings.uri(props);
    RedisStoreSettings.keyPrefix(props, RedisSegmentStore.DEFAULT_KEY_PREFIX);
    timeout(props);
    props.bool(StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE, false);
  }

  @Override
  public SegmentStore create(SettingsReader props) {
    return RedisSegmentStore.builder().redisUri(RedisStoreSettings.uri(props))
        .keyPrefix(RedisStoreSettings.keyPrefix(props, RedisSegmentStore.DEFAULT_KEY_PREFIX))
        .commandTimeout(timeout(props))
        .allowWithoutPersistence(props.bool(StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE, false))
        .build();
  }

  private static Duration timeout(SettingsReader props) {
    return props.duration(StoreKeys.REDIS_TIMEOUT, Duration.ofMillis(10), Duration.ofSeconds(60),
        RedisSegmentStore.DEFAULT_TIMEOUT);
  }
}
