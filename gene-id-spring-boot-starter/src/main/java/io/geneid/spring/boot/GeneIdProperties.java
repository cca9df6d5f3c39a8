package io.geneid.spring.boot;

import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.snowflake.GeneClock;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.settings.SettingsReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code gene-id.*} properties. The layout fields (epoch and the four widths) must be the same in every process
 * that writes ids to the same tables, and must not change once ids are written.
 *
 * <pre>
 * gene-id:
 *   worker-id: "3"               # required: one per running process, in [0, 2^worker-bits - 1]; quoted
 *   gene-bits: 6                 # 64 gene buckets; shard count must divide 2^gene-bits
 *   epoch: 2025-01-01T00:00:00Z
 *   timestamp-bits: 41
 *   worker-bits: 8
 *   sequence-bits: 8
 *   max-borrow-millis: 10
 *   clock-backwards-max-wait: 1s
 * </pre>
 *
 * <p>With {@code worker-assigner: redis} or {@code jdbc} the worker id is leased instead ({@code gene-id.lease.*},
 * {@code gene-id.redis.*}, {@code gene-id.jdbc.*}); with {@code gene-id.segment.store} set, segment generators are
 * created for {@code gene-id.segment.tags} as well.
 *
 * <p>Every value is checked at start-up; a wrong one stops the application with a message naming the property and
 * its allowed range, e.g. {@code gene-id.gene-bits must be in [0, 16] but was 17}. A {@code gene-id.*} key that no
 * setting reads stops it too, naming the key and the closest valid one.
 */
@ConfigurationProperties(prefix = GeneIdProperties.PREFIX, ignoreUnknownFields = false)
public class GeneIdProperties {

  /** The prefix of every property. */
  public static final String PREFIX = "gene-id";

  /**
   * Instant that timestamp 0 of every id stands for (ISO-8601, e.g. 2025-01-01T00:00:00Z): a whole millisecond,
   * not in the future. Fixed for the life of the data.
   */
  private Instant epoch = GeneIdLayout.DEFAULT_EPOCH;

  /** T: bits of the millisecond timestamp, in [35, 63]; 41 bits last about 69 years. T + W + S + G must be 63. */
  private int timestampBits = 41;

  /** W: bits of the worker id, in [0, 28]; 2^W processes can issue ids at the same time. */
  private int workerBits = 8;

  /** S: bits of the per-gene sequence, in [0, 28]; 2^S ids per millisecond per gene per worker. */
  private int sequenceBits = 8;

  /**
   * G: bits of the gene (the low bits of the parent key), in [0, 16]; 2^G gene buckets, so any shard count that
   * divides 2^G routes children with their parents. 0 makes a classic Snowflake.
   */
  private int geneBits = 6;

  /**
   * This process's worker id, in [0, 2^worker-bits - 1]. Required when worker-assigner is static: give every
   * running process its own (for example a StatefulSet ordinal); two processes with one worker id issue duplicates.
   */
  private @Nullable Long workerId;

  /**
   * Where the worker id comes from. static: gene-id.worker-id. redis or jdbc: leased from a store shared by every
   * process of gene-id.lease.space (needs io.geneid:gene-id-redis or io.geneid:gene-id-jdbc). none: no snowflake
   * generator (segment mode only).
   */
  private WorkerAssigner workerAssigner = WorkerAssigner.STATIC;

  private final Lease lease = new Lease();
  private final Redis redis = new Redis();
  private final Jdbc jdbc = new Jdbc();
  private final Segment segment = new Segment();

  /**
   * How far, in ms, a gene may run ahead of the clock when its sequence is used up, and how large a clock step back
   * is absorbed without waiting; in [0, 60000].
   */
  private long maxBorrowMillis = 10;

  /**
   * How long a caller waits for a clock that stepped back further than max-borrow-millis before the generator
   * fails with ClockMovedBackwardsException; 0 fails at once. Only a wall clock steps back.
   */
  private Duration clockBackwardsMaxWait = Duration.ofSeconds(1);

  /**
   * The time source. system: the wall clock read once and advanced by the monotonic clock, never steps back inside
   * a process; wall: follows every step of the wall clock, backwards ones included.
   */
  private ClockSource clock = ClockSource.SYSTEM;

  /**
   * Whether every ShardingSphere-JDBC data source bean is checked for gene sharding mistakes at start-up (gene-bits
   * that differ between key generator and GENE_MOD, nodes no gene reaches, targets without an _index suffix); on
   * when gene-id-shardingsphere is on the class path.
   */
  private boolean shardingCheck = true;

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
   * The layout these properties describe.
   *
   * @throws IllegalArgumentException naming the {@code gene-id.*} property, its value and its allowed range
   */
  public GeneIdLayout layout() {
    Map<String, Object> values = Map.of(SettingsReader.EPOCH, epoch, SettingsReader.TIMESTAMP_BITS, timestampBits,
        SettingsReader.WORKER_BITS, workerBits, SettingsReader.SEQUENCE_BITS, sequenceBits, SettingsReader.GENE_BITS,
        geneBits);
    try { // the core's one reader, naming the gene-id.* properties itself
      return SettingsReader.of(values).named(key -> PREFIX + "." + key).layout();
    } catch (IllegalArgumentException e) {
      throw new InvalidGeneIdPropertyException(String.valueOf(e.getMessage()), e);
    }
  }

  /**
   * A generator builder with every setting of these properties, and the worker id when {@code gene-id.worker-id}
   * is set. A worker-assigner module sets the worker id it leased instead.
   *
   * @throws IllegalArgumentException naming the {@code gene-id.*} property, its value and its allowed range
   */
  public GeneSnowflakeGenerator.Builder generatorBuilder() {
    GeneIdLayout layout = layout();
    return translated(() -> {
      GeneSnowflakeGenerator.Builder builder = GeneSnowflakeGenerator.builder()
          .layout(layout)
          .clock(clock == ClockSource.WALL ? GeneClock.wall() : GeneClock.system())
          .maxBorrowMillis(maxBorrowMillis)
          .clockBackwardsPolicy(ClockBackwardsPolicy.waitUpTo(clockBackwardsMaxWait));
      if (workerId != null) {
        if (workerId < 0) { // the core's builder reads -1 as "not set"
          throw new IllegalArgumentException("workerId must be in [0, " + layout.maxWorkerId() + "] but was "
              + workerId);
        }
        builder.workerId(workerId);
      }
      return builder;
    });
  }

  /**
   * The JVM-shared generator of these properties ({@link GeneSnowflakeGenerator.Builder#build()}).
   *
   * @throws IllegalArgumentException naming the {@code gene-id.*} property that is missing or out of range
   * @throws IllegalStateException if this JVM already holds a generator for the same layout and worker id with
   *     other settings
   */
  public GeneSnowflakeGenerator sharedGenerator() {
    GeneSnowflakeGenerator.Builder builder = generatorBuilder();
    return translated(builder::build);
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
    if (segment.getStore() != SegmentStoreType.REDIS) {
      addIf(unused, PREFIX + ".redis.uri", redis.uri);
      addIf(unused, PREFIX + ".redis.timeout", redis.timeout);
    }
    if (segment.getStore() != SegmentStoreType.JDBC) {
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

  private static final Map<String, String> PROPERTY_OF = Map.of(
      "epoch", "epoch",
      "timestampBits", "timestamp-bits",
      "workerBits", "worker-bits",
      "sequenceBits", "sequence-bits",
      "geneBits", "gene-bits",
      "workerId", "worker-id",
      "maxBorrowMillis", "max-borrow-millis",
      "maxWait", "clock-backwards-max-wait");

  private static final Pattern CORE_NAMES = Pattern.compile("\\b(" + String.join("|", PROPERTY_OF.keySet()) + ")\\b");

  /** A step whose IllegalArgumentException names core settings. */
  interface Step<T> {
    T run();
  }

  static <T> T translated(Step<T> step) {
    try {
      return step.run();
    } catch (IllegalArgumentException e) {
      throw new InvalidGeneIdPropertyException(propertyNames(String.valueOf(e.getMessage())), e);
    }
  }

  /** Rewrites the core's field names ({@code geneBits}) as property names ({@code gene-id.gene-bits}). */
  static String propertyNames(String coreMessage) {
    Matcher m = CORE_NAMES.matcher(coreMessage);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(PREFIX + "." + PROPERTY_OF.get(m.group(1))));
    }
    m.appendTail(out);
    return out.toString();
  }

  // ---------------------------------------------------------------- leases

  /**
   * The settings of {@link WorkerIdAssigners#sharedGenerator(SettingsReader)} these properties stand for, as bound
   * (durations, the epoch and numbers stay typed; nothing is printed to text and parsed again): the assigner type,
   * every {@code gene-id.lease/redis/jdbc} value that is set, and the layout and clock values that differ from the
   * defaults, so that a ShardingSphere configuration with the same values names the same JVM-wide generator. The
   * reader's messages name each setting by its {@code gene-id.*} property.
   *
   * @param includeJdbcConnection whether to include {@code jdbc-url}, {@code jdbc-username} and {@code jdbc-password}
   */
  SettingsReader leaseSettings(boolean includeJdbcConnection) {
    Map<String, Object> p = new TreeMap<>();
    p.put(WorkerIdAssigners.WORKER_ASSIGNER, workerAssigner.name().toLowerCase(java.util.Locale.ROOT));
    GeneIdLayout defaults = GeneIdLayout.defaults();
    putIf(p, WorkerIdAssigners.EPOCH, epoch.equals(defaults.epoch()) ? null : epoch);
    putIf(p, WorkerIdAssigners.TIMESTAMP_BITS, timestampBits == defaults.timestampBits() ? null : timestampBits);
    putIf(p, WorkerIdAssigners.WORKER_BITS, workerBits == defaults.workerBits() ? null : workerBits);
    putIf(p, WorkerIdAssigners.SEQUENCE_BITS, sequenceBits == defaults.sequenceBits() ? null : sequenceBits);
    putIf(p, WorkerIdAssigners.GENE_BITS, geneBits == defaults.geneBits() ? null : geneBits);
    putIf(p, WorkerIdAssigners.MAX_BORROW_MILLIS,
        maxBorrowMillis == GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS ? null : maxBorrowMillis);
    putIf(p, WorkerIdAssigners.CLOCK_BACKWARDS_MAX_WAIT,
        clockBackwardsMaxWait.equals(ClockBackwardsPolicy.DEFAULT.maxWait()) ? null : clockBackwardsMaxWait);
    putIf(p, WorkerIdAssigners.SPACE, lease.space);
    putIf(p, WorkerIdAssigners.WORKER_ID_MIN, lease.workerIdMin);
    putIf(p, WorkerIdAssigners.WORKER_ID_MAX, lease.workerIdMax);
    putIf(p, WorkerIdAssigners.LEASE_TTL, lease.ttl);
    putIf(p, WorkerIdAssigners.LEASE_RENEW_INTERVAL, lease.renewInterval);
    putIf(p, WorkerIdAssigners.LEASE_ACQUIRE_TIMEOUT, lease.acquireTimeout);
    putIf(p, WorkerIdAssigners.LEASE_OWNER, lease.owner);
    if (workerAssigner == WorkerAssigner.REDIS) {
      putIf(p, "redis-uri", redis.uri);
      putIf(p, "redis-key-prefix", redis.leaseKeyPrefix);
      putIf(p, "redis-timeout", redis.timeout);
    } else if (workerAssigner == WorkerAssigner.JDBC) {
      if (includeJdbcConnection) {
        putIf(p, "jdbc-url", jdbc.url);
        putIf(p, "jdbc-username", jdbc.username);
        putIf(p, "jdbc-password", jdbc.password);
      }
      putIf(p, "jdbc-table", jdbc.leaseTable);
      putIf(p, "jdbc-create-table", jdbc.createTables ? Boolean.TRUE : null);
    }
    // "space" is not in LEASE_PROPERTY_OF: that map also rewrites free text, where "space" is a plain word
    return SettingsReader.of(p).named(key -> PREFIX + "."
        + (key.equals(WorkerIdAssigners.SPACE) ? "lease.space" : LEASE_PROPERTY_OF.getOrDefault(key, key)));
  }

  private static void putIf(Map<String, Object> p, String key, @Nullable Object value) {
    if (value != null) {
      p.put(key, value);
    }
  }

  /** The core's names for lease settings and the properties that set them. */
  private static final Map<String, String> LEASE_PROPERTY_OF = leasePropertyNames();

  private static Map<String, String> leasePropertyNames() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("worker-assigner", "worker-assigner");
    m.put("worker-id-min", "lease.worker-id-min");
    m.put("worker-id-max", "lease.worker-id-max");
    m.put("lease-ttl", "lease.ttl");
    m.put("lease-renew-interval", "lease.renew-interval");
    m.put("renewInterval", "lease.renew-interval");
    m.put("lease-acquire-timeout", "lease.acquire-timeout");
    m.put("lease-owner", "lease.owner");
    m.put("redis-uri", "redis.uri");
    m.put("redisUri", "redis.uri");
    m.put("redis-key-prefix", "redis.lease-key-prefix");
    m.put("redis-timeout", "redis.timeout");
    m.put("jdbc-url", "jdbc.url");
    m.put("jdbc-username", "jdbc.username");
    m.put("jdbc-password", "jdbc.password");
    m.put("jdbc-table", "jdbc.lease-table");
    m.put("jdbc-create-table", "jdbc.create-tables");
    for (String k : List.of("epoch", "timestamp-bits", "worker-bits", "sequence-bits", "gene-bits",
        "max-borrow-millis", "clock-backwards-max-wait")) {
      m.put(k, k);
    }
    PROPERTY_OF.forEach((core, property) -> m.putIfAbsent(core, property));
    m.remove("workerId");
    return m;
  }

  /** Rewrites the core's lease keys ({@code lease-ttl}) as property names ({@code gene-id.lease.ttl}). */
  static String leasePropertyNames(String coreMessage) {
    String message = coreMessage.startsWith("space ") ? PREFIX + ".lease." + coreMessage : coreMessage;
    Map<String, String> names = new LinkedHashMap<>();
    LEASE_PROPERTY_OF.forEach((core, property) -> names.put(core, PREFIX + "." + property));
    return renamed(message, names);
  }

  /**
   * Replaces each whole word of {@code message} that is a key of {@code names} (a core setting such as
   * {@code minStep} or {@code lease-ttl}) by its value (the property that sets it).
   */
  static String renamed(String message, Map<String, String> names) {
    Pattern words = Pattern.compile("(?<![\\w.-])("
        + String.join("|", names.keySet().stream().sorted(Comparator.comparing(String::length).reversed())
            .map(Pattern::quote).toList())
        + ")(?![\\w-])");
    Matcher m = words.matcher(message);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(names.get(m.group(1))));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Runs a lease step, turning an IllegalArgumentException into one naming the {@code gene-id.*} property. */
  static <T> T leaseStep(Step<T> step) {
    try {
      return step.run();
    } catch (InvalidGeneIdPropertyException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new InvalidGeneIdPropertyException(leasePropertyNames(String.valueOf(e.getMessage())), e);
    }
  }

  // ---------------------------------------------------------------- accessors for the binder

  public boolean isShardingCheck() {
    return shardingCheck;
  }

  public void setShardingCheck(boolean shardingCheck) {
    this.shardingCheck = shardingCheck;
  }

  public Instant getEpoch() {
    return epoch;
  }

  public void setEpoch(Instant epoch) {
    this.epoch = epoch;
  }

  public int getTimestampBits() {
    return timestampBits;
  }

  public void setTimestampBits(int timestampBits) {
    this.timestampBits = timestampBits;
  }

  public int getWorkerBits() {
    return workerBits;
  }

  public void setWorkerBits(int workerBits) {
    this.workerBits = workerBits;
  }

  public int getSequenceBits() {
    return sequenceBits;
  }

  public void setSequenceBits(int sequenceBits) {
    this.sequenceBits = sequenceBits;
  }

  public int getGeneBits() {
    return geneBits;
  }

  public void setGeneBits(int geneBits) {
    this.geneBits = geneBits;
  }

  public @Nullable Long getWorkerId() {
    return workerId;
  }

  public void setWorkerId(@Nullable Long workerId) {
    this.workerId = workerId;
  }

  public WorkerAssigner getWorkerAssigner() {
    return workerAssigner;
  }

  public void setWorkerAssigner(WorkerAssigner workerAssigner) {
    this.workerAssigner = workerAssigner;
  }

  public long getMaxBorrowMillis() {
    return maxBorrowMillis;
  }

  public void setMaxBorrowMillis(long maxBorrowMillis) {
    this.maxBorrowMillis = maxBorrowMillis;
  }

  public Duration getClockBackwardsMaxWait() {
    return clockBackwardsMaxWait;
  }

  public void setClockBackwardsMaxWait(Duration clockBackwardsMaxWait) {
    this.clockBackwardsMaxWait = clockBackwardsMaxWait;
  }

  public ClockSource getClock() {
    return clock;
  }

  public void setClock(ClockSource clock) {
    this.clock = clock;
  }

  public Lease getLease() {
    return lease;
  }

  public Redis getRedis() {
    return redis;
  }

  public Jdbc getJdbc() {
    return jdbc;
  }

  public Segment getSegment() {
    return segment;
  }

  /** {@code gene-id.lease.*}: the worker-id lease, for {@code worker-assigner} redis or jdbc. */
  public static class Lease {
    /**
     * The pool of worker ids (1 to 64 of A-Z a-z 0-9 . _ -): processes of one service share a space, services
     * sharing a store use different ones. Default: default.
     */
    private @Nullable String space;

    /** The lowest worker id of this pool (a datacenter's sub-range). Default: 0. */
    private @Nullable Long workerIdMin;

    /** The highest worker id of this pool. Default: 2^worker-bits - 1. */
    private @Nullable Long workerIdMax;

    /**
     * How long a lease lasts without renewal, in [100ms, 1h]: a process that stops renewing (crash, pause) fences
     * itself and its worker id is free for another after this. Use the same TTL in every process of a space.
     */
    private @Nullable Duration ttl;

    /** How often the lease is renewed, at least 10ms and below ttl. Default: ttl / 3. */
    private @Nullable Duration renewInterval;

    /** How long start-up waits for a free worker id before it fails, in [0, 1h]. Default: 2 x ttl. */
    private @Nullable Duration acquireTimeout;

    /** The holder name stored with the lease and shown in exhaustion messages. Default: pid@host. */
    private @Nullable String owner;

    public @Nullable String getSpace() {
      return space;
    }

    public void setSpace(@Nullable String space) {
      this.space = space;
    }

    public @Nullable Long getWorkerIdMin() {
      return workerIdMin;
    }

    public void setWorkerIdMin(@Nullable Long workerIdMin) {
      this.workerIdMin = workerIdMin;
    }

    public @Nullable Long getWorkerIdMax() {
      return workerIdMax;
    }

    public void setWorkerIdMax(@Nullable Long workerIdMax) {
      this.workerIdMax = workerIdMax;
    }

    public @Nullable Duration getTtl() {
      return ttl;
    }

    public void setTtl(@Nullable Duration ttl) {
      this.ttl = ttl;
    }

    public @Nullable Duration getRenewInterval() {
      return renewInterval;
    }

    public void setRenewInterval(@Nullable Duration renewInterval) {
      this.renewInterval = renewInterval;
    }

    public @Nullable Duration getAcquireTimeout() {
      return acquireTimeout;
    }

    public void setAcquireTimeout(@Nullable Duration acquireTimeout) {
      this.acquireTimeout = acquireTimeout;
    }

    public @Nullable String getOwner() {
      return owner;
    }

    public void setOwner(@Nullable String owner) {
      this.owner = owner;
    }
  }

  /** {@code gene-id.redis.*}: the Redis of worker-id leases and of segment counters (gene-id-redis). */
  public static class Redis {
    /** The Redis server, e.g. redis://127.0.0.1:6379/0 or redis://:password@host:6379/0. Required for Redis. */
    private @Nullable String uri;

    /** Command timeout. Default: leases ttl / 3 within [100ms, 5s], segment counters 2s. */
    private @Nullable Duration timeout;

    /** Prefix of the lease keys (<prefix>:lease:{<space>}:...). Default: gene-id. */
    private @Nullable String leaseKeyPrefix;

    /** Prefix of the segment counter keys (<prefix>:segment:<tag>), as for the lease keys. Default: gene-id. */
    private String segmentKeyPrefix = "gene-id";

    /**
     * Accept a segment Redis that keeps nothing on disk (appendonly no, no save points). It forgets its counters when
     * it restarts, and processes then issue segment values that were already issued. Default: refused at start.
     */
    private boolean segmentAllowWithoutPersistence;

    public @Nullable String getUri() {
      return uri;
    }

    public void setUri(@Nullable String uri) {
      this.uri = uri;
    }

    public @Nullable Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(@Nullable Duration timeout) {
      this.timeout = timeout;
    }

    public @Nullable String getLeaseKeyPrefix() {
      return leaseKeyPrefix;
    }

    public void setLeaseKeyPrefix(@Nullable String leaseKeyPrefix) {
      this.leaseKeyPrefix = leaseKeyPrefix;
    }

    public String getSegmentKeyPrefix() {
      return segmentKeyPrefix;
    }

    public void setSegmentKeyPrefix(String segmentKeyPrefix) {
      this.segmentKeyPrefix = segmentKeyPrefix;
    }

    public boolean isSegmentAllowWithoutPersistence() {
      return segmentAllowWithoutPersistence;
    }

    public void setSegmentAllowWithoutPersistence(boolean segmentAllowWithoutPersistence) {
      this.segmentAllowWithoutPersistence = segmentAllowWithoutPersistence;
    }
  }

  /**
   * {@code gene-id.jdbc.*}: the database of worker-id leases and of segments (gene-id-jdbc). Without a url the
   * application's DataSource is used; it must be a plain one, not ShardingSphere's.
   */
  public static class Jdbc {
    /**
     * JDBC URL of the lease and segment tables. Default: the application's DataSource. Set it when that DataSource is
     * ShardingSphere's, or when the tables live elsewhere.
     */
    private @Nullable String url;

    /** User name for url. */
    private @Nullable String username;

    /** Password for url. */
    private @Nullable String password;

    /** The lease table (see JdbcWorkerIdAssigner.ddl). Default: gene_id_worker_lease. */
    private @Nullable String leaseTable;

    /** The segment table (see JdbcSegmentStore.ddl). */
    private String segmentTable = "gene_id_segment";

    /** Whether to run CREATE TABLE IF NOT EXISTS for the lease and segment tables before their first use. */
    private boolean createTables;

    public @Nullable String getUrl() {
      return url;
    }

    public void setUrl(@Nullable String url) {
      this.url = url;
    }

    public @Nullable String getUsername() {
      return username;
    }

    public void setUsername(@Nullable String username) {
      this.username = username;
    }

    public @Nullable String getPassword() {
      return password;
    }

    public void setPassword(@Nullable String password) {
      this.password = password;
    }

    public @Nullable String getLeaseTable() {
      return leaseTable;
    }

    public void setLeaseTable(@Nullable String leaseTable) {
      this.leaseTable = leaseTable;
    }

    public String getSegmentTable() {
      return segmentTable;
    }

    public void setSegmentTable(String segmentTable) {
      this.segmentTable = segmentTable;
    }

    public boolean isCreateTables() {
      return createTables;
    }

    public void setCreateTables(boolean createTables) {
      this.createTables = createTables;
    }
  }

  /**
   * {@code gene-id.segment.*}: segment mode, one {@code GeneSegmentGenerator} per tag in a
   * {@link GeneSegmentGenerators} bean. Ids carry gene-id.gene-bits gene bits.
   */
  public static class Segment {
    /** Where segments come from: jdbc or redis. Unset: no segment generators. */
    private @Nullable SegmentStoreType store;

    /** The business tags (one counter each), e.g. order, item. Required with store. */
    private List<String> tags = new ArrayList<>();

    /** Smallest segment and size of the first one, in [1, max-step]. */
    private long minStep = 1_000;

    /** Largest segment, in [min-step, 1000000000]. */
    private long maxStep = 1_000_000;

    /** How long a segment should last at the measured rate (the step adapts), in [1s, 1d]. */
    private Duration segmentDuration = Duration.ofMinutes(10);

    /** Fraction of a segment used before the next one is fetched in the background, in [0.0, 0.9]. */
    private double prefetchRatio = 0.1;

    /** How long a caller with no values left waits for the store, in [1ms, 10m]. */
    private Duration fetchTimeout = Duration.ofSeconds(10);

    /** Pause between background fetch attempts while the store fails, in [0, 10m]. */
    private Duration prefetchRetry = Duration.ofSeconds(1);

    /** Settings of single tags (min-step, max-step, segment-duration) that differ from the ones above. */
    private Map<String, TagSettings> perTag = new LinkedHashMap<>();

    public @Nullable SegmentStoreType getStore() {
      return store;
    }

    public void setStore(@Nullable SegmentStoreType store) {
      this.store = store;
    }

    public List<String> getTags() {
      return tags;
    }

    public void setTags(List<String> tags) {
      this.tags = tags;
    }

    public long getMinStep() {
      return minStep;
    }

    public void setMinStep(long minStep) {
      this.minStep = minStep;
    }

    public long getMaxStep() {
      return maxStep;
    }

    public void setMaxStep(long maxStep) {
      this.maxStep = maxStep;
    }

    public Duration getSegmentDuration() {
      return segmentDuration;
    }

    public void setSegmentDuration(Duration segmentDuration) {
      this.segmentDuration = segmentDuration;
    }

    public double getPrefetchRatio() {
      return prefetchRatio;
    }

    public void setPrefetchRatio(double prefetchRatio) {
      this.prefetchRatio = prefetchRatio;
    }

    public Duration getFetchTimeout() {
      return fetchTimeout;
    }

    public void setFetchTimeout(Duration fetchTimeout) {
      this.fetchTimeout = fetchTimeout;
    }

    public Duration getPrefetchRetry() {
      return prefetchRetry;
    }

    public void setPrefetchRetry(Duration prefetchRetry) {
      this.prefetchRetry = prefetchRetry;
    }

    public Map<String, TagSettings> getPerTag() {
      return perTag;
    }

    public void setPerTag(Map<String, TagSettings> perTag) {
      this.perTag = perTag;
    }
  }

  /** {@code gene-id.segment.per-tag.<tag>.*}: one tag's settings; unset ones come from {@code gene-id.segment}. */
  public static class TagSettings {
    /** Smallest segment of this tag. */
    private @Nullable Long minStep;

    /** Largest segment of this tag. */
    private @Nullable Long maxStep;

    /** How long a segment of this tag should last. */
    private @Nullable Duration segmentDuration;

    public @Nullable Long getMinStep() {
      return minStep;
    }

    public void setMinStep(@Nullable Long minStep) {
      this.minStep = minStep;
    }

    public @Nullable Long getMaxStep() {
      return maxStep;
    }

    public void setMaxStep(@Nullable Long maxStep) {
      this.maxStep = maxStep;
    }

    public @Nullable Duration getSegmentDuration() {
      return segmentDuration;
    }

    public void setSegmentDuration(@Nullable Duration segmentDuration) {
      this.segmentDuration = segmentDuration;
    }
  }
}
