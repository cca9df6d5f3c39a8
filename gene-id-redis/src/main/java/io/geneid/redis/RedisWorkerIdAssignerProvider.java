package io.geneid.redis;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssignerProvider;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.time.Duration;
import java.util.Set;

/**
 * {@code worker-assigner=redis}: a {@link RedisWorkerIdAssigner}. Keys: {@code redis-uri} (required, e.g.
 * {@code redis://127.0.0.1:6379/0}, {@code redis-sentinel://h1:26379,h2:26379,h3:26379/0#mymaster} or
 * {@code redis-cluster://h1:6379,h2:6379,h3:6379}), {@code redis-key-prefix} (default {@code gene-id}),
 * {@code redis-timeout}
 * (command timeout, default TTL / 3 within [100ms, 5s]), and the common {@code space}, {@code worker-id-min},
 * {@code worker-id-max}, {@code lease-ttl}, {@code lease-acquire-timeout}, {@code lease-owner}.
 */
public final class RedisWorkerIdAssignerProvider implements WorkerIdAssignerProvider {

  public static final String REDIS_URI = StoreKeys.REDIS_URI;
  public static final String REDIS_KEY_PREFIX = StoreKeys.REDIS_KEY_PREFIX;
  public static final String REDIS_TIMEOUT = StoreKeys.REDIS_TIMEOUT;

  @Override
  public String type() {
    return "redis";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(REDIS_URI, REDIS_KEY_PREFIX, REDIS_TIMEOUT);
  }

  @Override
  public WorkerIdAssigner create(SettingsReader props) {
    WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
    String uri = uri(props);
    props.checked(() -> RedisConnections.parse(REDIS_URI, uri)); // a bad URI is named by its key, before connecting
    RedisWorkerIdAssigner.Builder b = RedisWorkerIdAssigner.builder()
        .redisUri(uri)
        .keyPrefix(props.string(REDIS_KEY_PREFIX, RedisWorkerIdAssigner.DEFAULT_KEY_PREFIX))
        .leaseSettings(s);
    if (props.has(REDIS_TIMEOUT)) {
      b.commandTimeout(timeout(props, s));
    }
    return b.build();
  }

  /** Checks {@code redis-uri} (present and parseable) and {@code redis-timeout} without connecting. */
  @Override
  public void check(SettingsReader props) {
    WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
    props.checked(() -> RedisConnections.parse(REDIS_URI, uri(props)));
    timeout(props, s);
  }

  private static String uri(SettingsReader props) {
    return props.requiredString(REDIS_URI, "a Redis URI such as redis://127.0.0.1:6379/0");
  }

  private static Duration timeout(SettingsReader props, WorkerIdAssigners.LeaseSettings s) {
    return props.duration(REDIS_TIMEOUT, Duration.ofMillis(10), s.ttl(), s.ttl());
  }
}
