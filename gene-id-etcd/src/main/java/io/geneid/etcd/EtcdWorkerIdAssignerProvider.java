package io.geneid.etcd;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssignerProvider;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code worker-assigner=etcd}: an {@link EtcdWorkerIdAssigner}. Keys: {@code etcd-endpoints} (required,
 * comma-separated, e.g. {@code http://etcd1:2379,http://etcd2:2379}; credentials in them are refused without being
 * shown), {@code etcd-key-prefix} (default {@code /gene-id}), {@code etcd-timeout} (the timeout of every call,
 * default TTL / 3 within [100ms, 5s]), {@code etcd-username} and {@code etcd-password} (etcd authentication, never
 * printed), and the common {@code space}, {@code worker-id-min}, {@code worker-id-max}, {@code lease-ttl},
 * {@code lease-acquire-timeout}, {@code lease-owner}.
 */
public final class EtcdWorkerIdAssignerProvider implements WorkerIdAssignerProvider {

  public static final String ENDPOINTS = StoreKeys.ETCD_ENDPOINTS;
  public static final String KEY_PREFIX = StoreKeys.ETCD_KEY_PREFIX;
  public static final String TIMEOUT = StoreKeys.ETCD_TIMEOUT;
  public static final String USERNAME = StoreKeys.ETCD_USERNAME;
  public static final String PASSWORD = StoreKeys.ETCD_PASSWORD;

  private static final Pattern PREFIX = Pattern.compile("(/[A-Za-z0-9._-]+)+");

  @Override
  public String type() {
    return "etcd";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(ENDPOINTS, KEY_PREFIX, TIMEOUT, USERNAME, PASSWORD);
  }

  @Override
  public WorkerIdAssigner create(SettingsReader props) {
    return builder(props).endpoints(endpoints(props)).build();
  }

  /** Checks every key of this type offline: nothing connects. */
  @Override
  public void check(SettingsReader props) {
    checkEndpoints(props.nameOf(ENDPOINTS), endpoints(props));
    builder(props);
  }

  private static String endpoints(SettingsReader props) {
    String value = props.requiredString(ENDPOINTS, "etcd endpoints such as http://127.0.0.1:2379");
    checkEndpoints(props.nameOf(ENDPOINTS), value);
    return value;
  }

  private static EtcdWorkerIdAssigner.Builder builder(SettingsReader props) {
    WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
    EtcdWorkerIdAssigner.Builder b = EtcdWorkerIdAssigner.builder().leaseSettings(s)
        .keyPrefix(checkKeyPrefix(props.nameOf(KEY_PREFIX),
            props.string(KEY_PREFIX, EtcdWorkerIdAssigner.DEFAULT_KEY_PREFIX)));
    if (props.has(TIMEOUT)) {
      b.timeout(props.duration(TIMEOUT, Duration.ofMillis(100), Duration.ofMinutes(1), Duration.ofSeconds(1)));
    }
    if (props.has(USERNAME) != props.has(PASSWORD)) {
      throw new IllegalArgumentException(props.nameOf(USERNAME) + " and " + props.nameOf(PASSWORD)
          + " must be given together but only " + props.nameOf(props.has(USERNAME) ? USERNAME : PASSWORD) + " was");
    }
    if (props.has(USERNAME)) {
      b.credentials(props.string(USERNAME, ""), props.string(PASSWORD, ""));
    }
    return b;
  }

  /**
   * Comma-separated {@code http://host:port} or {@code https://host:port} endpoints. One that carries credentials
   * ({@code http://user:password@host}) is refused without being shown.
   *
   * @throws IllegalArgumentException naming {@code key}
   */
  static List<String> checkEndpoints(String key, String value) {
    List<String> out = new ArrayList<>();
    for (String part : value.split(",", -1)) {
      String e = part.trim();
      if (e.contains("@")) {
        throw new IllegalArgumentException(key + " must not carry credentials (use etcd-username and etcd-password); "
            + "its value is not shown");
      }
      URI uri;
      try {
        uri = new URI(e);
      } catch (URISyntaxException ex) {
        uri = null;
      }
      if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          || uri.getHost() == null || uri.getPort() < 1 || uri.getPort() > 65_535
          || !(uri.getPath() == null || uri.getPath().isEmpty() || "/".equals(uri.getPath()))
          || uri.getQuery() != null) {
        throw new IllegalArgumentException(key + " must be http(s)://host:port endpoints separated by commas, such as "
            + "http://127.0.0.1:2379, but was '" + value.trim() + "'");
      }
      out.add(e);
    }
    return out;
  }

  /**
   * A key prefix: {@code /} and segments of {@code A-Z a-z 0-9 . _ -}, at most 200 characters.
   *
   * @throws IllegalArgumentException naming {@code key}
   */
  static String checkKeyPrefix(String key, String value) {
    if (!PREFIX.matcher(value).matches() || value.length() > 200) {
      throw new IllegalArgumentException(key + " must be / and segments of A-Z a-z 0-9 . _ - (at most 200 "
          + "characters) such as /gene-id but was '" + value + "'");
    }
    return value;
  }
}
