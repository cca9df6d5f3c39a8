package io.geneid.server;

import io.geneid.core.snowflake.LeasedGenerators;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.segment.SegmentSettings;
import io.geneid.core.segment.SegmentStores;
import io.geneid.core.settings.StoreKeys;
import io.geneid.core.settings.SettingsReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Everything the server reads from its configuration, checked at once: an unknown key is an error naming it and
 * listing the allowed keys, a bad value names the key, the value and the range. Built by {@link #from(Map)} from
 * kebab-case keys (docs/server.md, "Configuration"); the worker-lease and layout keys are those of
 * {@link WorkerIdAssigners}.
 */
public final class ServerConfig {
  /** The server's own keys. */
  public static final List<String> SERVER_KEYS = List.of("host", "http-port", "grpc-port", "data-dir", "max-count",
      "max-request-bytes", "auth-tokens", "auth-tokens-file", "rate-limit", "rate-limit-burst", "access-log",
      "drain-timeout", "io-threads", "idle-timeout", "read-timeout", "max-connections", "grpc-keepalive-time",
      "grpc-max-connection-age", Tls.CERT_CHAIN, Tls.PRIVATE_KEY, Tls.CLIENT_CA);
  /** The segment store keys: {@code segment-} and the key the store's provider reads ({@link StoreKeys}). */
  static final String SEGMENT = "segment-";
  static final String SEGMENT_STORE = SegmentStores.SEGMENT_STORE;
  static final String SEGMENT_JDBC_URL = SEGMENT + StoreKeys.JDBC_URL;
  static final String SEGMENT_JDBC_USERNAME = SEGMENT + StoreKeys.JDBC_USERNAME;
  static final String SEGMENT_JDBC_PASSWORD = SEGMENT + StoreKeys.JDBC_PASSWORD;
  static final String SEGMENT_JDBC_TABLE = SEGMENT + StoreKeys.JDBC_TABLE;
  static final String SEGMENT_REDIS_URI = SEGMENT + StoreKeys.REDIS_URI;
  static final String SEGMENT_REDIS_KEY_PREFIX = SEGMENT + StoreKeys.REDIS_KEY_PREFIX;
  static final String SEGMENT_REDIS_ALLOW_WITHOUT_PERSISTENCE = SEGMENT + StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE;
  /** The segment keys; {@code segment-<k>} for each key {@code k} of {@link SegmentSettings#KEYS} but gene-bits. */
  public static final List<String> SEGMENT_KEYS = List.of(SEGMENT_STORE, SEGMENT_JDBC_URL,
      SEGMENT_JDBC_USERNAME, SEGMENT_JDBC_PASSWORD, SEGMENT_JDBC_TABLE, SEGMENT_REDIS_URI,
      SEGMENT_REDIS_KEY_PREFIX, SEGMENT_REDIS_ALLOW_WITHOUT_PERSISTENCE, "segment-keys", "segment-create-keys",
      "segment-max-keys", "segment-key-idle-timeout", "segment-min-step", "segment-max-step", "segment-duration", "segment-prefetch-ratio",
      "segment-fetch-timeout", "segment-prefetch-retry", "segment-thread-block");
  /** The keys whose values are secrets: never printed. */
  static final Set<String> SECRET_KEYS = Set.of("auth-tokens", SEGMENT_JDBC_PASSWORD, StoreKeys.JDBC_PASSWORD,
      StoreKeys.ZOOKEEPER_PASSWORD, StoreKeys.ETCD_PASSWORD);

  private static final Pattern SEGMENT_KEY = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  final String host;
  final int httpPort;
  final int grpcPort;
  final Path dataDir;
  final int maxCount;
  final int maxRequestBytes;
  final List<byte[]> authTokens;
  final double rateLimit;
  final double rateLimitBurst;
  final boolean accessLog;
  final Duration drainTimeout;
  final int ioThreads;
  final Duration idleTimeout;
  final Duration readTimeout;
  final int maxConnections;
  final Duration grpcKeepAliveTime;
  final Duration grpcMaxConnectionAge;
  final Duration segmentKeyIdleTimeout;
  /** TLS on both ports, null when off. */
  final @Nullable Tls tls;
  /** Whether data-dir was left at its default (relative to the working directory). */
  final boolean defaultDataDir;
  /** Whether the worker id is the static default 0 (no worker-assigner, worker-id or worker-id-from-hostname). */
  final boolean defaultWorkerId;
  final Map<String, String> leaseProperties;
  final GeneIdLayout layout;
  final String segmentStore;
  final String segmentJdbcUrl;
  final @Nullable String segmentJdbcUsername;
  final @Nullable String segmentJdbcPassword;
  final String segmentJdbcTable;
  final @Nullable String segmentRedisUri;
  final String segmentRedisKeyPrefix;
  final boolean segmentRedisAllowWithoutPersistence;
  final Set<String> segmentKeys;
  final boolean segmentCreateKeys;
  final int segmentMaxKeys;
  final SegmentSettings segmentSettings;

  private ServerConfig(SettingsReader s, Map<String, String> leaseProperties, GeneIdLayout layout,
      SegmentSettings segmentSettings) {
    host = s.string("host", "127.0.0.1");
    httpPort = s.intValue("http-port", -1, 65_535, 8080);
    grpcPort = s.intValue("grpc-port", -1, 65_535, 9090);
    dataDir = Path.of(s.string("data-dir", "gene-id-data")).toAbsolutePath().normalize();
    maxCount = s.intValue("max-count", 1, GeneIdGenerator.MAX_BATCH, 10_000);
    maxRequestBytes = s.intValue("max-request-bytes", 1024, 1 << 20, 8192);
    authTokens = tokens(s);
    rateLimit = s.doubleValue("rate-limit", 0, 1e9, 0);
    rateLimitBurst = s.doubleValue("rate-limit-burst", 1, 1e9, Math.max(1, 2 * rateLimit));
    accessLog = s.bool("access-log", false);
    drainTimeout = s.duration("drain-timeout", Duration.ZERO, Duration.ofMinutes(10), Duration.ofSeconds(10));
    ioThreads = s.intValue("io-threads", 0, 1024, 0);
    idleTimeout = s.duration("idle-timeout", Duration.ofMillis(100), Duration.ofDays(1), Duration.ofSeconds(60));
    readTimeout = s.duration("read-timeout", Duration.ofMillis(100), Duration.ofHours(1), Duration.ofSeconds(10));
    maxConnections = s.intValue("max-connections", 1, 1_000_000, defaultMaxConnections());
    grpcKeepAliveTime = s.duration("grpc-keepalive-time", Duration.ofSeconds(10), Duration.ofDays(1),
        Duration.ofMinutes(1));
    grpcMaxConnectionAge = s.duration("grpc-max-connection-age", Duration.ofSeconds(1), Duration.ofDays(365),
        Duration.ofMinutes(30));
    tls = Tls.read(s);
    defaultDataDir = !s.has("data-dir");
    defaultWorkerId = !s.has(WorkerIdAssigners.WORKER_ASSIGNER) && !s.has("worker-id")
        && !s.has("worker-id-from-hostname");
    checkStoreUris(s);
    this.leaseProperties = Map.copyOf(leaseProperties);
    this.layout = layout;
    segmentStore = s.string(SEGMENT_STORE, "jdbc");
    if (!segmentStore.equals("jdbc") && !segmentStore.equals("redis")) {
      throw new IllegalArgumentException(SEGMENT_STORE + " must be jdbc or redis but was '" + segmentStore + "'");
    }
    segmentJdbcUrl = s.string(SEGMENT_JDBC_URL, "jdbc:h2:file:" + dataDir.resolve("segments"));
    segmentJdbcUsername = s.has(SEGMENT_JDBC_USERNAME) ? s.string(SEGMENT_JDBC_USERNAME, "") : null;
    segmentJdbcPassword = s.has(SEGMENT_JDBC_PASSWORD) ? s.string(SEGMENT_JDBC_PASSWORD, "") : null;
    segmentJdbcTable = s.string(SEGMENT_JDBC_TABLE, "gene_id_segment");
    segmentRedisUri = s.has(SEGMENT_REDIS_URI) ? s.string(SEGMENT_REDIS_URI, "") : null;
    if (segmentStore.equals("redis") && segmentRedisUri == null) {
      throw new IllegalArgumentException(SEGMENT_REDIS_URI + " is required with segment-store=redis: a Redis URI such "
          + "as redis://host:6379/0");
    }
    segmentRedisKeyPrefix = s.string(SEGMENT_REDIS_KEY_PREFIX, "gene-id");
    segmentRedisAllowWithoutPersistence = s.bool(SEGMENT_REDIS_ALLOW_WITHOUT_PERSISTENCE, false);
    Set<String> keys = new LinkedHashSet<>();
    for (String k : s.string("segment-keys", "").split(",")) {
      String key = k.trim();
      if (key.isEmpty()) {
        continue;
      }
      if (!SEGMENT_KEY.matcher(key).matches()) {
        throw new IllegalArgumentException("segment-keys: a key must be 1 to 128 of A-Z a-z 0-9 . _ - : but was '"
            + ParentKey.clip(key) + "'");
      }
      keys.add(key);
    }
    segmentKeys = Set.copyOf(keys);
    segmentCreateKeys = s.bool("segment-create-keys", false);
    segmentMaxKeys = s.intValue("segment-max-keys", 1, 100_000, 1000);
    segmentKeyIdleTimeout = s.duration("segment-key-idle-timeout", Duration.ofMillis(100), Duration.ofDays(7),
        Duration.ofMinutes(10));
    if (segmentKeys.size() > segmentMaxKeys) {
      throw new IllegalArgumentException("segment-keys lists " + segmentKeys.size() + " keys, above segment-max-keys "
          + segmentMaxKeys);
    }
    this.segmentSettings = segmentSettings;
  }

  /**
   * The default connection cap: half the process's file limit (the other half stays for the stores, the mark file,
   * the jar and gRPC), at least 64 and at most 10,000.
   */
  static int defaultMaxConnections() {
    long files = 4096;
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      files = unix.getMaxFileDescriptorCount();
    }
    return (int) Math.max(64, Math.min(10_000, files / 2));
  }

  private static final Pattern HOST_PORT = Pattern.compile("[A-Za-z0-9._-]+:[0-9]{1,5}|\\[[0-9A-Fa-f:.]+\\]:[0-9]{1,5}");

  /**
   * The store addresses are checked here, at start-up and by {@code --check}, without contacting the store: a
   * Redis URI with a bad port, a JDBC URL of no driver on the class path, a ZooKeeper or etcd address without a
   * numeric port.
   */
  private static void checkStoreUris(SettingsReader s) {
    for (String key : List.of(StoreKeys.REDIS_URI, SEGMENT_REDIS_URI)) {
      if (s.has(key)) {
        String v = s.string(key, "");
        boolean ok;
        try {
          java.net.URI u = new java.net.URI(v);
          ok = (u.getScheme() != null && (u.getScheme().equals("redis") || u.getScheme().equals("rediss")
              || u.getScheme().equals("redis-sentinel"))) && u.getHost() != null
              && (u.getPort() == -1 || u.getPort() > 0 && u.getPort() <= 65_535);
        } catch (java.net.URISyntaxException e) {
          ok = false;
        }
        if (!ok) {
          throw new IllegalArgumentException(key + " must be a Redis URI such as redis://host:6379/0 but was '"
              + redact(v) + "'");
        }
      }
    }
    for (String key : List.of(StoreKeys.JDBC_URL, SEGMENT_JDBC_URL)) {
      if (s.has(key)) {
        String v = s.string(key, "");
        boolean ok = v.startsWith("jdbc:");
        if (ok) {
          try {
            java.sql.DriverManager.getDriver(v);
          } catch (java.sql.SQLException e) {
            throw new IllegalArgumentException(key + ": no JDBC driver on the class path takes '" + redact(v)
                + "' (the jar has H2, MariaDB and PostgreSQL)");
          }
        }
        if (!ok) {
          throw new IllegalArgumentException(key + " must be a JDBC URL (jdbc:h2:..., jdbc:mariadb://..., "
              + "jdbc:postgresql://...) but was '" + redact(v) + "'");
        }
      }
    }
    if (s.has(StoreKeys.ZOOKEEPER_CONNECT)) {
      String v = s.string(StoreKeys.ZOOKEEPER_CONNECT, "");
      String hosts = v.indexOf('/') >= 0 ? v.substring(0, v.indexOf('/')) : v;
      for (String h : hosts.split(",")) {
        if (!HOST_PORT.matcher(h.trim()).matches() || port(h) > 65_535 || port(h) < 1) {
          throw new IllegalArgumentException(StoreKeys.ZOOKEEPER_CONNECT + " must be host:port[,host:port...]"
              + "[/chroot] with ports in [1, 65535] but was '" + v + "'");
        }
      }
    }
    if (s.has(StoreKeys.ETCD_ENDPOINTS)) {
      String v = s.string(StoreKeys.ETCD_ENDPOINTS, "");
      for (String e : v.split(",")) {
        boolean ok;
        try {
          java.net.URI u = new java.net.URI(e.trim());
          ok = u.getScheme() != null && (u.getScheme().equals("http") || u.getScheme().equals("https"))
              && u.getHost() != null && u.getPort() > 0 && u.getPort() <= 65_535;
        } catch (java.net.URISyntaxException bad) {
          ok = false;
        }
        if (!ok) {
          throw new IllegalArgumentException(StoreKeys.ETCD_ENDPOINTS + " must be http(s)://host:port URLs, "
              + "comma-separated, but was '" + v + "'");
        }
      }
    }
  }

  private static int port(String hostPort) {
    String p = hostPort.substring(hostPort.lastIndexOf(':') + 1).trim();
    return p.length() > 5 ? 0 : Integer.parseInt(p);
  }

  /** A URL without its password ({@code user:secret@} becomes {@code user:***@}; {@code password=} values too). */
  static String redact(String url) {
    return url.replaceAll("(//[^/@:]*:)[^/@]*@", "$1***@").replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  /**
   * What the server says about its set-up at start (and {@code --check}): the absolute data folder, and warnings on
   * the static defaults. Lines for standard output first, then {@code "warning: "} lines for standard error.
   */
  public List<String> notes() {
    List<String> lines = new ArrayList<>();
    lines.add("gene-id-server: data folder " + dataDir + (defaultDataDir ? " (the default ./gene-id-data, "
        + "relative to the working directory " + Path.of("").toAbsolutePath() + ")" : ""));
    if (defaultWorkerId) {
      lines.add("warning: worker id 0 is the static default: a second server on worker id 0 issues the same ids "
          + "(a client refuses two such servers, servers cannot see each other); for more than one server, lease "
          + "the worker ids (worker-assigner=redis|jdbc|zookeeper|etcd) or give each its own worker-id");
    }
    if (defaultDataDir) {
      lines.add("warning: data-dir is the default ./gene-id-data of the working directory: started from another "
          + "directory the server starts on a fresh folder and repeats segment ids; set data-dir to a fixed path");
    }
    return lines;
  }

  /** Every key the server accepts, sorted. */
  public static Set<String> allowedKeys() {
    Set<String> keys = new TreeSet<>(SERVER_KEYS);
    keys.addAll(SEGMENT_KEYS);
    keys.addAll(leaseKeys());
    return keys;
  }

  private static Set<String> leaseKeys() {
    Set<String> keys = new TreeSet<>(WorkerIdAssigners.COMMON_ASSIGNER_KEYS);
    keys.addAll(WorkerIdAssigners.GENERATOR_KEYS);
    for (String type : List.of("static", "redis", "jdbc", "zookeeper", "etcd")) {
      try {
        keys.addAll(WorkerIdAssigners.provider(type).propertyKeys());
      } catch (IllegalArgumentException absent) {
        // that store's module is not on the class path: its keys are unknown here
      }
    }
    return keys;
  }

  /** A configuration from defaults only (the embedded set-up of {@code java -jar gene-id-server.jar}). */
  public static ServerConfig defaults() {
    return from(Map.of());
  }

  /**
   * Checks and reads {@code values}.
   *
   * @throws IllegalArgumentException naming the first unknown key (and listing the allowed ones) or the first bad
   *     value
   */
  public static ServerConfig from(Map<String, String> values) {
    return from(values, Map.of());
  }

  /**
   * As {@link #from(Map)}, with where each key came from ({@code "environment GENE_ID_SERVER_HTTP_PORT"}) for the
   * messages.
   */
  public static ServerConfig from(Map<String, String> values, Map<String, String> sources) {
    Set<String> allowed = allowedKeys();
    for (String key : values.keySet()) {
      if (!allowed.contains(key)) {
        String from = sources.containsKey(key) ? " (from " + sources.get(key) + ")" : "";
        throw new IllegalArgumentException("unknown configuration key '" + key + "'" + from + "; allowed keys: "
            + String.join(", ", allowed));
      }
    }
    SettingsReader all = SettingsReader.of(values);
    Path dataDir = Path.of(all.string("data-dir", "gene-id-data")).toAbsolutePath().normalize();
    Set<String> leaseKeys = leaseKeys();
    Map<String, String> lease = new LinkedHashMap<>();
    values.forEach((k, v) -> {
      if (leaseKeys.contains(k)) {
        lease.put(k, v);
      }
    });
    // the embedded default: a fixed worker id with its mark file in the data directory
    if (lease.getOrDefault(WorkerIdAssigners.WORKER_ASSIGNER, "static").equals("static")) {
      if (!lease.containsKey("worker-id") && !lease.containsKey("worker-id-from-hostname")) {
        lease.put("worker-id", "0");
      }
      if (!lease.containsKey("mark-file") && lease.containsKey("worker-id")) {
        lease.put("mark-file", dataDir.resolve("worker-" + lease.get("worker-id").trim() + ".mark").toString());
      }
    }
    GeneIdLayout layout = LeasedGenerators.check(lease);
    Map<String, Object> segment = new LinkedHashMap<>();
    for (String k : SegmentSettings.KEYS) {
      String serverKey = k.equals(SegmentSettings.SEGMENT_DURATION) ? k : SEGMENT + k;
      if (!k.equals(SegmentSettings.GENE_BITS) && values.containsKey(serverKey)) {
        segment.put(k, values.get(serverKey));
      }
    }
    segment.put(SegmentSettings.GENE_BITS, layout.geneBits());
    SegmentSettings segmentSettings = SegmentSettings.read(SettingsReader.of(segment).named(
        k -> k.equals(SegmentSettings.SEGMENT_DURATION) ? k : SEGMENT + k));
    return new ServerConfig(all, lease, layout, segmentSettings);
  }

  /**
   * The configuration of {@code file} (properties), then environment variables {@code GENE_ID_SERVER_<KEY>}, then
   * {@code overrides} (flags), each source above the previous one.
   */
  public static ServerConfig load(@Nullable Path file, Map<String, String> environment,
      Map<String, String> overrides) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> sources = new LinkedHashMap<>();
    if (file != null) {
      java.util.Properties p = new java.util.Properties();
      try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the configuration file " + file + ": " + e.getMessage(), e);
      }
      for (String k : p.stringPropertyNames()) {
        values.put(k.trim(), p.getProperty(k).trim());
        sources.put(k.trim(), "file " + file);
      }
    }
    environment.forEach((name, value) -> {
      if (name.startsWith(ENV_PREFIX) && name.length() > ENV_PREFIX.length()) {
        String key = name.substring(ENV_PREFIX.length()).toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        values.put(key, value.trim());
        sources.put(key, "environment " + name);
      }
    });
    overrides.forEach((k, v) -> {
      values.put(k, v);
      sources.put(k, "the command line");
    });
    return from(values, sources);
  }

  /** The prefix of environment variables read by {@link #load}. */
  public static final String ENV_PREFIX = "GENE_ID_SERVER_";

  private static List<byte[]> tokens(SettingsReader s) {
    List<String> texts = new ArrayList<>();
    if (s.has("auth-tokens")) {
      texts.addAll(Arrays.asList(s.string("auth-tokens", "").split(",")));
    }
    if (s.has("auth-tokens-file")) {
      Path file = Path.of(s.string("auth-tokens-file", ""));
      try {
        texts.addAll(Files.readAllLines(file, StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException("auth-tokens-file: cannot read " + file + ": " + e.getClass().getSimpleName(),
            e);
      }
    }
    List<byte[]> tokens = new ArrayList<>();
    for (String t : texts) {
      String token = t.trim();
      if (token.isEmpty() || token.startsWith("#")) {
        continue;
      }
      if (token.length() < 16 || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
        // the token itself is never printed
        throw new IllegalArgumentException("auth-tokens: every token must be at least 16 printable ASCII characters "
            + "without spaces; token " + (tokens.size() + 1) + " is not");
      }
      tokens.add(token.getBytes(StandardCharsets.US_ASCII));
    }
    return List.copyOf(tokens);
  }

  /** The HTTP port, -1 when off, 0 for any free port. */
  public int httpPort() {
    return httpPort;
  }

  public int grpcPort() {
    return grpcPort;
  }

  public GeneIdLayout layout() {
    return layout;
  }
}
