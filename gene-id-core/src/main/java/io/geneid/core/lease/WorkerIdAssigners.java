package io.geneid.core.lease;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.internal.ServiceProviders;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import org.jspecify.annotations.Nullable;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

/**
 * Worker-id assigners from kebab-case properties, and what every assigner shares (the property keys, the lease
 * settings, the pool range). Leased generators from the same properties: {@code io.geneid.core.snowflake.LeasedGenerators} of
 * {@code io.geneid.core.snowflake}, the one entry point for ShardingSphere props, Spring Boot properties and plain maps.
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>keys read by {@code io.geneid.core.snowflake.LeasedGenerators#sharedGenerator(Map)}</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code worker-assigner}</td><td>{@code static}, {@code redis}, {@code jdbc}, {@code zookeeper} or
 *       {@code etcd}</td><td>static</td></tr>
 *   <tr><td>{@code space}</td><td>pool name: letters, digits, {@code . _ -}, 1..64</td><td>default</td></tr>
 *   <tr><td>{@code worker-id-min}, {@code worker-id-max}</td><td>the sub-range of worker ids this pool uses</td>
 *       <td>0 .. 2^W-1</td></tr>
 *   <tr><td>{@code lease-ttl}</td><td>lease time to live ({@code 30s}, {@code 1500ms}, {@code PT30S})</td>
 *       <td>30s (static: 5s)</td></tr>
 *   <tr><td>{@code lease-renew-interval}</td><td>how often the lease is renewed</td><td>TTL / 3</td></tr>
 *   <tr><td>{@code lease-acquire-timeout}</td><td>how long start-up waits for a free worker id</td>
 *       <td>2 x TTL</td></tr>
 *   <tr><td>{@code lease-owner}</td><td>holder name shown in exhaustion messages</td><td>pid@host</td></tr>
 *   <tr><td>{@code epoch}, {@code timestamp-bits}, {@code worker-bits}, {@code sequence-bits},
 *       {@code gene-bits}</td><td>the {@link GeneIdLayout}; epoch as an ISO instant or Unix milliseconds</td>
 *       <td>{@link GeneIdLayout#defaults()}</td></tr>
 *   <tr><td>{@code max-borrow-millis}</td><td>{@code io.geneid.core.snowflake.GeneSnowflakeGenerator.Builder#maxBorrowMillis(long)}</td>
 *       <td>10</td></tr>
 *   <tr><td>{@code clock-backwards-max-wait}</td><td>wait for a clock that stepped back before moving to a fresh
 *       worker id</td><td>1s</td></tr>
 * </table>
 * Per type: static {@code worker-id}, {@code worker-id-from-hostname}, {@code hostname}, {@code mark-file};
 * redis {@code redis-uri}, {@code redis-key-prefix}, {@code redis-timeout}; jdbc {@code jdbc-url},
 * {@code jdbc-username}, {@code jdbc-password}, {@code jdbc-table}, {@code jdbc-create-table}; zookeeper
 * {@code zookeeper-connect}, {@code zookeeper-base-path}, {@code zookeeper-session-timeout},
 * {@code zookeeper-connection-timeout}, {@code zookeeper-username}, {@code zookeeper-password} (gene-id-zookeeper);
 * etcd {@code etcd-endpoints}, {@code etcd-key-prefix}, {@code etcd-timeout}, {@code etcd-username},
 * {@code etcd-password} (gene-id-etcd). Any other key is an error naming it.
 */
public final class WorkerIdAssigners {

  /** The pool used when no {@code space} is given. */
  public static final String DEFAULT_SPACE = "default";
  /** Default lease TTL of the store-backed assigners. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

  public static final String WORKER_ASSIGNER = "worker-assigner";
  public static final String SPACE = "space";
  public static final String WORKER_ID_MIN = "worker-id-min";
  public static final String WORKER_ID_MAX = "worker-id-max";
  public static final String LEASE_TTL = "lease-ttl";
  public static final String LEASE_RENEW_INTERVAL = "lease-renew-interval";
  public static final String LEASE_ACQUIRE_TIMEOUT = "lease-acquire-timeout";
  public static final String LEASE_OWNER = "lease-owner";

  public static final String EPOCH = "epoch";
  public static final String TIMESTAMP_BITS = "timestamp-bits";
  public static final String WORKER_BITS = "worker-bits";
  public static final String SEQUENCE_BITS = "sequence-bits";
  public static final String GENE_BITS = "gene-bits";
  public static final String MAX_BORROW_MILLIS = SettingsReader.MAX_BORROW_MILLIS;
  public static final String CLOCK_BACKWARDS_MAX_WAIT = SettingsReader.CLOCK_BACKWARDS_MAX_WAIT;

  /** Keys every assigner type accepts. */
  public static final Set<String> COMMON_ASSIGNER_KEYS = Set.of(WORKER_ASSIGNER, SPACE, WORKER_ID_MIN, WORKER_ID_MAX,
      LEASE_TTL, LEASE_RENEW_INTERVAL, LEASE_ACQUIRE_TIMEOUT, LEASE_OWNER);
  /** Keys of the generator (layout and clock handling). */
  public static final Set<String> GENERATOR_KEYS = Set.of(EPOCH, TIMESTAMP_BITS, WORKER_BITS, SEQUENCE_BITS,
      GENE_BITS, MAX_BORROW_MILLIS, CLOCK_BACKWARDS_MAX_WAIT);

  /** The shortest lease TTL. */
  public static final Duration MIN_TTL = Duration.ofMillis(100);
  /** The longest lease TTL. */
  public static final Duration MAX_TTL = Duration.ofHours(1);

  private static final Pattern SPACE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  /** Keys whose values are durations. */
  private static final Set<String> DURATION_KEYS = Set.of(LEASE_TTL, LEASE_RENEW_INTERVAL, LEASE_ACQUIRE_TIMEOUT,
      CLOCK_BACKWARDS_MAX_WAIT, StoreKeys.REDIS_TIMEOUT, StoreKeys.JDBC_STATEMENT_TIMEOUT);

  private WorkerIdAssigners() {}

  /** A new assigner for these properties ({@code worker-assigner} chooses the type). */
  public static WorkerIdAssigner create(Map<String, ?> props) {
    SettingsReader settings = SettingsReader.of(props);
    return checkedProvider(settings, GENERATOR_KEYS).create(settings);
  }

  /**
   * The provider for a {@code worker-assigner} type, found with {@link ServiceLoader} on the thread's context class
   * loader, then on gene-id-core's.
   *
   * @throws IllegalArgumentException naming the type and the types found, and the module that brings it
   */
  public static WorkerIdAssignerProvider provider(String type) {
    return ServiceProviders.find(WorkerIdAssignerProvider.class, WorkerIdAssignerProvider::type, WORKER_ASSIGNER, type);
  }

  /**
   * The provider {@code worker-assigner} names, after checking that every key is one it, every assigner or
   * {@code otherKeys} (the generator's) reads.
   *
   * @throws IllegalArgumentException naming an unknown type or key
   */
  public static WorkerIdAssignerProvider checkedProvider(SettingsReader props, Set<String> otherKeys) {
    WorkerIdAssignerProvider provider = provider(props.string(WORKER_ASSIGNER, "static"));
    Set<String> known = new TreeSet<>(COMMON_ASSIGNER_KEYS);
    known.addAll(otherKeys);
    known.addAll(provider.propertyKeys());
    props.requireKnown(known, WORKER_ASSIGNER + "=" + provider.type());
    return provider;
  }

  /**
   * A configuration key for the JVM's registry of shared generators: the type and the sorted properties as read (durations in
   * milliseconds, the epoch as Unix milliseconds, text trimmed), passwords hashed, so that ShardingSphere's text and
   * Spring's typed values of one configuration name one generator.
   */
  public static String canonicalKey(String type, SettingsReader props) {
    TreeMap<String, String> sorted = new TreeMap<>();
    for (String k : props.keys()) {
      Object raw = props.raw(k);
      String v;
      if (k.equals(EPOCH)) {
        v = Long.toString(props.epoch(k, GeneIdLayout.DEFAULT_EPOCH).toEpochMilli());
      } else if (raw instanceof Duration || DURATION_KEYS.contains(k)) {
        v = props.duration(k, Duration.ZERO).toMillis() + "ms";
      } else {
        v = props.string(k, "");
      }
      sorted.put(k, k.contains("password") ? "#" + Integer.toHexString(v.hashCode()) : v);
    }
    sorted.put(WORKER_ASSIGNER, type);
    return "leased:" + sorted;
  }

  /** The lease settings every store-backed assigner reads. */
  public static LeaseSettings leaseSettings(SettingsReader props) {
    Duration ttl = props.duration(LEASE_TTL, MIN_TTL, MAX_TTL, DEFAULT_TTL);
    return new LeaseSettings(
        props.checked(() -> checkSpace(SPACE, props.string(SPACE, DEFAULT_SPACE))),
        props.longValue(WORKER_ID_MIN, 0, Integer.MAX_VALUE, 0),
        props.longValue(WORKER_ID_MAX, 0, Integer.MAX_VALUE, Integer.MAX_VALUE),
        ttl,
        props.duration(LEASE_ACQUIRE_TIMEOUT, Duration.ZERO, Duration.ofHours(1), ttl.multipliedBy(2)),
        props.string(LEASE_OWNER, defaultOwner()));
  }

  /**
   * The common settings of a store-backed assigner, as read from properties.
   *
   * @param space the pool name
   * @param minWorkerId the lowest worker id of the pool
   * @param maxWorkerId the highest worker id of the pool ({@link Integer#MAX_VALUE}: up to the layout's)
   * @param ttl the lease TTL
   * @param acquireTimeout how long an acquisition waits for a free worker id
   * @param owner the holder name
   */
  public record LeaseSettings(String space, long minWorkerId, long maxWorkerId, Duration ttl,
      Duration acquireTimeout, String owner) {}

  /**
   * A valid pool name: 1 to 64 of {@code A-Z a-z 0-9 . _ -}.
   *
   * @throws IllegalArgumentException naming the bad name
   */
  public static String checkSpace(String space) {
    return checkSpace(SPACE, space);
  }

  private static String checkSpace(String name, String space) {
    if (space == null || !SPACE_NAME.matcher(space).matches()) {
      throw new InvalidSettingException(name, "'" + space + "'", "1 to 64 characters of A-Z a-z 0-9 . _ -");
    }
    return space;
  }

  /**
   * The lowest and highest worker id of a pool cut to a layout.
   *
   * @throws IllegalArgumentException if the pool starts above the layout's largest worker id or is empty
   */
  public static long[] poolRange(String space, long min, long max, long layoutMaxWorkerId) {
    if (min > layoutMaxWorkerId) {
      throw new InvalidSettingException(WORKER_ID_MIN, Long.toString(min), "in [0, " + layoutMaxWorkerId
          + "] (the layout's worker ids; space '" + space + "')");
    }
    long top = Math.min(max, layoutMaxWorkerId);
    if (top < min) {
      throw new InvalidSettingException(WORKER_ID_MAX, Long.toString(max), "at least {" + WORKER_ID_MIN + "} (" + min
          + "; space '" + space + "')");
    }
    return new long[] {min, top};
  }

  /**
   * Waits before the next try to acquire a worker id of {@code space}: a tenth of the TTL, at least 20 ms, at most
   * {@code remainingNanos}.
   *
   * @throws GeneIdException if the thread is interrupted (its interrupt status stays set)
   */
  public static void pauseBeforeRetry(String space, Duration ttl, long remainingNanos) {
    LockSupport.parkNanos(Math.min(remainingNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(20, ttl.toMillis() / 10))));
    if (Thread.interrupted()) {
      Thread.currentThread().interrupt();
      throw new GeneIdException("interrupted while waiting for a free worker id of space '" + space + "'");
    }
  }

  /** {@code <pid>@<host name>}. */
  public static String defaultOwner() {
    String name = ManagementFactory.getRuntimeMXBean().getName(); // pid@host on HotSpot
    return name.contains("@") ? name : ProcessHandle.current().pid() + "@" + name;
  }
}
