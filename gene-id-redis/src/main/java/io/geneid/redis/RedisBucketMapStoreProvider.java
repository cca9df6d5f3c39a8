package io.geneid.redis;

import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.bucket.BucketMapStoreProvider;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.util.Set;

/**
 * {@code map-store=redis}: a {@link RedisBucketMapStore}. Keys: {@code redis-uri} (required),
 * {@code redis-key-prefix} (default {@code gene-id}).
 */
public final class RedisBucketMapStoreProvider implements BucketMapStoreProvider {

  @Override
  public String type() {
    return "redis";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(StoreKeys.REDIS_URI, StoreKeys.REDIS_KEY_PREFIX);
  }

  /** Checks {@code redis-uri} (present and parseable) and the key prefix without connecting. */
  @Override
  public void check(SettingsReader props) {
    RedisStoreSettings.uri(props);
    RedisStoreSettings.keyPrefix(props, RedisBucketMapStore.DEFAULT_KEY_PREFIX);
  }

  @Override
  public BucketMapStore create(SettingsReader props) {
    return RedisBucketMapStore.builder().redisUri(RedisStoreSettings.uri(props))
        .keyPrefix(RedisStoreSettings.keyPrefix(props, RedisBucketMapStore.DEFAULT_KEY_PREFIX))
        .build();
  }
}
