package io.geneid.spring.boot;

import io.geneid.core.snowflake.SnowflakeSettings;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.internal.StoreUrls;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.GeneClock;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code gene-id.*} properties, bound once by Spring Boot onto these records and read by the core's
 * {@link SettingsReader}, so they follow the same rules, defaults and messages as ShardingSphere's properties. The
 * layout fields (epoch and the four widths) must be the same in every process that writes ids to the same tables,
 * and must not change once ids are written.
 *
 * <pre>
 * gene-id:
 *   worker-id: "3"               # required: one per running process, in [0, 2^worker-bits - 1]; quoted
 *   gene-bits: 6                 # 64 gene buckets; shard count must divide 2^gene-bits
 *   epoch: 2025-01-01T00:00:00Z
 * </pre>
 *
 * <p>With {@code worker-assigner: redis} or {@code jdbc} the worker id is leased instead ({@code gene-id.lease.*},
 * {@code gene-id.redis.*}, {@code gene-id.jdbc.*}); with {@code gene-id.segment.store} set, segment generators are
 * created for {@code gene-id.segment.tags} as well.
 *
 * <p>Every value is checked at start-up; a wrong one stops the application with a message naming the property and
 * its allowed range, e.g. {@code gene-id.gene-bits must be in [0, 16] but was 17}. A {@code gene-id.*} key that no
 * setting reads stops it too, naming the key and the closest valid one.
 *
 * @param epoch Instant that timestamp 0 of every id stands for (ISO-8601, e.g. 2025-01-01T00:00:00Z): a whole
 *     millisecond, not in the future. Fixed for the life of the data.
 * @param timestampBits T: bits of the millisecond timestamp, in [35, 63]; 41 bits last about 69 years. T + W + S + G
 *     must be 63.
 * @param workerBits W: bits of the worker id, in [0, 28]; 2^W processes can issue ids at the same time.
 * @param sequenceBits S: bits of the per-gene sequence, in [0, 28]; 2^S ids per millisecond per gene per worker.
 * @param geneBits G: bits of the gene (the low bits of the parent key), in [0, 16]; 2^G gene buckets, so any shard
 *     count that divides 2^G routes children with their parents. 0 makes a classic Snowflake.
 * @param workerId This process's worker id, in [0, 2^worker-bits - 1]. Required when worker-assigner is static: give
 *     every running process its own (for example a StatefulSet ordinal); two processes with one worker id issue
 *     duplicates.
 * @param workerAssigner Where the worker id comes from. static: gene-id.worker-id. redis, jdbc, zookeeper or etcd:
 *     leased from a store shared by every process of gene-id.lease.space (needs io.geneid:gene-id-redis,
 *     io.geneid:gene-id-jdbc, io.geneid:gene-id-zookeeper or io.geneid:gene-id-etcd). none: no snowflake generator
 *     (segment mode only).
 * @param maxBorrowMillis How far, in ms, a gene may run ahead of the clock when its sequence is used up, and how
 *     large a clock step back is absorbed without waiting; in [0, 60000].
 * @param clockBackwardsMaxWait How long a caller waits for a clock that stepped back further than max-borrow-millis
 *     before the generator fails with ClockMovedBackwardsException, in [0, 1h]; 0 fails at once. Only a wall clock
 *     steps back.
 * @param clock The time source. system: the wall clock read once and advanced by the monotonic clock, never steps
 *     back inside a process; wall: follows every step of the wall clock, backwards ones included.
 * @param shardingCheck Whether every ShardingSphere-JDBC data source bean is checked for gene sharding mistakes at
 *     start-up (gene-bits that differ between key generator and GENE_MOD, nodes no gene reaches, targets without an
 *     _index suffix); on when gene-id-shardingsphere is on the class path.
 * @param lease the worker-id lease
 * @param redis the Redis of leases and segment counters
 * @param jdbc the database of leases and segments
 * @param segment segment mode
 * @param json ids in JSON
 * @param zookeeper the ZooKeeper of leases
 * @param etcd the etcd of leases
 */
@ConfigurationProperties(prefix = GeneIdProperties.PREFIX, ignoreUnknownFields = false)
public record GeneIdProperties(
    @DefaultValue(DEFAULT_EPOCH) Instant epoch,
    @DefaultValue("41") int timestampBits,
    @DefaultValue("8") int workerBits,
    @DefaultValue("8") int sequenceBits,
    @DefaultValue("6") int geneBits,
    @Nullable Long workerId,
    @DefaultValue("static") WorkerAssigner workerAssigner,
    @DefaultValue("10") long maxBorrowMillis,
    @DefaultValue("1s") Duration clockBackwardsMaxWait,
    @DefaultValue("system") ClockSource clock,
    @DefaultValue("true") boolean shardingCheck,
    @DefaultValue Lease lease,
    @DefaultValue Redis redis,
    @DefaultValue Jdbc jdbc,
    @DefaultValue Segment segment,
    @DefaultValue Json json,
    @DefaultValue Zookeeper zookeeper,
    @DefaultValue Etcd etcd) {

  /** The prefix of every property. */
  public static final String PREFIX = "gene-id";

  /** {@link GeneIdLayout#DEFAULT_EPOCH} as text, for the binder; a test pins the two together. */
  static final String DEFAULT_EPOCH = "2025-01-01T00:00:00Z";

  /**
   * Where the worker id comes from. {@link GeneIdAutoConfiguration} creates a {@code GeneSnowflakeGenerator} for
   * {@link #STATIC} and a {@code LeasedGeneGenerator} for {@link #REDIS} and {@link #JDBC}, each only when the
   * application has no {@link io.geneid.core.GeneIdGenerator} bean of its own.
   */
  public enum WorkerAssigner {
    /** The worker id is {@code gene-id.worker-id}. */
    STATIC,
    /** Leased from Redis ({@code gene-id-redis}), {@code gene-id.redis.uri}. */
    REDIS,
    /** Leased from a database table ({@code gene-id-jdbc}): {@code gene-id.jdbc.url} or the application's DataSource. */
    JDBC,
    /** Leased from ZooKeeper ({@code gene-id-zookeeper}): {@code gene-id.zookeeper.connect}. */
    ZOOKEEPER,
    /** Leased from etcd ({@code gene-id-etcd}): {@code gene-id.etcd.endpoints}. */
    ETCD,
    /** No snowflake generator: for applications that only use segment mode. */
    NONE
  }

  /** The store of segment mode. */
  public enum SegmentStoreType {
    /** A table ({@code gene-id-jdbc}): {@code gene-id.jdbc.url} or the application's DataSource. */
    JDBC,
    /** Redis counters ({@code gene-id-redis}) at {@code gene-id.redis.uri}. */
    REDIS
  }

  /** The generator's time source. */
  public enum ClockSource {
    /** {@link GeneClock#system()}: monotonic inside the process. */
    SYSTEM,
    /** {@link GeneClock#wall()}: {@code System.currentTimeMillis()}. */
    WALL
  }

  /**
   * {@code gene-id.lease.*}: the worker-id lease, for {@code worker-assigner} redis, jdbc, zookeeper or etcd. Unset values take the
   * core's defaults.
   *
   * @param space The pool of worker ids (1 to 64 of A-Z a-z 0-9 . _ -): processes of one service share a space,
   *     services sharing a store use different ones. Default: default.
   * @param workerIdMin The lowest worker id of this pool (a datacenter's sub-range). Default: 0.
   * @param workerIdMax The highest worker id of this pool. Default: 2^worker-bits - 1.
   * @param ttl How long a lease lasts without renewal, in [100ms, 1h]: a process that stops renewing (crash, pause)
   *     fences itself and its worker id is free for another after this. Use the same TTL in every process of a space.
   * @param renewInterval How often the lease is renewed, at least 10ms and below ttl. Default: ttl / 3.
   * @param acquireTimeout How long start-up waits for a free worker id before it fails, in [0, 1h]. Default: 2 x ttl.
   * @param owner The holder name stored with the lease and shown in exhaustion messages. Default: pid@host.
   */
  public record Lease(@Nullable String space, @Nullable Long workerIdMin, @Nullable Long workerIdMax,
      @Nullable Duration ttl, @Nullable Duration renewInterval, @Nullable Duration acquireTimeout,
      @Nullable String owner) {}

  /**
   * {@code gene-id.redis.*}: the Redis of worker-id leases and of segment counters (gene-id-redis).
   *
   * @param uri The Redis server, e.g. redis://127.0.0.1:6379/0 or redis://:password@host:6379/0. Required for Redis.
   * @param timeout Command timeout. Default: leases ttl / 3 within [100ms, 5s], segment counters 2s.
   * @param leaseKeyPrefix Prefix of the lease keys (<prefix>:lease:{<space>}:...). Default: gene-id.
   * @param segmentKeyPrefix Prefix of the segment counter keys (<prefix>:segment:<tag>), as for the lease keys.
   * @param segmentAllowWithoutPersistence Accept a segment Redis that keeps nothing on disk (appendonly no, no save
   *     points). It forgets its counters when it restarts, and processes then issue segment values that were already
   *     issued. Default: refused at start.
   */
  public record Redis(@Nullable String uri, @Nullable Duration timeout, @Nullable String leaseKeyPrefix,
      @DefaultValue("gene-id") String segmentKeyPrefix, @DefaultValue("false") boolean segmentAllowWithoutPersistence) {

    @Override
    public String toString() { // never the password in the URI
      return "Redis[uri=" + (uri == null ? null : StoreUrls.describe(uri)) + ", timeout=" + timeout + ", leaseKeyPrefix=" + leaseKeyPrefix
          + ", segmentKeyPrefix=" + segmentKeyPrefix + ", segmentAllowWithoutPersistence="
          + segmentAllowWithoutPersistence + "]";
    }
  }

  /**
   * {@code gene-id.jdbc.*}: the database of worker-id leases and of segments (gene-id-jdbc). Without a url the
   * application's DataSource is used; it must be a plain one, not ShardingSphere's.
   *
   * @param url JDBC URL of the lease and segment tables. Default: the application's DataSource. Set it when that
   *     DataSource is ShardingSphere's, or when the tables live elsewhere.
   * @param username User name for url.
   * @param password Password for url.
   * @param leaseTable The lease table (see JdbcWorkerIdAssigner.ddl). Default: gene_id_worker_lease.
   * @param segmentTable The segment table (see JdbcSegmentStore.ddl).
   * @param createTables Whether to run CREATE TABLE IF NOT EXISTS for the lease and segment tables before their first
   *     use.
   */
  public record Jdbc(@Nullable String url, @Nullable String username, @Nullable String password,
      @Nullable String leaseTable, @DefaultValue("gene_id_segment") String segmentTable,
      @DefaultValue("false") boolean createTables) {

    @Override
    public String toString() { // never the password
      return "Jdbc[url=" + (url == null ? null : StoreUrls.describe(url)) + ", username=" + username + ", password=" + (password == null ? null : "******")
          + ", leaseTable=" + leaseTable + ", segmentTable=" + segmentTable + ", createTables=" + createTables + "]";
    }
  }

  /**
   * {@code gene-id.segment.*}: segment mode, one {@code GeneSegmentGenerator} per tag in a
   * {@link GeneSegmentGenerators} bean. Ids carry gene-id.gene-bits gene bits. Ranges and defaults are those of
   * {@link io.geneid.core.segment.SegmentSettings}.
   *
   * @param store Where segments come from: jdbc or redis. Unset: no segment generators.
   * @param tags The business tags (one counter each), e.g. order, item. Required with store.
   * @param minStep Smallest segment and size of the first one, in [1, max-step].
   * @param maxStep Largest segment, in [min-step, 1000000000].
   * @param segmentDuration How long a segment should last at the measured rate (the step adapts), in [1s, 1d].
   * @param prefetchRatio Fraction of a segment used before the next one is fetched in the background, in [0.0, 0.9].
   * @param fetchTimeout How long a caller with no values left waits for the store, in [1ms, 10m].
   * @param prefetchRetry Pause between background fetch attempts while the store fails, in [0, 10m].
   * @param threadBlock 0: one shared order (ids of all threads increase as issued). In [2, 100000]: each thread takes
   *     that many values at once, so threads do not contend; ids of different threads then interleave.
   * @param perTag Settings of single tags (min-step, max-step, segment-duration) that differ from the ones above.
   */
  public record Segment(@Nullable SegmentStoreType store, @DefaultValue List<String> tags,
      @DefaultValue("1000") long minStep, @DefaultValue("1000000") long maxStep,
      @DefaultValue("10m") Duration segmentDuration, @DefaultValue("0.1") double prefetchRatio,
      @DefaultValue("10s") Duration fetchTimeout, @DefaultValue("1s") Duration prefetchRetry,
      @DefaultValue("0") int threadBlock, @DefaultValue Map<String, TagSettings> perTag) {}

  /**
   * {@code gene-id.zookeeper.*}: the ZooKeeper of worker-id leases (gene-id-zookeeper), for
   * {@code worker-assigner: zookeeper}. Unset values take the store's defaults (docs/leases.md).
   *
   * @param connect The ZooKeeper connect string, e.g. zk1:2181,zk2:2181,zk3:2181. Required for ZooKeeper.
   * @param basePath The path under which the lease nodes live. Default: /gene-id.
   * @param sessionTimeout The ZooKeeper session timeout; a lost session fences the generator. Default: the lease TTL.
   * @param connectionTimeout How long a connection attempt may take. Default: the store's.
   * @param username User name for digest authentication.
   * @param password Password for digest authentication.
   */
  public record Zookeeper(@Nullable String connect, @Nullable String basePath, @Nullable Duration sessionTimeout,
      @Nullable Duration connectionTimeout, @Nullable String username, @Nullable String password) {

    @Override
    public String toString() { // never the password
      return "Zookeeper[connect=" + connect + ", basePath=" + basePath + ", sessionTimeout=" + sessionTimeout
          + ", connectionTimeout=" + connectionTimeout + ", username=" + username + ", password="
          + (password == null ? null : "******") + "]";
    }
  }

  /**
   * {@code gene-id.etcd.*}: the etcd of worker-id leases (gene-id-etcd), for {@code worker-assigner: etcd}. Unset
   * values take the store's defaults (docs/leases.md).
   *
   * @param endpoints The etcd endpoints, e.g. http://etcd1:2379,http://etcd2:2379. Required for etcd.
   * @param keyPrefix The prefix of the lease keys. Default: the store's.
   * @param timeout The timeout of every etcd call. Default: the store's.
   * @param username User name for etcd authentication.
   * @param password Password for etcd authentication.
   */
  public record Etcd(@Nullable String endpoints, @Nullable String keyPrefix, @Nullable Duration timeout,
      @Nullable String username, @Nullable String password) {

    @Override
    public String toString() { // never the password
      return "Etcd[endpoints=" + endpoints + ", keyPrefix=" + keyPrefix + ", timeout=" + timeout + ", username="
          + username + ", password=" + (password == null ? null : "******") + "]";
    }
  }

  /**
   * {@code gene-id.json.*}: ids in the application's JSON (Spring Boot's Jackson ObjectMapper).
   *
   * @param idsAsStrings Write long id properties (named id or ending in Id or _id) as JSON strings, so that a browser
   *     reads ids above 2^53 exactly; reading accepts strings and numbers. Default: numbers.
   */
  public record Json(@DefaultValue("false") boolean idsAsStrings) {}

  /**
   * {@code gene-id.segment.per-tag.<tag>.*}: one tag's settings; unset ones come from {@code gene-id.segment}.
   *
   * @param minStep Smallest segment of this tag.
   * @param maxStep Largest segment of this tag.
   * @param segmentDuration How long a segment of this tag should last.
   */
  public record TagSettings(@Nullable Long minStep, @Nullable Long maxStep, @Nullable Duration segmentDuration) {}

  // ---------------------------------------------------------------- what the core reads

  /**
   * These properties as the core reads them: the layout, the generator and (when {@code worker-assigner} is redis or
   * jdbc) the lease settings, typed as bound (nothing is printed to text and parsed again), each named by its
   * {@code gene-id.*} property in messages. Layout and clock values equal to the core's defaults are left out, so
   * that a ShardingSphere configuration with the same values names the same JVM-wide leased generator.
   *
   * @param includeJdbcConnection whether to include {@code jdbc-url}, {@code jdbc-username} and {@code jdbc-password}
   */
  SettingsReader settings(boolean includeJdbcConnection) {
    Map<String, Object> p = new TreeMap<>();
    p.put(WorkerIdAssigners.WORKER_ASSIGNER, workerAssigner.name().toLowerCase(Locale.ROOT));
    GeneIdLayout defaults = GeneIdLayout.defaults();
    putIf(p, SettingsReader.EPOCH, epoch.equals(defaults.epoch()) ? null : epoch);
    putIf(p, SettingsReader.TIMESTAMP_BITS, timestampBits == defaults.timestampBits() ? null : timestampBits);
    putIf(p, SettingsReader.WORKER_BITS, workerBits == defaults.workerBits() ? null : workerBits);
    putIf(p, SettingsReader.SEQUENCE_BITS, sequenceBits == defaults.sequenceBits() ? null : sequenceBits);
    putIf(p, SettingsReader.GENE_BITS, geneBits == defaults.geneBits() ? null : geneBits);
    putIf(p, SettingsReader.MAX_BORROW_MILLIS,
        maxBorrowMillis == GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS ? null : maxBorrowMillis);
    putIf(p, SettingsReader.CLOCK_BACKWARDS_MAX_WAIT,
        clockBackwardsMaxWait.equals(ClockBackwardsPolicy.DEFAULT.maxWait()) ? null : clockBackwardsMaxWait);
    if (workerAssigner != WorkerAssigner.STATIC && workerAssigner != WorkerAssigner.NONE) {
      putIf(p, WorkerIdAssigners.SPACE, lease.space);
      putIf(p, WorkerIdAssigners.WORKER_ID_MIN, lease.workerIdMin);
      putIf(p, WorkerIdAssigners.WORKER_ID_MAX, lease.workerIdMax);
      putIf(p, WorkerIdAssigners.LEASE_TTL, lease.ttl);
      putIf(p, WorkerIdAssigners.LEASE_RENEW_INTERVAL, lease.renewInterval);
      putIf(p, WorkerIdAssigners.LEASE_ACQUIRE_TIMEOUT, lease.acquireTimeout);
      putIf(p, WorkerIdAssigners.LEASE_OWNER, lease.owner);
    }
    if (workerAssigner == WorkerAssigner.REDIS) {
      putIf(p, StoreKeys.REDIS_URI, redis.uri);
      putIf(p, StoreKeys.REDIS_KEY_PREFIX, redis.leaseKeyPrefix);
      putIf(p, StoreKeys.REDIS_TIMEOUT, redis.timeout);
    } else if (workerAssigner == WorkerAssigner.JDBC) {
      if (includeJdbcConnection) {
        putIf(p, StoreKeys.JDBC_URL, jdbc.url);
        putIf(p, StoreKeys.JDBC_USERNAME, jdbc.username);
        putIf(p, StoreKeys.JDBC_PASSWORD, jdbc.password);
      }
      putIf(p, StoreKeys.JDBC_TABLE, jdbc.leaseTable);
      putIf(p, StoreKeys.JDBC_CREATE_TABLE, jdbc.createTables ? Boolean.TRUE : null);
    } else if (workerAssigner == WorkerAssigner.ZOOKEEPER) {
      putIf(p, StoreKeys.ZOOKEEPER_CONNECT, zookeeper.connect);
      putIf(p, StoreKeys.ZOOKEEPER_BASE_PATH, zookeeper.basePath);
      putIf(p, StoreKeys.ZOOKEEPER_SESSION_TIMEOUT, zookeeper.sessionTimeout);
      putIf(p, StoreKeys.ZOOKEEPER_CONNECTION_TIMEOUT, zookeeper.connectionTimeout);
      putIf(p, StoreKeys.ZOOKEEPER_USERNAME, zookeeper.username);
      putIf(p, StoreKeys.ZOOKEEPER_PASSWORD, zookeeper.password);
    } else if (workerAssigner == WorkerAssigner.ETCD) {
      putIf(p, StoreKeys.ETCD_ENDPOINTS, etcd.endpoints);
      putIf(p, StoreKeys.ETCD_KEY_PREFIX, etcd.keyPrefix);
      putIf(p, StoreKeys.ETCD_TIMEOUT, etcd.timeout);
      putIf(p, StoreKeys.ETCD_USERNAME, etcd.username);
      putIf(p, StoreKeys.ETCD_PASSWORD, etcd.password);
    }
    return SettingsReader.of(p).named(GeneIdProperties::propertyOf);
  }

  private static void putIf(Map<String, Object> p, String key, @Nullable Object value) {
    if (value != null) {
      p.put(key, value);
    }
  }

  /**
   * The layout these properties describe.
   *
   * @throws InvalidGeneIdPropertyException naming the {@code gene-id.*} property, its value and its allowed range
   */
  public GeneIdLayout layout() {
    return named(() -> GeneIdLayout.from(settings(false)));
  }

  /**
   * A generator builder with every setting of these properties, and the worker id when {@code gene-id.worker-id}
   * is set.
   *
   * @throws InvalidGeneIdPropertyException naming the {@code gene-id.*} property, its value and its allowed range
   */
  public GeneSnowflakeGenerator.Builder generatorBuilder() {
    return named(() -> {
      SettingsReader settings = settings(false);
      GeneIdLayout layout = GeneIdLayout.from(settings);
      GeneSnowflakeGenerator.Builder builder = GeneSnowflakeGenerator.builder()
          .layout(layout)
          .clock(clock == ClockSource.WALL ? GeneClock.wall() : GeneClock.system())
          .maxBorrowMillis(SnowflakeSettings.maxBorrowMillis(settings))
          .clockBackwardsPolicy(SnowflakeSettings.clockBackwardsPolicy(settings));
      if (workerId != null) {
        builder.workerId(settings.range(WORKER_ID, workerId, 0, layout.maxWorkerId()));
      }
      return builder;
    });
  }

  /**
   * The JVM-shared generator of these properties ({@link GeneSnowflakeGenerator.Builder#build()}).
   *
   * @throws InvalidGeneIdPropertyException naming the {@code gene-id.*} property that is missing or out of range
   * @throws IllegalStateException if this JVM already holds a generator for the same layout and worker id with
   *     other settings
   */
  public GeneSnowflakeGenerator sharedGenerator() {
    GeneSnowflakeGenerator.Builder builder = generatorBuilder();
    return named(builder::build);
  }

  /**
   * The lease and store settings that are set but that {@code worker-assigner=static} (or {@code none}) does not
   * read: the Redis and JDBC connection settings count only when no segment store of that kind uses them.
   */
  List<String> settingsUnusedWithoutLease() {
    List<String> unused = new ArrayList<>();
    String l = PREFIX + ".lease.";
    addIf(unused, l + "space", lease.space);
    addIf(unused, l + "worker-id-min", lease.workerIdMin);
    addIf(unused, l + "worker-id-max", lease.workerIdMax);
    addIf(unused, l + "ttl", lease.ttl);
    addIf(unused, l + "renew-interval", lease.renewInterval);
    addIf(unused, l + "acquire-timeout", lease.acquireTimeout);
    addIf(unused, l + "owner", lease.owner);
    addIf(unused, PREFIX + ".redis.lease-key-prefix", redis.leaseKeyPrefix);
    addIf(unused, PREFIX + ".jdbc.lease-table", jdbc.leaseTable);
    if (segment.store != SegmentStoreType.REDIS) {
      addIf(unused, PREFIX + ".redis.uri", redis.uri);
      addIf(unused, PREFIX + ".redis.timeout", redis.timeout);
    }
    String z = PREFIX + ".zookeeper.";
    addIf(unused, z + "connect", zookeeper.connect);
    addIf(unused, z + "base-path", zookeeper.basePath);
    addIf(unused, z + "session-timeout", zookeeper.sessionTimeout);
    addIf(unused, z + "connection-timeout", zookeeper.connectionTimeout);
    addIf(unused, z + "username", zookeeper.username);
    addIf(unused, z + "password", zookeeper.password);
    String e = PREFIX + ".etcd.";
    addIf(unused, e + "endpoints", etcd.endpoints);
    addIf(unused, e + "key-prefix", etcd.keyPrefix);
    addIf(unused, e + "timeout", etcd.timeout);
    addIf(unused, e + "username", etcd.username);
    addIf(unused, e + "password", etcd.password);
    if (segment.store != SegmentStoreType.JDBC) {
      addIf(unused, PREFIX + ".jdbc.url", jdbc.url);
      addIf(unused, PREFIX + ".jdbc.username", jdbc.username);
      addIf(unused, PREFIX + ".jdbc.password", jdbc.password);
    }
    return unused;
  }

  private static void addIf(List<String> names, String name, @Nullable Object value) {
    if (value != null) {
      names.add(name);
    }
  }

  // ---------------------------------------------------------------- error messages name the property

  private static final String WORKER_ID = "worker-id";

  /**
   * The core's names of settings (its keys, such as {@code lease-ttl}, and the fields its builders name, such as
   * {@code renewInterval}) and the property under {@code gene-id.} that sets each.
   */
  private static final Map<String, String> PROPERTY_OF = propertyNames();

  private static Map<String, String> propertyNames() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(WorkerIdAssigners.SPACE, "lease.space");
    m.put(WorkerIdAssigners.WORKER_ID_MIN, "lease.worker-id-min");
    m.put(WorkerIdAssigners.WORKER_ID_MAX, "lease.worker-id-max");
    m.put(WorkerIdAssigners.LEASE_TTL, "lease.ttl");
    m.put(WorkerIdAssigners.LEASE_RENEW_INTERVAL, "lease.renew-interval");
    m.put("renewInterval", "lease.renew-interval");
    m.put(WorkerIdAssigners.LEASE_ACQUIRE_TIMEOUT, "lease.acquire-timeout");
    m.put(WorkerIdAssigners.LEASE_OWNER, "lease.owner");
    m.put(StoreKeys.REDIS_URI, "redis.uri");
    m.put("redisUri", "redis.uri");
    m.put(StoreKeys.REDIS_KEY_PREFIX, "redis.lease-key-prefix");
    m.put(StoreKeys.REDIS_TIMEOUT, "redis.timeout");
    m.put(StoreKeys.JDBC_URL, "jdbc.url");
    m.put(StoreKeys.JDBC_USERNAME, "jdbc.username");
    m.put(StoreKeys.JDBC_PASSWORD, "jdbc.password");
    m.put(StoreKeys.JDBC_TABLE, "jdbc.lease-table");
    m.put(StoreKeys.JDBC_CREATE_TABLE, "jdbc.create-tables");
    for (String k : List.of(StoreKeys.ZOOKEEPER_CONNECT, StoreKeys.ZOOKEEPER_BASE_PATH,
        StoreKeys.ZOOKEEPER_SESSION_TIMEOUT, StoreKeys.ZOOKEEPER_CONNECTION_TIMEOUT, StoreKeys.ZOOKEEPER_USERNAME,
        StoreKeys.ZOOKEEPER_PASSWORD, StoreKeys.ETCD_ENDPOINTS, StoreKeys.ETCD_KEY_PREFIX, StoreKeys.ETCD_TIMEOUT,
        StoreKeys.ETCD_USERNAME, StoreKeys.ETCD_PASSWORD)) {
      m.put(k, k.replaceFirst("-", ".")); // zookeeper-base-path: zookeeper.base-path
    }
    m.put("workerId", WORKER_ID);
    m.put("maxBorrowMillis", SettingsReader.MAX_BORROW_MILLIS);
    m.put("maxWait", SettingsReader.CLOCK_BACKWARDS_MAX_WAIT);
    return Map.copyOf(m);
  }

  /** A step whose InvalidSettingException names core settings. */
  interface Step<T> {
    T run();
  }

  /**
   * Runs a step of the core, turning an {@link InvalidSettingException} (which carries the core's key: a setting
   * such as {@code lease-ttl} or a builder's field such as {@code renewInterval}) into one naming the
   * {@code gene-id.*} property that sets it; another bad argument keeps its message (a reader named its keys).
   */
  static <T> T named(Step<T> step) {
    return named(step, GeneIdProperties::propertyOf);
  }

  /** {@link #named(Step)} with {@code propertyOf} naming the property that sets each core key. */
  static <T> T named(Step<T> step, UnaryOperator<String> propertyOf) {
    try {
      return step.run();
    } catch (InvalidSettingException e) {
      throw new InvalidGeneIdPropertyException(e.named(propertyOf).getMessage(), e);
    } catch (InvalidGeneIdPropertyException e) {
      throw e;
    } catch (IllegalArgumentException e) { // a reader's message, whose keys the reader named already
      throw new InvalidGeneIdPropertyException(String.valueOf(e.getMessage()), e);
    }
  }

  /** The {@code gene-id.*} property that sets a core key. */
  static String propertyOf(String key) {
    return PREFIX + "." + PROPERTY_OF.getOrDefault(key, key);
  }
}
