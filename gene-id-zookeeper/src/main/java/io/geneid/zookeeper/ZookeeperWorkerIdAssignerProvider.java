package io.geneid.zookeeper;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssignerProvider;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code worker-assigner=zookeeper}: a {@link ZookeeperWorkerIdAssigner}. Keys: {@code zookeeper-connect}
 * (required, e.g. {@code zk1:2181,zk2:2181,zk3:2181} or {@code 127.0.0.1:2181/chroot}), {@code zookeeper-base-path}
 * (default {@code /gene-id}), {@code zookeeper-session-timeout} (at least {@code lease-ttl}, default the TTL),
 * {@code zookeeper-connection-timeout} (how long a call waits for a connection, default TTL / 3 within
 * [100ms, 5s]), {@code zookeeper-username} and {@code zookeeper-password} (digest authentication, never printed), and
 * the common {@code space}, {@code worker-id-min}, {@code worker-id-max}, {@code lease-ttl},
 * {@code lease-acquire-timeout}, {@code lease-owner}.
 */
public final class ZookeeperWorkerIdAssignerProvider implements WorkerIdAssignerProvider {

  public static final String CONNECT = StoreKeys.ZOOKEEPER_CONNECT;
  public static final String BASE_PATH = StoreKeys.ZOOKEEPER_BASE_PATH;
  public static final String SESSION_TIMEOUT = StoreKeys.ZOOKEEPER_SESSION_TIMEOUT;
  public static final String CONNECTION_TIMEOUT = StoreKeys.ZOOKEEPER_CONNECTION_TIMEOUT;
  public static final String USERNAME = StoreKeys.ZOOKEEPER_USERNAME;
  public static final String PASSWORD = StoreKeys.ZOOKEEPER_PASSWORD;

  private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?");
  private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._-]+)+");

  @Override
  public String type() {
    return "zookeeper";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(CONNECT, BASE_PATH, SESSION_TIMEOUT, CONNECTION_TIMEOUT, USERNAME, PASSWORD);
  }

  @Override
  public WorkerIdAssigner create(SettingsReader props) {
    return builder(props).connectString(connect(props)).build();
  }

  /** Checks every key of this type offline: nothing connects. */
  @Override
  public void check(SettingsReader props) {
    connect(props);
    builder(props);
  }

  private static String connect(SettingsReader props) {
    return checkConnectString(props.nameOf(CONNECT), props.requiredString(CONNECT,
        "a ZooKeeper connect string such as zk1:2181,zk2:2181,zk3:2181"));
  }

  /** Every setting but the connect string, checked. */
  private static ZookeeperWorkerIdAssigner.Builder builder(SettingsReader props) {
    WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
    ZookeeperWorkerIdAssigner.Builder b = ZookeeperWorkerIdAssigner.builder().leaseSettings(s)
        .basePath(checkBasePath(props.nameOf(BASE_PATH),
            props.string(BASE_PATH, ZookeeperWorkerIdAssigner.DEFAULT_BASE_PATH)));
    if (props.has(SESSION_TIMEOUT)) {
      b.sessionTimeout(props.duration(SESSION_TIMEOUT, s.ttl(), Duration.ofHours(1), s.ttl()));
    }
    if (props.has(CONNECTION_TIMEOUT)) {
      b.connectionTimeout(props.duration(CONNECTION_TIMEOUT, Duration.ofMillis(100), Duration.ofMinutes(1),
          Duration.ofSeconds(1)));
    }
    if (props.has(USERNAME) != props.has(PASSWORD)) {
      throw new IllegalArgumentException(props.nameOf(USERNAME) + " and " + props.nameOf(PASSWORD)
          + " must be given together (digest authentication) but only " + props.nameOf(props.has(USERNAME) ? USERNAME
          : PASSWORD) + " was");
    }
    if (props.has(USERNAME)) {
      b.digest(props.string(USERNAME, ""), props.string(PASSWORD, ""));
    }
    return b;
  }

  /**
   * A connect string: {@code host:port} pairs separated by commas, an optional chroot path at the end. One that
   * carries credentials ({@code user:password@host}) is refused without being shown.
   *
   * @throws IllegalArgumentException naming {@code key}
   */
  static String checkConnectString(String key, String value) {
    String v = value.trim();
    if (v.contains("@")) {
      throw new IllegalArgumentException(key + " must not carry credentials (use zookeeper-username and "
          + "zookeeper-password); its value is not shown");
    }
    int slash = v.indexOf('/');
    String hosts = slash < 0 ? v : v.substring(0, slash);
    boolean ok = !hosts.isEmpty() && (slash < 0 || PATH.matcher(v.substring(slash)).matches());
    for (String host : hosts.split(",", -1)) {
      var m = HOST_PORT.matcher(host.trim());
      ok &= m.matches() && (m.group(2) == null || Integer.parseInt(m.group(2).substring(1)) <= 65_535);
    }
    if (!ok) {
      throw new IllegalArgumentException(key + " must be host:port[,host:port...][/chroot] such as "
          + "zk1:2181,zk2:2181,zk3:2181 but was '" + v + "'");
    }
    return v;
  }

  /**
   * An absolute ZooKeeper path of letters, digits and {@code . _ -} segments, without a trailing slash.
   *
   * @throws IllegalArgumentException naming {@code key}
   */
  static String checkBasePath(String key, String value) {
    if (!PATH.matcher(value).matches() || value.length() > 200 || value.contains("/./") || value.contains("/../")
        || value.endsWith("/.") || value.endsWith("/..")) {
      throw new IllegalArgumentException(key + " must be an absolute ZooKeeper path of segments of A-Z a-z 0-9 . _ - "
          + "(at most 200 characters) such as /gene-id but was '" + value + "'");
    }
    return value;
  }
}
