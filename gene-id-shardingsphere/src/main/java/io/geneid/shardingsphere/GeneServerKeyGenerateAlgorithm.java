package io.geneid.shardingsphere;

import io.geneid.core.GeneIdLayout;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.GeneSpread;
import io.geneid.core.settings.SettingsReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.jspecify.annotations.Nullable;

/**
 * ShardingSphere key generator type {@code GENE_SERVER}: gene ids from {@code gene-id-server}, through the JVM-wide
 * {@code io.geneid.client.GeneIdClient} of the configured servers (add {@code io.geneid:gene-id-client}), so that
 * services in any language and this one take ids from one place. The ids route with {@code GENE_MOD} exactly like
 * {@code GENE_SNOWFLAKE} ({@code ids: snowflake}) or {@code GENE_SEGMENT} ({@code ids: segment}) ids.
 *
 * <p>Genes work as with {@code GENE_SNOWFLAKE}: inside a {@link GeneContext} scope every id carries the parent's gene
 * ({@code inherit}), or the next parent's for each row ({@code inheritEach}); without a scope the root ids of each
 * logical table take their genes from a {@link GeneSpread} of their own (segment ids whose key is the table: the low
 * bits of the key's values). Ids come from the client's buffers, refilled ahead in the background, so an INSERT
 * waits on the network only when a buffer ran dry.
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_SERVER properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>server-urls</td><td>the servers' base URLs, comma-separated, tried in order
 *       ({@code http://ids-1:8080,http://ids-2:8080})</td><td>required</td></tr>
 *   <tr><td>ids</td><td>{@code snowflake} ({@code /v1/ids}) or {@code segment} ({@code /v1/segments/{key}/ids})</td>
 *       <td>snowflake</td></tr>
 *   <tr><td>biz-tag</td><td>with {@code segment}: the server's segment key, 1 to 128 of {@code A-Z a-z 0-9 . _ - :}
 *       </td><td>the logical table name, lower-cased</td></tr>
 *   <tr><td>gene-bits</td><td>G, in [0, 16]: must equal the servers' and the {@code GENE_MOD} algorithms'; a server
 *       with another G is refused</td><td>6</td></tr>
 *   <tr><td>bearer-token</td><td>the token of the servers' {@code auth-tokens}</td><td>none</td></tr>
 *   <tr><td>connect-timeout</td><td>in [1ms, 1m]</td><td>1s</td></tr>
 *   <tr><td>request-timeout</td><td>one attempt at one server, in [1ms, 10m]</td><td>2s</td></tr>
 *   <tr><td>retry-rounds</td><td>more rounds over the servers after one without an answer, in [0, 10]</td>
 *       <td>1</td></tr>
 *   <tr><td>retry-pause</td><td>in [0, 1m]</td><td>100ms</td></tr>
 *   <tr><td>batch-size</td><td>ids fetched per refill of a buffer, in [1, 65536]</td><td>1000</td></tr>
 *   <tr><td>low-water-mark</td><td>refill when this many ids or fewer are left, in [0, 65536]</td>
 *       <td>batch-size / 4</td></tr>
 *   <tr><td>string-ids, string-id-prefix</td><td>as for {@code GENE_SNOWFLAKE}, without a date part</td>
 *       <td>false, none</td></tr>
 * </table>
 * Any other property name, or a value out of range, fails start-up with a message naming it; so does a missing
 * {@code gene-id-client}. {@link #init(Properties)} reaches no server: the first {@link #generateKeys} does. Every
 * instance with the same servers and client settings shares one client (ShardingSphere makes two instances).
 */
public final class GeneServerKeyGenerateAlgorithm implements KeyGenerateAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_SERVER";

  static final String SERVER_URLS = "server-urls";
  static final String IDS = "ids";
  static final String BIZ_TAG = "biz-tag";
  static final String BEARER_TOKEN = "bearer-token";
  static final String CONNECT_TIMEOUT = "connect-timeout";
  static final String REQUEST_TIMEOUT = "request-timeout";
  static final String RETRY_ROUNDS = "retry-rounds";
  static final String RETRY_PAUSE = "retry-pause";
  static final String BATCH_SIZE = "batch-size";
  static final String LOW_WATER_MARK = "low-water-mark";
  private static final List<String> PROPERTIES = List.of(SERVER_URLS, IDS, BIZ_TAG, SettingsReader.GENE_BITS,
      BEARER_TOKEN, CONNECT_TIMEOUT, REQUEST_TIMEOUT, RETRY_ROUNDS, RETRY_PAUSE, BATCH_SIZE, LOW_WATER_MARK,
      SettingsReader.STRING_IDS, SettingsReader.STRING_ID_PREFIX);
  private static final String CLIENT_CLASS = "io.geneid.client.GeneIdClient";

  /** What the properties say; checked in {@link #init(Properties)}. */
  record Settings(List<String> urls, boolean segment, @Nullable String bizTag, int geneBits,
      @Nullable String bearerToken, Duration connectTimeout, Duration requestTimeout, int retryRounds,
      Duration retryPause, int batchSize, int lowWaterMark, @Nullable GeneIdStringFormat strings) {

    /** The JVM-wide client's key: the servers and the client settings, the token as a hash. */
    String clientKey() {
      return "gene-server:" + urls + "|g=" + geneBits + "|token="
          + (bearerToken == null ? "none" : "#" + Integer.toHexString(bearerToken.hashCode())) + "|connect="
          + connectTimeout.toMillis() + "|request=" + requestTimeout.toMillis() + "|rounds=" + retryRounds + "|pause="
          + retryPause.toMillis() + "|batch=" + batchSize + "|low=" + lowWaterMark;
    }

    @Override
    public String toString() {
      return SERVER_URLS + "=" + String.join(",", urls) + ", " + IDS + "=" + (segment ? "segment" : "snowflake")
          + (segment ? ", " + BIZ_TAG + "=" + (bizTag == null ? "<logical table>" : bizTag) : "") + ", gene-bits="
          + geneBits + ", batch-size=" + batchSize + ", low-water-mark=" + lowWaterMark + ", bearer-token="
          + (bearerToken == null ? "none" : "(set)");
    }
  }

  private @Nullable Settings settings;
  private final TableSpreads spreads = new TableSpreads();
  private volatile @Nullable GeneIdGenerator client;
  private final ConcurrentMap<String, GeneIdGenerator> segmentsByTag = new ConcurrentHashMap<>();

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneServerKeyGenerateAlgorithm() {}

  /**
   * Checks the properties; reaches no server.
   *
   * @throws IllegalArgumentException naming the property and its allowed values, or the artifact to add when
   *     {@code gene-id-client} is missing
   */
  @Override
  public void init(Properties props) {
    SettingsReader p = AlgorithmProps.of(TYPE, props, PROPERTIES);
    try {
      Class.forName(CLIENT_CLASS, false, GeneServerKeyGenerateAlgorithm.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(TYPE + " needs " + CLIENT_CLASS + " on the class path: add the dependency"
          + " io.geneid:gene-id-client", e);
    }
    List<String> urls = new ArrayList<>();
    for (String url : p.requiredString(SERVER_URLS, "the servers' base URLs, such as http://127.0.0.1:8080")
        .split(",")) {
      if (!url.isBlank()) {
        urls.add(url.trim());
      }
    }
    String ids = p.string(IDS, "snowflake");
    if (!ids.equals("snowflake") && !ids.equals("segment")) {
      throw new IllegalArgumentException(TYPE + " property '" + IDS + "' must be snowflake or segment but was '"
          + ids + "'");
    }
    boolean segment = ids.equals("segment");
    String bizTag = null;
    if (p.has(BIZ_TAG)) {
      if (!segment) {
        throw new IllegalArgumentException(TYPE + " property '" + BIZ_TAG + "' names a segment key: set '" + IDS
            + "' to segment");
      }
      bizTag = p.string(BIZ_TAG, "");
    }
    String token = p.has(BEARER_TOKEN) ? String.valueOf(p.raw(BEARER_TOKEN)) : null;
    int batchSize = p.intValue(BATCH_SIZE, 1, GeneIdGenerator.MAX_BATCH, 1000);
    Settings parsed = new Settings(List.copyOf(urls), segment, bizTag, GeneIdLayout.geneBits(p), token,
        p.duration(CONNECT_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(1), Duration.ofSeconds(1)),
        p.duration(REQUEST_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(10), Duration.ofSeconds(2)),
        p.intValue(RETRY_ROUNDS, 0, 10, 1),
        p.duration(RETRY_PAUSE, Duration.ZERO, Duration.ofMinutes(1), Duration.ofMillis(100)),
        batchSize, p.intValue(LOW_WATER_MARK, 0, GeneIdGenerator.MAX_BATCH, batchSize / 4), GeneIdStringFormat.from(p, null));
    ServerClients.check(parsed, TYPE); // the client builder's own checks: addresses, token, segment key
    this.settings = parsed;
  }

  /**
   * {@code count} ids, in order, from the servers' buffers: each carries the gene of the open {@link GeneContext}
   * scope's parent (or the next parent's of {@code inheritEach} for each row), or without a scope a gene of the
   * logical table's spread (segment ids keyed by the table: the low bits of the value).
   *
   * @throws io.geneid.core.GeneIdException if a buffer is empty and no server answers
   *     ({@code GeneServerUnavailableException}) or a server refuses ({@code GeneServerRefusedException})
   */
  @Override
  public Collection<? extends Comparable<?>> generateKeys(AlgorithmSQLContext context, int count) {
    Settings s = settings();
    if (s.segment() && s.bizTag() == null) {
      GeneIdGenerator ids = segmentsFor(tag(context));
      return GeneSnowflakeKeyGenerateAlgorithm.keys(count, s.strings(), ids::nextId, ids::nextIds);
    }
    GeneIdGenerator ids = s.segment() ? segmentsFor(s.bizTag()) : client();
    GeneSpread spread = spreads.spreadFor(context, s.geneBits());
    return GeneSnowflakeKeyGenerateAlgorithm.keys(count, s.strings(), () -> spread.nextId(ids),
        n -> spread.nextIds(ids, n));
  }

  private GeneIdGenerator client() {
    GeneIdGenerator c = client;
    if (c == null) {
      synchronized (this) {
        c = client;
        if (c == null) {
          client = c = ServerClients.shared(settings());
        }
      }
    }
    return c;
  }

  private GeneIdGenerator segmentsFor(String tag) {
    GeneIdGenerator g = segmentsByTag.get(tag);
    return g != null ? g : segmentsByTag.computeIfAbsent(tag, t -> ServerClients.segments(client(), t));
  }

  private static String tag(@Nullable AlgorithmSQLContext context) {
    String table = context == null ? null : context.getTableName();
    if (table == null || table.isBlank()) {
      throw new IllegalStateException(TYPE + " has no " + BIZ_TAG + " and ShardingSphere named no logical table to"
          + " take it from; set the property '" + BIZ_TAG + "'");
    }
    return table.trim().toLowerCase(Locale.ROOT);
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
    return TYPE + (s == null ? "[not initialised]" : "[" + s + "]");
  }
}
