package io.geneid.shardingsphere;

import io.geneid.core.snowflake.SnowflakeSettings;

import io.geneid.core.snowflake.LeasedGenerators;

import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.GeneClock;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.GeneSpread;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.settings.SettingsReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.Properties;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShardingSphere key generator type {@code GENE_SNOWFLAKE}: gene ids from the JVM-wide
 * {@link GeneSnowflakeGenerator} for the configured layout and worker id.
 *
 * <p>ShardingSphere hands a key generator only the names of the table and column, never the row's values, so the
 * parent's gene reaches it through a {@link GeneContext} scope opened by the application around the INSERT:
 *
 * <pre>{@code
 * try (var scope = GeneContext.inherit(orderId)) {          // every generated id carries orderId's gene
 *   insertItem.executeUpdate();
 * }
 * try (var scope = GeneContext.inheritEach(List.of(o1, o2))) {  // one parent per row, in VALUES / addBatch order
 *   insertTwoItems.executeUpdate();                         // INSERT ... VALUES (?, ?), (?, ?)
 * }
 * }</pre>
 *
 * <p>A multi-row INSERT asks for all its keys in one call: they are made as one batch
 * ({@link GeneIdGenerator#nextIds(int)}; roots through the table's spread, each gene's ids as one run).
 *
 * <p>Without a scope the ids are root ids, spread over all genes by one {@link GeneSpread} per logical table, so the
 * root rows of every table balance over the shards at any rate: a thread inserting into one table gets every gene
 * once per {@code 2^G} rows, also when it inserts into several tables in turn.
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_SNOWFLAKE properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>worker-assigner</td><td>where the worker id comes from: {@code static} (the {@code worker-id}
 *       property), {@code redis} or {@code jdbc} (a lease, see below)</td><td>static</td></tr>
 *   <tr><td>worker-id</td><td>with {@code static}: this process's worker id, in [0, 2^worker-bits - 1]</td>
 *       <td>required</td></tr>
 *   <tr><td>epoch</td><td>ISO-8601 instant ({@code 2025-01-01T00:00:00Z}), date (UTC) or Unix
 *       milliseconds</td><td>2025-01-01T00:00:00Z</td></tr>
 *   <tr><td>timestamp-bits</td><td>T, in [35, 63]</td><td>41</td></tr>
 *   <tr><td>worker-bits</td><td>W, in [0, 28]</td><td>8</td></tr>
 *   <tr><td>sequence-bits</td><td>S, in [0, 28]</td><td>8</td></tr>
 *   <tr><td>gene-bits</td><td>G, in [0, 16]; must equal the {@code gene-bits} of the {@code GENE_MOD}
 *       algorithms that route these ids</td><td>6</td></tr>
 *   <tr><td>max-borrow-millis</td><td>how far a gene may run ahead of the clock, in [0, 60000]</td><td>10</td></tr>
 *   <tr><td>string-ids</td><td>{@code true}: issue keys as strings ({@link GeneIdStringFormat}) for a
 *       {@code VARCHAR} id column; {@code GENE_MOD} needs the same {@code string-id-*} properties to route them by
 *       their gene</td><td>false</td></tr>
 *   <tr><td>string-id-prefix</td><td>the strings' business prefix, up to 32 of {@code A-Z a-z 0-9 _ - . :}</td>
 *       <td>none</td></tr>
 *   <tr><td>string-id-date</td><td>{@code true}: a {@code yyyyMMdd} part, the UTC day of each id</td>
 *       <td>false</td></tr>
 * </table>
 * The four widths must add up to 63. Any other property name, or a value out of range, fails start-up with a
 * message naming the property and the allowed values.
 *
 * <h2>Leased worker ids</h2>
 * With {@code worker-assigner: redis} (add {@code io.geneid:gene-id-redis}) or {@code jdbc} (add
 * {@code io.geneid:gene-id-jdbc}) the worker id is leased from a shared store through
 * {@link WorkerIdAssigners#sharedGenerator(SettingsReader)}, which also reads the assigner's properties: {@code space},
 * {@code worker-id-min}, {@code worker-id-max}, {@code lease-ttl}, {@code lease-renew-interval},
 * {@code lease-acquire-timeout}, {@code lease-owner}, {@code clock-backwards-max-wait}, and per store
 * {@code redis-uri}, {@code redis-key-prefix}, {@code redis-timeout} or {@code jdbc-url}, {@code jdbc-username},
 * {@code jdbc-password}, {@code jdbc-table}, {@code jdbc-create-table}. {@code worker-id} is then not allowed.
 * {@code init} checks these without reaching the store; the lease is acquired on the first
 * {@link #generateKeys}, and every instance with the same properties (ShardingSphere makes two), and a Spring context
 * configured alike, shares the one generator, hence one lease, renewed in the background. Each instance holds a
 * counted handle on it ({@link io.geneid.core.snowflake.GeneIdRegistry.Handle}); {@link #close()} gives up this instance's
 * hold only. ShardingSphere 5.5 never closes its key generators, so in practice the lease is released when the last
 * other user lets go at JVM shutdown (one shutdown hook for every shared generator).
 *
 * <p>ShardingSphere calls {@link #init(Properties)} on more than one instance (its configuration checker and its
 * rule). {@code init} only checks the properties; the generator is looked up (or created) in the
 * {@link GeneIdRegistry} on first use, so every instance, and any other code of the JVM that builds a generator
 * for the same layout and worker id, shares one and cannot issue an id twice; a generator of the JVM that holds the
 * same worker id and epoch another way (a leased one, another layout) makes the first {@link #generateKeys} fail with
 * a message naming both.
 */
public final class GeneSnowflakeKeyGenerateAlgorithm implements KeyGenerateAlgorithm, AutoCloseable {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_SNOWFLAKE";

  static final String WORKER_ID = "worker-id";
  static final String EPOCH = "epoch";
  static final String TIMESTAMP_BITS = "timestamp-bits";
  static final String WORKER_BITS = "worker-bits";
  static final String SEQUENCE_BITS = "sequence-bits";
  static final String GENE_BITS = SettingsReader.GENE_BITS;
  static final String MAX_BORROW_MILLIS = SettingsReader.MAX_BORROW_MILLIS;
  static final String WORKER_ASSIGNER = WorkerIdAssigners.WORKER_ASSIGNER;
  private static final String STATIC = "static";
  private static final List<String> STATIC_PROPERTIES = List.of(WORKER_ASSIGNER, WORKER_ID, EPOCH, TIMESTAMP_BITS,
      WORKER_BITS, SEQUENCE_BITS, GENE_BITS, MAX_BORROW_MILLIS, SettingsReader.STRING_IDS,
      SettingsReader.STRING_ID_PREFIX, SettingsReader.STRING_ID_DATE);

  private static final Logger LOG = LoggerFactory.getLogger(GeneSnowflakeKeyGenerateAlgorithm.class);

  /**
   * What the properties say; checked in {@link #init(Properties)}.
   *
   * @param workerId the static worker id, or -1 with a lease
   * @param lease the properties for {@link WorkerIdAssigners#sharedGenerator(SettingsReader)}, or null for a static worker id
   */
  record Settings(GeneIdLayout layout, long workerId, long maxBorrowMillis, @Nullable SettingsReader lease,
      @Nullable GeneIdStringFormat strings) {}

  private @Nullable Settings settings;
  private volatile @Nullable GeneIdGenerator generator;
  /** This instance's hold on a JVM-shared leased generator, given up by {@link #close()}. */
  private volatile GeneIdRegistry.@Nullable Handle<?> handle;

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneSnowflakeKeyGenerateAlgorithm() {}

  /**
   * Checks the properties. Has no side effect: the generator is obtained on first use.
   *
   * @throws IllegalArgumentException naming the property and the allowed range or values
   * @throws IllegalStateException if this JVM already has a generator for the same layout and worker id with other
   *     settings (two would issue duplicate ids)
   */
  @Override
  public void init(Properties props) {
    String assigner = props == null || props.get(WORKER_ASSIGNER) == null ? STATIC
        : String.valueOf(props.get(WORKER_ASSIGNER)).trim();
    if (!assigner.equals(STATIC)) {
      this.settings = parseLeased(assigner, props);
      return;
    }
    Settings parsed = parse(AlgorithmProps.of(TYPE, props, STATIC_PROPERTIES));
    GeneIdRegistry.find(parsed.layout(), parsed.workerId()).ifPresent(existing -> {
      if (existing.maxBorrowMillis() != parsed.maxBorrowMillis()
          || !existing.clock().equals(GeneClock.system())
          || !existing.clockBackwardsPolicy().equals(ClockBackwardsPolicy.DEFAULT)) {
        throw new IllegalStateException(TYPE + " with " + WORKER_ID + "=" + parsed.workerId() + ", "
            + MAX_BORROW_MILLIS + "=" + parsed.maxBorrowMillis() + " and " + parsed.layout()
            + " conflicts with the generator this JVM already has for that worker id: " + existing
            + "; configure the same settings to share it");
      }
    });
    this.settings = parsed;
  }

  static Settings parse(SettingsReader props) {
    GeneIdLayout layout = GeneIdLayout.from(props);
    long workerId = props.requiredLong(WORKER_ID, 0, layout.maxWorkerId());
    return new Settings(layout, workerId, SnowflakeSettings.maxBorrowMillis(props), null, GeneIdStringFormat.from(props, layout));
  }

  /**
   * The settings of a leased worker id: the properties as a reader for {@link WorkerIdAssigners#check(SettingsReader)}
   * and, on first use, {@link WorkerIdAssigners#sharedGenerator(SettingsReader)}; every message names the property
   * as {@code GENE_SNOWFLAKE property '<name>'}.
   */
  private static Settings parseLeased(String assigner, Properties props) {
    try {
      WorkerIdAssigners.provider(assigner);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + ": " + e.getMessage(), e);
    }
    Properties leaseProps = new Properties();
    props.forEach((k, v) -> {
      if (!SettingsReader.STRING_ID_KEYS.contains(String.valueOf(k))) {
        leaseProps.put(k, v);
      }
    });
    SettingsReader lease = SettingsReader.of(leaseProps).ownedBy(TYPE);
    GeneIdLayout layout;
    try {
      layout = LeasedGenerators.check(lease);
    } catch (IllegalArgumentException e) { // a store builder's own check names the key but not the algorithm
      throw String.valueOf(e.getMessage()).startsWith(TYPE) ? e : new IllegalArgumentException(TYPE + ": "
          + e.getMessage(), e);
    }
    return new Settings(layout, -1, SnowflakeSettings.maxBorrowMillis(lease), lease,
        GeneIdStringFormat.from(SettingsReader.of(props).ownedBy(TYPE), layout));
  }

  /** The genes of root rows: one spread per logical table. */
  private final TableSpreads spreads = new TableSpreads();

  /**
   * {@code count} ids, in order: each carries the gene of the open {@link GeneContext} scope's parent (the same
   * parent for every id, or the next one of {@link GeneContext#inheritEach(List)} for each row), or without a scope
   * a gene from the {@link GeneSpread} of the INSERT's logical table, so every table balances on its own whatever
   * order a thread inserts into several tables in.
   */
  @Override
  public Collection<? extends Comparable<?>> generateKeys(AlgorithmSQLContext context, int count) {
    GeneIdGenerator ids = generatorInstance();
    GeneSpread spread = spreads.spreadFor(context, ids.geneBits());
    return keys(count, settings().strings(), () -> spread.nextId(ids), n -> spread.nextIds(ids, n));
  }

  /**
   * {@code count} keys: one from {@code one} (a single-row INSERT, the common case, allocates only the key and its
   * list), else from batches of at most {@link GeneIdGenerator#MAX_BATCH} ids; as {@link Long}s, or as strings of
   * {@code strings}.
   */
  static List<Comparable<?>> keys(int count, @Nullable GeneIdStringFormat strings, LongSupplier one,
      java.util.function.IntFunction<long[]> batch) {
    if (count == 1) {
      long id = one.getAsLong();
      return List.of(strings == null ? (Comparable<?>) id : strings.format(id));
    }
    List<Comparable<?>> result = new ArrayList<>(count);
    for (int left = count; left > 0; ) {
      int n = Math.min(left, GeneIdGenerator.MAX_BATCH);
      for (long id : batch.apply(n)) {
        result.add(strings == null ? (Comparable<?>) id : strings.format(id));
      }
      left -= n;
    }
    return result;
  }

  /** The string form of the keys, or null for numeric keys ({@code string-ids}). */
  @Nullable GeneIdStringFormat stringFormat() {
    return settings().strings();
  }

  /** The layout these ids use (for {@link GeneShardingCheck}). */
  GeneIdLayout layout() {
    return settings().layout();
  }

  private Settings settings() {
    return AlgorithmProps.initialised(TYPE, settings);
  }

  private GeneIdGenerator generatorInstance() {
    GeneIdGenerator g = generator;
    if (g == null) {
      synchronized (this) {
        g = generator;
        if (g == null) {
          if (closed) {
            throw new IllegalStateException(this + " is closed");
          }
          g = createGenerator(settings());
          if (g instanceof GeneIdRegistry.Handle<?> h) {
            handle = h;
          }
          generator = g;
          LOG.info("{} issues ids from {}", TYPE, g);
        }
      }
    }
    return g;
  }

  /**
   * The one place the settings become a generator: the JVM-wide instance for this layout and worker id, or a handle
   * on the JVM-wide leased generator for these lease properties (its lease is acquired here, on first use).
   */
  private static GeneIdGenerator createGenerator(Settings s) {
    SettingsReader lease = s.lease();
    if (lease != null) {
      return LeasedGenerators.sharedGenerator(lease);
    }
    return GeneSnowflakeGenerator.builder().layout(s.layout()).workerId(s.workerId())
        .maxBorrowMillis(s.maxBorrowMillis()).build();
  }

  private volatile boolean closed;

  /**
   * Gives up this instance's hold on a JVM-shared leased generator (the generator stays open while another user
   * holds it; the last one closes it). A generator of a static worker id is shared for the JVM's life and stays.
   * Idempotent.
   */
  @Override
  public void close() {
    GeneIdRegistry.Handle<?> h;
    synchronized (this) {
      closed = true;
      h = handle;
      handle = null;
    }
    if (h != null) {
      h.close();
    }
  }

  /**
   * The generator ids come from (created, and with a lease acquired, on first call): the JVM-shared generator itself,
   * not this instance's handle on it.
   */
  GeneIdGenerator generator() {
    GeneIdGenerator g = generatorInstance();
    return g instanceof GeneIdRegistry.Handle<?> h ? h.generator() : g;
  }

  @Override
  public String getType() {
    return TYPE;
  }

  @Override
  public String toString() {
    Settings s = settings;
    if (s == null) {
      return TYPE + "[not initialised]";
    }
    SettingsReader lease = s.lease();
    String worker = lease == null ? "workerId=" + s.workerId()
        : WORKER_ASSIGNER + "=" + lease.string(WORKER_ASSIGNER, STATIC) + ", space="
            + lease.string(WorkerIdAssigners.SPACE, WorkerIdAssigners.DEFAULT_SPACE);
    return TYPE + "[" + worker + ", " + s.layout() + ", maxBorrowMillis=" + s.maxBorrowMillis()
        + (s.strings() == null ? "" : ", " + s.strings()) + "]";
  }
}
