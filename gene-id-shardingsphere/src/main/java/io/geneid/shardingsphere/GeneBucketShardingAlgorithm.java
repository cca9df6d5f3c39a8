package io.geneid.shardingsphere;

import io.geneid.core.GeneIdLayout;

import io.geneid.core.GeneRouting;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketMapStoreProvider;
import io.geneid.core.bucket.BucketMapStores;
import io.geneid.core.bucket.BucketState;
import io.geneid.core.internal.StoreUrls;
import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * ShardingSphere sharding algorithm type {@code GENE_BUCKET}: routes a value by its gene through a
 * {@link BucketMap}, so shards can be added later by moving whole buckets, with no id rewritten.
 *
 * <pre>
 *   index  = map.target(gene(value))            one entry per gene: 2^gene-bits entries
 *   target = the available target whose name ends with "_" + index   (ds_1, t_order_3, ...)
 * </pre>
 *
 * <p>It has the standard, complex and hint forms of {@link GeneModShardingAlgorithm}, with the same checks and
 * messages; only the gene-to-index step differs. Start from {@code GENE_MOD} by changing the type and keeping the
 * properties ({@code sharding-count}, {@code gene-divisor}: the map {@link BucketMap#ofMod} builds routes every id
 * exactly as {@code GENE_MOD} did, so no row moves); after a move, give the map itself:
 *
 * <pre>
 *   type: GENE_BUCKET
 *   props:
 *     gene-bits: 6
 *     bucket-map: "0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4"
 * </pre>
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_BUCKET properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>bucket-map</td><td>the map in {@link BucketMap}'s text form: {@code <target>=<buckets>; ...}, every
 *       bucket of [0, 2^gene-bits - 1] exactly once</td><td>one of bucket-map, sharding-count</td></tr>
 *   <tr><td>sharding-count</td><td>instead of bucket-map: the map of {@code GENE_MOD} with this count</td>
 *       <td></td></tr>
 *   <tr><td>gene-divisor</td><td>with sharding-count, as for {@code GENE_MOD}</td><td>1</td></tr>
 *   <tr><td>gene-bits</td><td>G of the id layout, in [0, 16]: must equal the key generator's</td><td>6</td></tr>
 *   <tr><td>map-store</td><td>{@code jdbc} (add {@code io.geneid:gene-id-jdbc}) or {@code redis} (add
 *       {@code io.geneid:gene-id-redis}): follow the map kept there (see below)</td><td>none: the YAML map only
 *       </td></tr>
 *   <tr><td>map-store-url</td><td>a JDBC URL ({@code jdbc:mariadb://...}, {@code jdbc:postgresql://...},
 *       {@code jdbc:h2:...}) or a Redis URI ({@code redis://}, {@code redis-sentinel://...#master},
 *       {@code redis-cluster://})</td><td>required with map-store</td></tr>
 *   <tr><td>map-name</td><td>the map's name in the store, 1 to 128 characters</td><td>required with map-store
 *       </td></tr>
 *   <tr><td>refresh-interval</td><td>how often the map is read again, in [10ms, 1h]</td><td>1s</td></tr>
 *   <tr><td>stale-after</td><td>after how long without a refresh writes are refused, in [10ms, 1h], longer than
 *       refresh-interval</td><td>5s</td></tr>
 *   <tr><td>router-id</td><td>this process in the store's heartbeats, 1 to 128 characters; the router adds
 *       {@code #<random>} of its own, so two routers given one id (two data sources of one JVM with other refresh
 *       settings, containers running as pid 1 on one host network) never share a heartbeat</td><td>host:pid</td></tr>
 *   <tr><td>map-store-username, map-store-password</td><td>jdbc: the database user (DriverManager, one connection
 *       per store call)</td><td>none</td></tr>
 *   <tr><td>map-store-table</td><td>jdbc: the map table; heartbeats go to this name + {@code _router}</td>
 *       <td>gene_id_bucket_map</td></tr>
 *   <tr><td>map-store-create-table</td><td>jdbc: create both tables on first use</td><td>false</td></tr>
 *   <tr><td>map-store-key-prefix</td><td>redis: the first part of the keys
 *       ({@code <prefix>:bucket-map:{<map-name>}})</td><td>gene-id</td></tr>
 * </table>
 *
 * <h2>Following a map store</h2>
 * With {@code map-store}, {@link #init(Properties)} reaches the store, loads the map named {@code map-name} and
 * routes with it, not with the YAML map; when the store has no map of that name yet, it stores the YAML map
 * ({@code bucket-map} or {@code sharding-count}, still required: the map the fleet starts from) as version 1, so the
 * first process to start seeds it and every other one loads it. A map stored with other gene bits fails start-up.
 * A {@link BucketMapRouter} then refreshes the map every {@code refresh-interval} on a daemon thread and records a
 * heartbeat, so a mover knows which version each process routes with; when it has not reached the store for
 * {@code stale-after}, {@link GeneBucketFreezeAuditAlgorithm} refuses every write with the retryable
 * {@link io.geneid.core.bucket.BucketMapStaleException} (reads go on with the last map). Every instance of the JVM
 * that names the same store, map and router settings shares one store connection and one router.
 * ShardingSphere 5.5.2 never closes its sharding algorithms (its {@code ShardingRule} is not {@code AutoCloseable}),
 * so the router lives as long as the JVM unless {@link #close()} is called on every instance.
 *
 * <p>A target no bucket maps to is allowed (a new shard before buckets move to it); a gene whose index has no
 * target among the available ones is an error naming both.
 */
public final class GeneBucketShardingAlgorithm extends GeneShardingAlgorithm implements AutoCloseable {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_BUCKET";

  static final String BUCKET_MAP = BucketMap.BUCKET_MAP;
  static final String MAP_STORE = BucketMapStores.MAP_STORE;
  static final String MAP_STORE_URL = BucketMapStores.MAP_STORE_URL;
  static final String MAP_NAME = BucketMapStores.MAP_NAME;
  static final String REFRESH_INTERVAL = "refresh-interval";
  static final String STALE_AFTER = "stale-after";
  static final String ROUTER_ID = "router-id";
  static final String MAP_STORE_USERNAME = BucketMapStores.MAP_STORE_USERNAME;
  static final String MAP_STORE_PASSWORD = BucketMapStores.MAP_STORE_PASSWORD;
  static final String MAP_STORE_TABLE = BucketMapStores.MAP_STORE_TABLE;
  static final String MAP_STORE_CREATE_TABLE = BucketMapStores.MAP_STORE_CREATE_TABLE;
  static final String MAP_STORE_KEY_PREFIX = BucketMapStores.MAP_STORE_KEY_PREFIX;
  private static final List<String> PROPERTIES = java.util.stream.Stream.concat(java.util.stream.Stream.of(BUCKET_MAP,
      GeneRouting.SHARDING_COUNT, SettingsReader.GENE_BITS, GeneRouting.GENE_DIVISOR), STRING_ID_PROPERTIES.stream())
      .toList();
  private static final List<String> STORE_PROPERTIES = List.of(MAP_STORE, MAP_STORE_URL, MAP_NAME, REFRESH_INTERVAL,
      STALE_AFTER, ROUTER_ID);
  private static final List<String> JDBC_PROPERTIES = List.of(MAP_STORE_USERNAME, MAP_STORE_PASSWORD, MAP_STORE_TABLE,
      MAP_STORE_CREATE_TABLE);
  private static final List<String> REDIS_PROPERTIES = List.of(MAP_STORE_KEY_PREFIX);
  private static final String DEFAULT_JDBC_TABLE = "gene_id_bucket_map";
  private static final String DEFAULT_REDIS_KEY_PREFIX = "gene-id";
  private static final int MAX_NAME_LENGTH = 128;
  private static final int RULE_TEXT_LIMIT = 160;

  private volatile @Nullable BucketMap map;
  private volatile @Nullable FrozenBuckets frozen;
  private volatile @Nullable BucketMapRouter router;
  private volatile BucketMapFollowers.@Nullable Follower follower;

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneBucketShardingAlgorithm() {}

  /**
   * Checks and keeps the properties; with {@code map-store}, loads (or seeds) the stored map and starts following it
   * (see the class comment).
   *
   * @throws IllegalArgumentException naming the property, the allowed range or form, and the value, or the artifact
   *     to add when the store's module is missing
   * @throws io.geneid.core.GeneIdException if the map store cannot be reached or holds a map of other gene bits
   */
  @Override
  public void init(Properties props) {
    String storeType = storeType(props);
    List<String> allowed = new ArrayList<>(PROPERTIES);
    if (storeType != null) {
      allowed.addAll(STORE_PROPERTIES);
      allowed.addAll(storeType.equals("jdbc") ? JDBC_PROPERTIES : REDIS_PROPERTIES);
    }
    SettingsReader p = AlgorithmProps.of(TYPE, props, allowed);
    int bits = GeneIdLayout.geneBits(p);
    long geneCount = 1L << bits;
    boolean hasMap = p.has(BUCKET_MAP);
    boolean hasCount = p.has(GeneRouting.SHARDING_COUNT);
    if (hasMap == hasCount) {
      throw new IllegalArgumentException(TYPE + " needs exactly one of the properties '" + BUCKET_MAP + "' (the map,"
          + " e.g. 0=0-31; 1=32-63) and '" + GeneRouting.SHARDING_COUNT + "' (the map of GENE_MOD) but "
          + (hasMap ? "had both" : "had neither"));
    }
    if (hasMap && p.has(GeneRouting.GENE_DIVISOR)) {
      throw new IllegalArgumentException(TYPE + " property '" + GeneRouting.GENE_DIVISOR + "' goes with '"
          + GeneRouting.SHARDING_COUNT + "', not with '" + BUCKET_MAP + "'");
    }
    int count = hasCount ? (int) p.requiredLong(GeneRouting.SHARDING_COUNT, 1, geneCount) : 0;
    int divisor = (int) p.longValue(GeneRouting.GENE_DIVISOR, 1, geneCount, 1);
    try {
      this.map = hasMap ? BucketMap.parse(bits, p.string(BUCKET_MAP, "")) : BucketMap.ofMod(bits, count, divisor);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + " properties " + e.getMessage(), e);
    }
    readStringIds(p);
    if (storeType != null) {
      BucketMapStoreProvider provider = BucketMapFollowers.provider(storeType);
      this.follower = BucketMapFollowers.follow(storeConfig(storeType, provider, p), map(), this);
    }
  }

  /**
   * The {@code map-store} property, checked: null without one.
   *
   * @throws IllegalArgumentException for another value, or a store property without {@code map-store}
   */
  private static @Nullable String storeType(@Nullable Properties props) {
    Object raw = props == null ? null : props.get(MAP_STORE);
    if (raw == null) {
      if (props != null) {
        for (String key : STORE_PROPERTIES) {
          if (props.containsKey(key)) {
            throw new IllegalArgumentException(TYPE + " property '" + key + "' goes with '" + MAP_STORE
                + "' (jdbc or redis), which is not set");
          }
        }
      }
      return null;
    }
    String type = String.valueOf(raw).trim();
    if (!type.equals("jdbc") && !type.equals("redis")) {
      throw new IllegalArgumentException(TYPE + " property '" + MAP_STORE + "' must be jdbc or redis but was '"
          + raw + "'");
    }
    return type;
  }

  private static BucketMapFollowers.Config storeConfig(String type, BucketMapStoreProvider provider,
      SettingsReader p) {
    java.util.Map<String, String> props = new TreeMap<>();
    String url = p.requiredString(MAP_STORE_URL, type.equals("jdbc") ? "a JDBC URL such as"
        + " jdbc:mariadb://127.0.0.1:3306/app" : "a Redis URI such as redis://127.0.0.1:6379/0");
    props.put(MAP_STORE_URL, url);
    if (type.equals("jdbc")) {
      if (!url.startsWith("jdbc:")) {
        throw new IllegalArgumentException(TYPE + " property '" + MAP_STORE_URL + "' must be a JDBC URL starting"
            + " with jdbc: (map-store is jdbc) but was '" + StoreUrls.describe(url) + "'");
      }
      if (p.has(MAP_STORE_USERNAME)) {
        props.put(MAP_STORE_USERNAME, p.string(MAP_STORE_USERNAME, ""));
      }
      if (p.has(MAP_STORE_PASSWORD)) {
        props.put(MAP_STORE_PASSWORD, String.valueOf(p.raw(MAP_STORE_PASSWORD))); // not trimmed: as given
      }
      provider.check(BucketMapFollowers.storeSettings(type, rawValues(p))); // the table's one rule
      props.put(MAP_STORE_TABLE, p.string(MAP_STORE_TABLE, DEFAULT_JDBC_TABLE));
      props.put(MAP_STORE_CREATE_TABLE, Boolean.toString(p.bool(MAP_STORE_CREATE_TABLE, false)));
    } else {
      String prefix = p.string(MAP_STORE_KEY_PREFIX, DEFAULT_REDIS_KEY_PREFIX);
      try {
        provider.check(BucketMapFollowers.storeSettings(type, rawValues(p)));
      } catch (IllegalArgumentException e) {
        if (e instanceof InvalidSettingException bad && bad.key().equals(StoreKeys.REDIS_KEY_PREFIX)) {
          throw e; // named GENE_BUCKET property 'map-store-key-prefix'
        }
        throw new IllegalArgumentException(TYPE + " property '" + MAP_STORE_URL + "' must be a Redis URI such as"
            + " redis://127.0.0.1:6379/0 (map-store is redis) but was '" + StoreUrls.describe(url) + "'", e);
      }
      props.put(MAP_STORE_KEY_PREFIX, prefix);
    }
    String name = p.requiredString(MAP_NAME, "the map's name in the store, e.g. orders");
    String routerId = p.string(ROUTER_ID, defaultRouterId());
    for (String[] named : new String[][] {{MAP_NAME, name}, {ROUTER_ID, routerId}}) {
      if (named[1].isEmpty() || named[1].length() > MAX_NAME_LENGTH) {
        throw new IllegalArgumentException(TYPE + " property '" + named[0] + "' must have 1 to " + MAX_NAME_LENGTH
            + " characters but was '" + named[1] + "'");
      }
    }
    Duration refresh = p.duration(REFRESH_INTERVAL, Duration.ofMillis(10), Duration.ofHours(1), Duration.ofSeconds(1));
    Duration stale = p.duration(STALE_AFTER, Duration.ofMillis(10), Duration.ofHours(1), Duration.ofSeconds(5));
    if (stale.compareTo(refresh) <= 0) {
      throw new IllegalArgumentException(TYPE + " property '" + STALE_AFTER + "' (" + stale.toMillis() + "ms) must be"
          + " longer than '" + REFRESH_INTERVAL + "' (" + refresh.toMillis() + "ms), or every router fences between"
          + " refreshes");
    }
    // the key says which store, map and router, without the password
    java.util.Map<String, String> keyProps = new TreeMap<>(props);
    keyProps.computeIfPresent(MAP_STORE_PASSWORD, (k, v) -> "#" + Integer.toHexString(v.hashCode()));
    keyProps.remove(MAP_STORE_CREATE_TABLE);
    String key = type + keyProps + "|map=" + name + "|router=" + routerId + "|refresh=" + refresh.toMillis()
        + "|stale=" + stale.toMillis();
    return new BucketMapFollowers.Config(type, key, java.util.Map.copyOf(props), name, refresh, stale, routerId);
  }

  /** The properties as given (a password is not trimmed). */
  private static java.util.Map<String, Object> rawValues(SettingsReader p) {
    java.util.Map<String, Object> values = new TreeMap<>();
    for (String key : p.keys()) {
      values.put(key, java.util.Objects.requireNonNull(p.raw(key)));
    }
    return values;
  }

  /**
   * {@code <host>:<pid>}, which names the process in the heartbeats; it is not unique (two data sources of one JVM
   * with other refresh settings, containers running as pid 1), so the router adds a random part
   * ({@link BucketMapRouter#routerId()}).
   */
  static String defaultRouterId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException | RuntimeException e) {
      host = "unknown-host";
    }
    String id = host + ":" + ProcessHandle.current().pid();
    return id.length() <= MAX_NAME_LENGTH ? id : id.substring(id.length() - MAX_NAME_LENGTH);
  }

  /**
   * Stops following the map store (with {@code map-store}): gives up this instance's hold on the JVM's shared router;
   * the last instance to let go stops it and closes the store. ShardingSphere 5.5.2 never calls it. Idempotent.
   */
  @Override
  public void close() {
    BucketMapFollowers.Follower f = follower;
    follower = null;
    if (f != null) {
      f.close();
      router = null;
    }
  }

  /** The router this instance follows through {@code map-store}, if any (for tests). */
  @Nullable BucketMapRouter mapStoreRouter() {
    BucketMapFollowers.Follower f = follower;
    return f == null ? null : f.router();
  }

  /** The map this algorithm routes with now. */
  public BucketMap map() {
    BucketMap m = map;
    if (m == null) {
      throw new IllegalStateException(TYPE + " was used before init(Properties)");
    }
    return m;
  }

  /**
   * A map, its buckets that refuse writes ({@link BucketState#FROZEN} and {@link BucketState#SWITCHING}) and those
   * that refuse scans ({@link BucketState#SWITCHING}).
   */
  record FrozenBuckets(BucketMap map, List<Integer> buckets, List<Integer> switching) {}

  /**
   * The map it routes with now and its frozen buckets, found once per map: {@link GeneBucketFreezeAuditAlgorithm}
   * asks on every write, and a map has up to 2^16 buckets.
   */
  FrozenBuckets frozenBuckets() {
    BucketMap m = map();
    FrozenBuckets f = frozen;
    if (f == null || f.map() != m) {
      List<Integer> refusing = new ArrayList<>();
      for (int b = 0; b < m.bucketCount(); b++) {
        if (m.state(b).refusesWrites()) {
          refusing.add(b);
        }
      }
      f = new FrozenBuckets(m, List.copyOf(refusing), m.bucketsIn(BucketState.SWITCHING));
      frozen = f;
    }
    return f;
  }

  /**
   * Routes with {@code newMap} from now on (a map store's refresh).
   *
   * @throws IllegalArgumentException if its gene bits differ from the map's now: ids already written would route
   *     elsewhere
   */
  public void useMap(BucketMap newMap) {
    BucketMap old = map();
    if (newMap.geneBits() != old.geneBits()) {
      throw new IllegalArgumentException(TYPE + " routes ids of " + GeneRouting.GENE_BITS + "=" + old.geneBits()
          + " and cannot switch to a map of " + GeneRouting.GENE_BITS + "=" + newMap.geneBits());
    }
    this.map = newMap;
  }

  /** {@link #useMap(BucketMap)} unless this instance already routes with a later version. */
  synchronized void useMapIfNewer(BucketMap newMap) {
    BucketMap old = map;
    if (old == null || newMap.version() >= old.version()) {
      useMap(newMap);
    }
  }

  /**
   * Routes with the maps {@code router} loads from a map store, and refuses writes (through
   * {@link GeneBucketFreezeAuditAlgorithm}) while it is stale. Build the router with
   * {@code .onNewMap(algorithm::useMap)} and start it.
   */
  public void follow(BucketMapRouter mapRouter) {
    this.router = mapRouter;
  }

  /**
   * Throws if writes must stop because the map store has not been reached within the router's bound.
   *
   * @throws io.geneid.core.bucket.BucketMapStaleException then
   */
  void checkWritable() {
    BucketMapRouter r = router;
    if (r != null) {
      r.checkWritable();
    }
  }

  @Override
  int index(long gene) {
    return map().target((int) gene);
  }

  /**
   * Marks a read of the family as in flight on this thread before it is routed (see
   * {@link BucketMapRouter#routing()}): until {@link GeneBucketExecutionHook} sees it run, the router's heartbeats
   * hold back the version it was routed with, so the mover does not set a bucket's rows aside under it. Writes are
   * not marked: the fence in the database refuses a late one.
   */
  void readRouting() {
    BucketMapRouter r = router;
    if (r != null) {
      r.routing();
    }
  }

  @Override
  int geneBits() {
    BucketMap m = map;
    return m == null ? -1 : m.geneBits();
  }

  @Override
  String rule() {
    BucketMap m = map();
    String text = m.format();
    if (text.length() > RULE_TEXT_LIMIT) {
      text = text.substring(0, RULE_TEXT_LIMIT) + "...";
    }
    return GeneRouting.GENE_BITS + "=" + m.geneBits() + ", " + BUCKET_MAP + " version " + m.version() + ": " + text;
  }

  /** Names without an {@code _<index>} suffix and two names with one suffix; an index with no bucket is fine. */
  @Override
  List<String> targetProblems(Collection<String> targets) {
    List<String> problems = new ArrayList<>();
    TreeMap<Integer, String> bySuffix = new TreeMap<>();
    for (String target : targets) {
      int n = GeneRouting.suffix(target);
      if (n < 0) {
        problems.add("target " + target + " does not end with _<index>, so no bucket routes to it");
      } else {
        String other = bySuffix.put(n, target);
        if (other != null) {
          problems.add("targets " + other + " and " + target + " both end with _" + n);
        }
      }
    }
    return problems;
  }

  @Override
  String targetOfIndex(Collection<String> targets, int index) {
    String found = null;
    for (String target : targets) {
      if (GeneRouting.suffix(target) == index) {
        if (found != null) {
          throw new IllegalStateException("index " + index + " matches both " + found + " and " + target
              + ": target names must end with distinct _<index> suffixes");
        }
        found = target;
      }
    }
    if (found == null) {
      throw new IllegalStateException("no target ends with _" + index + " among " + targets + " (" + rule() + ")");
    }
    return found;
  }

  @Override
  String whyGenesSplit() {
    return "the bucket map and would split when a bucket moves";
  }

  @Override
  public String getType() {
    return TYPE;
  }
}
