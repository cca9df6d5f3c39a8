package io.geneid.shardingsphere;

import io.geneid.core.ClockBackwardsPolicy;
import io.geneid.core.GeneClock;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdRegistry;
import io.geneid.core.GeneSnowflakeGenerator;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
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
 * <p>Without a scope the ids are root ids, spread over all genes, so root rows balance over the shards at any rate.
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_SNOWFLAKE properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>worker-id</td><td>this process's worker id, in [0, 2^worker-bits - 1]</td><td>required</td></tr>
 *   <tr><td>epoch</td><td>ISO-8601 instant ({@code 2025-01-01T00:00:00Z}), date (UTC) or Unix
 *       milliseconds</td><td>2025-01-01T00:00:00Z</td></tr>
 *   <tr><td>timestamp-bits</td><td>T, in [35, 63]</td><td>41</td></tr>
 *   <tr><td>worker-bits</td><td>W, in [0, 28]</td><td>8</td></tr>
 *   <tr><td>sequence-bits</td><td>S, in [0, 28]</td><td>8</td></tr>
 *   <tr><td>gene-bits</td><td>G, in [0, 16]; must equal the {@code gene-bits} of the {@code GENE_MOD}
 *       algorithms that route these ids</td><td>6</td></tr>
 *   <tr><td>max-borrow-millis</td><td>how far a gene may run ahead of the clock, in [0, 60000]</td><td>10</td></tr>
 * </table>
 * The four widths must add up to 63. Any other property name, or a value out of range, fails start-up with a
 * message naming the property and the allowed values.
 *
 * <p>ShardingSphere calls {@link #init(Properties)} on more than one instance (its configuration checker and its
 * rule). {@code init} only checks the properties; the generator is looked up (or created) in the
 * {@link GeneIdRegistry} on first use, so every instance, and any other code of the JVM that builds a generator
 * for the same layout and worker id, shares one and cannot issue an id twice.
 */
public final class GeneSnowflakeKeyGenerateAlgorithm implements KeyGenerateAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_SNOWFLAKE";

  static final String WORKER_ID = "worker-id";
  static final String EPOCH = "epoch";
  static final String TIMESTAMP_BITS = "timestamp-bits";
  static final String WORKER_BITS = "worker-bits";
  static final String SEQUENCE_BITS = "sequence-bits";
  static final String GENE_BITS = "gene-bits";
  static final String MAX_BORROW_MILLIS = "max-borrow-millis";
  private static final List<String> PROPERTIES = List.of(WORKER_ID, EPOCH, TIMESTAMP_BITS, WORKER_BITS,
      SEQUENCE_BITS, GENE_BITS, MAX_BORROW_MILLIS);

  private static final Logger LOG = LoggerFactory.getLogger(GeneSnowflakeKeyGenerateAlgorithm.class);

  /** What the properties say; checked in {@link #init(Properties)}. */
  record Settings(GeneIdLayout layout, long workerId, long maxBorrowMillis) {}

  private @Nullable Settings settings;
  private volatile @Nullable GeneIdGenerator generator;

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
    Settings parsed = parse(AlgorithmProps.of(TYPE, props, PROPERTIES));
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

  static Settings parse(AlgorithmProps props) {
    GeneIdLayout defaults = GeneIdLayout.defaults();
    int timestampBits = (int) props.longValue(TIMESTAMP_BITS, GeneIdLayout.MIN_TIMESTAMP_BITS, 63,
        defaults.timestampBits());
    int workerBits = (int) props.longValue(WORKER_BITS, 0, GeneIdLayout.MAX_FIELD_BITS, defaults.workerBits());
    int sequenceBits = (int) props.longValue(SEQUENCE_BITS, 0, GeneIdLayout.MAX_FIELD_BITS,
        defaults.sequenceBits());
    int geneBits = (int) props.longValue(GENE_BITS, 0, GeneIdLayout.MAX_GENE_BITS, defaults.geneBits());
    Instant epoch = props.has(EPOCH) ? epoch(props) : defaults.epoch();
    GeneIdLayout layout;
    try {
      layout = GeneIdLayout.builder().epoch(epoch).timestampBits(timestampBits).workerBits(workerBits)
          .sequenceBits(sequenceBits).geneBits(geneBits).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + " properties " + EPOCH + "=" + epoch + ", " + TIMESTAMP_BITS + "="
          + timestampBits + ", " + WORKER_BITS + "=" + workerBits + ", " + SEQUENCE_BITS + "=" + sequenceBits + ", "
          + GENE_BITS + "=" + geneBits + " make no valid layout: " + e.getMessage()
          + " (the four widths must add up to 63; defaults 41, 8, 8, 6)", e);
    }
    long workerId = props.requiredLong(WORKER_ID, 0, layout.maxWorkerId());
    long maxBorrowMillis = props.longValue(MAX_BORROW_MILLIS, 0, 60_000,
        GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS);
    return new Settings(layout, workerId, maxBorrowMillis);
  }

  private static Instant epoch(AlgorithmProps props) {
    Object raw = props.raw(EPOCH);
    if (raw instanceof Date) { // an unquoted YAML date or timestamp
      return ((Date) raw).toInstant();
    }
    String text = String.valueOf(raw).trim();
    try {
      if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
        return Instant.ofEpochMilli(Long.parseLong(text));
      }
      if (text.length() == 10) {
        return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      return Instant.parse(text);
    } catch (DateTimeException | NumberFormatException e) {
      throw new IllegalArgumentException(TYPE + " property '" + EPOCH + "' must be an ISO-8601 instant such as "
          + GeneIdLayout.DEFAULT_EPOCH + ", a date such as 2025-01-01 (UTC) or Unix milliseconds but was '" + raw
          + "'", e);
    }
  }

  /**
   * {@code count} ids from {@link GeneIdGenerator#nextId()}, in order: each carries the gene of the open
   * {@link GeneContext} scope's parent (the same parent for every id, or the next one of
   * {@link GeneContext#inheritEach(List)} for each row), or a spread gene without a scope.
   */
  @Override
  public Collection<? extends Comparable<?>> generateKeys(AlgorithmSQLContext context, int count) {
    GeneIdGenerator ids = generator();
    List<Long> result = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      result.add(ids.nextId());
    }
    return result;
  }

  /** The layout these ids use (for {@link GeneShardingCheck}). */
  GeneIdLayout layout() {
    return settings().layout();
  }

  private Settings settings() {
    Settings s = settings;
    if (s == null) {
      throw new IllegalStateException(TYPE + " was used before init(Properties)");
    }
    return s;
  }

  private GeneIdGenerator generator() {
    GeneIdGenerator g = generator;
    if (g == null) {
      synchronized (this) {
        g = generator;
        if (g == null) {
          g = createGenerator(settings());
          generator = g;
          LOG.info("{} issues ids from {}", TYPE, g);
        }
      }
    }
    return g;
  }

  /**
   * The one place the settings become a generator: the JVM-wide instance for this layout and worker id. A
   * lease-holding generator (worker id from a store) plugs in here.
   */
  private static GeneIdGenerator createGenerator(Settings s) {
    return GeneSnowflakeGenerator.builder().layout(s.layout()).workerId(s.workerId())
        .maxBorrowMillis(s.maxBorrowMillis()).build();
  }

  @Override
  public String getType() {
    return TYPE;
  }

  @Override
  public String toString() {
    Settings s = settings;
    return TYPE + (s == null ? "[not initialised]"
        : "[workerId=" + s.workerId() + ", " + s.layout() + ", maxBorrowMillis=" + s.maxBorrowMillis() + "]");
  }
}
