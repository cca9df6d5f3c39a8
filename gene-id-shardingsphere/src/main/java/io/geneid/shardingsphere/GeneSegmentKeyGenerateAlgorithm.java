package io.geneid.shardingsphere;

import io.geneid.core.GeneIdStringFormat;

import io.geneid.core.segment.SegmentStoreProvider;
import io.geneid.core.segment.SegmentStores;
import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import io.geneid.core.internal.StoreUrls;
import io.geneid.core.GeneContext;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.SegmentSettings;
import io.geneid.core.GeneSpread;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShardingSphere key generator type {@code GENE_SEGMENT}: short, dense, increasing gene ids from a
 * {@link GeneSegmentGenerator} over a JDBC table or Redis, {@code id = (value << gene-bits) | gene}, so they route
 * with {@code GENE_MOD} exactly like {@code GENE_SNOWFLAKE} ids.
 *
 * <p>Genes work as with {@code GENE_SNOWFLAKE}: inside a {@link GeneContext} scope every id carries the parent's gene
 * ({@code inherit}), or the next parent's for each row ({@code inheritEach}, VALUES and {@code addBatch} order);
 * without a scope the root ids of every table cycle through all genes on their own: the low bits of the tag's value
 * when the tag is the table, a {@link GeneSpread} per logical table when a {@code biz-tag} is shared by tables.
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_SEGMENT properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>segment-store</td><td>{@code jdbc} (add {@code io.geneid:gene-id-jdbc}) or {@code redis} (add
 *       {@code io.geneid:gene-id-redis})</td><td>required</td></tr>
 *   <tr><td>biz-tag</td><td>the business tag whose counter the ids come from, 1 to 128 characters</td>
 *       <td>the logical table name of the INSERT, lower-cased: one counter per table</td></tr>
 *   <tr><td>gene-bits</td><td>G, in [0, 16]; must equal the {@code gene-bits} of the {@code GENE_MOD} algorithms
 *       </td><td>6</td></tr>
 *   <tr><td>min-step</td><td>smallest segment, and the first, in [1, 1000000000]</td><td>1000</td></tr>
 *   <tr><td>max-step</td><td>largest segment, in [min-step, 1000000000]</td><td>max(1000000, min-step)</td></tr>
 *   <tr><td>segment-duration</td><td>how long a segment should last at the measured rate, in [1s, 24h]
 *       ({@code 10m}, {@code 90s}, {@code PT10M})</td><td>10m</td></tr>
 *   <tr><td>prefetch-ratio</td><td>fraction of a segment used before the next is fetched, in [0.0, 0.9]</td>
 *       <td>0.1</td></tr>
 *   <tr><td>fetch-timeout</td><td>how long an INSERT with no value left waits for the store, in [1ms, 10m]</td>
 *       <td>10s</td></tr>
 *   <tr><td>prefetch-retry</td><td>pause between background fetch attempts while the store fails, in [0, 10m]</td>
 *       <td>1s</td></tr>
 *   <tr><td>thread-block</td><td>0: one shared order; in [2, 100000]: values each thread takes at once (threads do
 *       not contend; ids of different threads interleave)</td><td>0</td></tr>
 *   <tr><td>string-ids</td><td>{@code true}: issue keys as strings ({@link io.geneid.core.GeneIdStringFormat}, no
 *       date part: segment ids carry no time)</td><td>false</td></tr>
 *   <tr><td>string-id-prefix</td><td>the strings' business prefix</td><td>none</td></tr>
 *   <tr><td>jdbc-url, jdbc-username, jdbc-password</td><td>the database of the segment table (DriverManager; keep
 *       it outside ShardingSphere)</td><td>url required</td></tr>
 *   <tr><td>jdbc-table</td><td>the segment table</td><td>gene_id_segment</td></tr>
 *   <tr><td>jdbc-create-table</td><td>create the table on first use if it does not exist</td><td>false</td></tr>
 *   <tr><td>redis-uri</td><td>e.g. {@code redis://127.0.0.1:6379/0}</td><td>required</td></tr>
 *   <tr><td>redis-key-prefix</td><td>first part of the counter keys ({@code <prefix>:segment:<biz-tag>}), as for
 *       the lease keys</td><td>gene-id</td></tr>
 *   <tr><td>redis-allow-without-persistence</td><td>accept a Redis that keeps nothing on disk (it forgets its
 *       counters on restart, and segment values then repeat across processes)</td><td>false</td></tr>
 * </table>
 * The {@code jdbc-*} properties belong to {@code segment-store: jdbc}, the {@code redis-*} ones to {@code redis}; any
 * other property name, or a value out of range, fails start-up with a message naming it.
 *
 * <h2>Sharing</h2>
 * {@link #init(Properties)} only checks the properties (ShardingSphere calls it on two instances). On the first
 * {@link #generateKeys} of a tag the store is opened (one per store configuration in the JVM) and the generator is
 * looked up, or created, in {@link GeneIdRegistry} under (store, tag): every instance and every table with the same
 * store and tag takes values from one pair of buffers. Two configurations of one store and tag with different
 * generator settings are refused: with different {@code gene-bits} their ids could collide.
 */
public final class GeneSegmentKeyGenerateAlgorithm implements KeyGenerateAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_SEGMENT";

  static final String SEGMENT_STORE = SegmentStores.SEGMENT_STORE;
  static final String BIZ_TAG = "biz-tag";
  static final String GENE_BITS = SettingsReader.GENE_BITS;
  static final String JDBC_URL = StoreKeys.JDBC_URL;
  static final String JDBC_USERNAME = StoreKeys.JDBC_USERNAME;
  static final String JDBC_PASSWORD = StoreKeys.JDBC_PASSWORD;
  static final String JDBC_TABLE = StoreKeys.JDBC_TABLE;
  static final String JDBC_CREATE_TABLE = StoreKeys.JDBC_CREATE_TABLE;
  static final String REDIS_URI = StoreKeys.REDIS_URI;
  static final String REDIS_KEY_PREFIX = StoreKeys.REDIS_KEY_PREFIX;
  static final String REDIS_ALLOW_WITHOUT_PERSISTENCE = StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE;

  private static final List<String> GENERATOR_PROPERTIES = concat(concat(List.of(SEGMENT_STORE, BIZ_TAG),
      SegmentSettings.KEYS), List.of(SettingsReader.STRING_IDS, SettingsReader.STRING_ID_PREFIX));
  private static final List<String> JDBC_PROPERTIES = List.of(JDBC_URL, JDBC_USERNAME, JDBC_PASSWORD, JDBC_TABLE,
      JDBC_CREATE_TABLE);
  private static final List<String> REDIS_PROPERTIES = List.of(REDIS_URI, REDIS_KEY_PREFIX,
      REDIS_ALLOW_WITHOUT_PERSISTENCE);
  private static final String DEFAULT_JDBC_TABLE = "gene_id_segment";
  private static final String DEFAULT_REDIS_KEY_PREFIX = "gene-id";
  private static final int MAX_TAG_LENGTH = 128;

  private static final Logger LOG = LoggerFactory.getLogger(GeneSegmentKeyGenerateAlgorithm.class);

  /** Generator settings per registry key, so a second configuration of one store and tag cannot differ. */
  private static final ConcurrentMap<String, String> SETTINGS_BY_KEY = new ConcurrentHashMap<>();

  /** What the properties say; checked in {@link #init(Properties)}. */
  record Settings(SharedSegmentStores.Config store, @Nullable String bizTag, SegmentSettings generator,
      io.geneid.core.@Nullable GeneIdStringFormat strings) {

    /** The settings that must agree between configurations sharing one generator. */
    String generatorSettings() {
      return generator.toString();
    }

    int geneBits() {
      return generator.geneBits();
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return List.copyOf(all);
  }

  private @Nullable Settings settings;
  /** This instance's generators by tag (each is the JVM-wide one for its store and tag). */
  private final ConcurrentMap<String, GeneSegmentGenerator> generators = new ConcurrentHashMap<>();

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneSegmentKeyGenerateAlgorithm() {}

  /**
   * Checks the properties. Has no side effect: no store is reached before the first {@link #generateKeys}.
   *
   * @throws IllegalArgumentException naming the property and the allowed range or values, or the artifact to add
   *     when the store's module is missing
   * @throws IllegalStateException if this JVM already has a generator for the same store and {@code biz-tag} with
   *     other settings
   */
  @Override
  public void init(Properties props) {
    Object rawStore = props == null ? null : props.get(SEGMENT_STORE);
    String storeType = rawStore == null ? "" : String.valueOf(rawStore).trim();
    if (storeType.isEmpty()) {
      throw new IllegalArgumentException(TYPE + " property '" + SEGMENT_STORE + "' is required: jdbc or redis");
    }
    if (!storeType.equals("jdbc") && !storeType.equals("redis")) {
      throw new IllegalArgumentException(TYPE + " property '" + SEGMENT_STORE + "' must be jdbc or redis but was '"
          + rawStore + "'");
    }
    List<String> allowed = new ArrayList<>(GENERATOR_PROPERTIES);
    allowed.addAll(storeType.equals("jdbc") ? JDBC_PROPERTIES : REDIS_PROPERTIES);
    SettingsReader p = AlgorithmProps.of(TYPE, props, allowed);
    SegmentStoreProvider provider = SharedSegmentStores.provider(storeType, SEGMENT_STORE);

    String bizTag = null;
    if (p.has(BIZ_TAG)) {
      bizTag = p.string(BIZ_TAG, "");
      if (bizTag.isEmpty() || bizTag.length() > MAX_TAG_LENGTH) {
        throw new IllegalArgumentException(TYPE + " property '" + BIZ_TAG + "' must have 1 to " + MAX_TAG_LENGTH
            + " characters but was '" + bizTag + "'");
      }
    }
    Settings parsed = new Settings(store(storeType, provider, p), bizTag, SegmentSettings.read(p), GeneIdStringFormat.from(p, null));
    if (bizTag != null) {
      checkConflict(parsed, bizTag);
    }
    this.settings = parsed;
  }

  private static SharedSegmentStores.Config store(String type, SegmentStoreProvider provider, SettingsReader p) {
    Map<String, String> props = new TreeMap<>();
    if (type.equals("jdbc")) {
      String url = p.requiredString(JDBC_URL, "a JDBC URL such as jdbc:mariadb://127.0.0.1:3306/app");
      if (!url.startsWith("jdbc:")) {
        throw new IllegalArgumentException(TYPE + " property '" + JDBC_URL + "' must be a JDBC URL starting with"
            + " jdbc: but was '" + url + "'");
      }
      props.put(JDBC_URL, url);
      if (p.has(JDBC_USERNAME)) {
        props.put(JDBC_USERNAME, p.string(JDBC_USERNAME, ""));
      }
      if (p.has(JDBC_PASSWORD)) {
        props.put(JDBC_PASSWORD, String.valueOf(p.raw(JDBC_PASSWORD))); // not trimmed: a password is as given
      }
      provider.check(p); // the table's one rule, named as ShardingSphere users write it
      props.put(JDBC_TABLE, p.string(JDBC_TABLE, DEFAULT_JDBC_TABLE));
      props.put(JDBC_CREATE_TABLE, Boolean.toString(p.bool(JDBC_CREATE_TABLE, false)));
    } else {
      String uri = p.requiredString(REDIS_URI, "a Redis URI such as redis://127.0.0.1:6379/0");
      String prefix = p.string(REDIS_KEY_PREFIX, DEFAULT_REDIS_KEY_PREFIX);
      try {
        provider.check(p);
      } catch (IllegalArgumentException e) {
        if (!(e instanceof InvalidSettingException bad)
            || !List.of(REDIS_KEY_PREFIX, REDIS_ALLOW_WITHOUT_PERSISTENCE).contains(bad.key())) {
          throw new IllegalArgumentException(TYPE + " property '" + REDIS_URI + "' must be a Redis URI such as"
              + " redis://127.0.0.1:6379/0 but was '" + StoreUrls.describe(uri) + "'", e);
        }
        if (bad.key().equals(REDIS_KEY_PREFIX) && prefix.isEmpty()) {
          throw new IllegalArgumentException(TYPE + " property '" + REDIS_KEY_PREFIX + "' must not be empty", e);
        }
        throw e;
      }
      props.put(REDIS_URI, uri);
      props.put(REDIS_KEY_PREFIX, prefix);
      props.put(REDIS_ALLOW_WITHOUT_PERSISTENCE, Boolean.toString(p.bool(REDIS_ALLOW_WITHOUT_PERSISTENCE, false)));
    }
    // the key says which store, without the password
    Map<String, String> keyProps = new TreeMap<>(props);
    keyProps.computeIfPresent(JDBC_PASSWORD, (k, v) -> "#" + Integer.toHexString(v.hashCode()));
    keyProps.remove(JDBC_CREATE_TABLE);
    keyProps.remove(REDIS_ALLOW_WITHOUT_PERSISTENCE);
    return new SharedSegmentStores.Config(type, type + keyProps, Map.copyOf(props));
  }

  private static String registryKey(Settings s, String tag) {
    return "gene-segment:" + s.store().key() + "|tag=" + tag;
  }

  private static void checkConflict(Settings s, String tag) {
    String existing = SETTINGS_BY_KEY.get(registryKey(s, tag));
    if (existing != null && !existing.equals(s.generatorSettings())) {
      Map<String, String> props = s.store().props();
      String store = s.store().type() + " store at " + StoreUrls.describe(props.getOrDefault(JDBC_URL,
          props.get(REDIS_URI)));
      throw new IllegalStateException(TYPE + " with " + s.generatorSettings() + " conflicts with the generator this"
          + " JVM already has for the same store and tag (" + store + ", tag " + tag + ") with " + existing
          + "; configure the same settings to share it");
    }
  }

  /** With a {@code biz-tag} shared by several tables: the genes of each table's root rows. */
  private final TableSpreads spreads = new TableSpreads();

  /**
   * {@code count} ids, in order, from the generator of the tag ({@code biz-tag}, or the logical table name): each
   * carries the gene of the open {@link GeneContext} scope's parent (or of the next parent of
   * {@link GeneContext#inheritEach(List)} for each row), or without a scope the low bits of the value (the tag is the
   * table) or a gene from the {@link GeneSpread} of the logical table (a configured {@code biz-tag}, which several
   * tables may share), so every table balances on its own.
   *
   * @throws io.geneid.core.GeneIdException if the store cannot be reached and no value is left
   */
  @Override
  public Collection<? extends Comparable<?>> generateKeys(AlgorithmSQLContext context, int count) {
    GeneSegmentGenerator ids = generatorFor(tag(context));
    if (settings().bizTag() == null) {
      // the tag is the table: the tag's own counter (its values' low bits) balances the table over all threads
      return GeneSnowflakeKeyGenerateAlgorithm.keys(count, settings().strings(), ids::nextId, ids::nextIds);
    }
    // tables sharing a biz-tag share its counter: each table takes its genes from a spread of its own
    GeneSpread spread = spreads.spreadFor(context, ids.geneBits());
    return GeneSnowflakeKeyGenerateAlgorithm.keys(count, settings().strings(), () -> spread.nextId(ids),
        n -> spread.nextIds(ids, n));
  }

  private String tag(@Nullable AlgorithmSQLContext context) {
    String bizTag = settings().bizTag();
    if (bizTag != null) {
      return bizTag;
    }
    String table = context == null ? null : context.getTableName();
    if (table == null || table.isBlank()) {
      throw new IllegalStateException(TYPE + " has no " + BIZ_TAG + " and ShardingSphere named no logical table to"
          + " take it from; set the property '" + BIZ_TAG + "'");
    }
    String tag = table.trim().toLowerCase(Locale.ROOT);
    if (tag.length() > MAX_TAG_LENGTH) {
      throw new IllegalStateException(TYPE + ": the logical table name '" + table + "' is longer than "
          + MAX_TAG_LENGTH + " characters and cannot be a tag; set the property '" + BIZ_TAG + "'");
    }
    return tag;
  }

  /** The JVM-wide generator of {@code tag} for this store (created, and the store opened, on first call). */
  GeneSegmentGenerator generatorFor(String tag) {
    GeneSegmentGenerator g = generators.get(tag);
    if (g != null) {
      return g;
    }
    return generators.computeIfAbsent(tag, this::sharedGenerator);
  }

  private GeneSegmentGenerator sharedGenerator(String tag) {
    Settings s = settings();
    String key = registryKey(s, tag);
    String existing = SETTINGS_BY_KEY.putIfAbsent(key, s.generatorSettings());
    if (existing != null) {
      checkConflict(s, tag);
    }
    GeneSegmentGenerator generator = (GeneSegmentGenerator) GeneIdRegistry.shared(key, () -> {
      GeneSegmentGenerator created = GeneSegmentGenerator.builder(SharedSegmentStores.shared(s.store()), tag)
          .settings(s.generator()).build();
      LOG.info("{} issues ids of tag '{}' from {}", TYPE, tag, created);
      return created;
    });
    return generator;
  }

  private Settings settings() {
    return AlgorithmProps.initialised(TYPE, settings);
  }

  /** G: the gene bits of these ids (for {@link GeneShardingCheck}). */
  int geneBits() {
    return settings().geneBits();
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
    return TYPE + "[" + SEGMENT_STORE + "=" + s.store().type() + ", " + BIZ_TAG + "="
        + (s.bizTag() == null ? "<logical table>" : s.bizTag()) + ", " + s.generatorSettings() + "]";
  }
}
