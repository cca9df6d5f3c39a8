package io.geneid.shardingsphere;

import io.geneid.core.GeneRouting;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.settings.SettingsReader;
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
 * </table>
 *
 * <p>A target no bucket maps to is allowed (a new shard before buckets move to it); a gene whose index has no
 * target among the available ones is an error naming both.
 */
public final class GeneBucketShardingAlgorithm extends GeneShardingAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_BUCKET";

  static final String BUCKET_MAP = BucketMap.BUCKET_MAP;
  private static final List<String> PROPERTIES = java.util.stream.Stream.concat(java.util.stream.Stream.of(BUCKET_MAP,
      GeneRouting.SHARDING_COUNT, SettingsReader.GENE_BITS, GeneRouting.GENE_DIVISOR), STRING_ID_PROPERTIES.stream())
      .toList();
  private static final int RULE_TEXT_LIMIT = 160;

  private volatile @Nullable BucketMap map;
  private volatile @Nullable BucketMapRouter router;

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneBucketShardingAlgorithm() {}

  /**
   * Checks and keeps the properties.
   *
   * @throws IllegalArgumentException naming the property, the allowed range or form, and the value
   */
  @Override
  public void init(Properties props) {
    SettingsReader p = AlgorithmProps.of(TYPE, props, PROPERTIES);
    int bits = p.geneBits();
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
