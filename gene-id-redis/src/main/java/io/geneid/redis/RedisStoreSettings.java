package io.geneid.redis;

import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;

/** The settings the Redis store providers share, read from {@link StoreKeys}. */
final class RedisStoreSettings {

  private RedisStoreSettings() {}

  /** {@code redis-uri}: present and parseable (no connection is made). */
  static String uri(SettingsReader props) {
    String uri = props.requiredString(StoreKeys.REDIS_URI, "a Redis URI such as redis://127.0.0.1:6379/0");
    props.checked(() -> RedisConnections.parse(StoreKeys.REDIS_URI, uri));
    return uri;
  }

  /** {@code redis-key-prefix}: non-empty and free of braces, named as the reader names it. */
  static String keyPrefix(SettingsReader props, String defaultPrefix) {
    String prefix = props.string(StoreKeys.REDIS_KEY_PREFIX, defaultPrefix);
    try {
      return RedisConnections.checkKeyPrefix(prefix);
    } catch (InvalidSettingException e) {
      throw props.named(new InvalidSettingException(StoreKeys.REDIS_KEY_PREFIX, e.value(), e.rule(), e));
    }
  }
}
