package io.geneid.shardingsphere;

import io.geneid.core.settings.SettingsReader;
import io.geneid.core.GeneRouting;
import io.geneid.core.Genes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingAlgorithm;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingAlgorithm;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.StandardShardingAlgorithm;
import org.jspecify.annotations.Nullable;

/**
 * ShardingSphere sharding algorithm type {@code GENE_MOD}: routes a value by its gene, so a child id issued for a
 * parent lands where the parent does.
 *
 * <pre>
 *   index  = (gene(value) / gene-divisor) % sharding-count
 *   target = the available target whose name ends with "_" + index   (ds_1, t_order_3, ...)
 * </pre>
 *
 * <p>{@code gene(value)} is {@link Genes#ofKey(Object, int)} with {@code gene-bits} gene bits: whole numbers
 * (a gene id, a numeric parent key) by their low bits, strings and UUIDs by CRC-32C. Bind numeric keys as numbers:
 * the string {@code "42"} is hashed, it does not route like the number 42.
 *
 * <p>One class serves every strategy form:
 * <ul>
 *   <li><b>standard</b> ({@code standard: sharding-column: id}): one column; {@code =} and {@code IN} route by
 *       gene, ranges route to every target;
 *   <li><b>complex</b> ({@code complex: sharding-columns: id,order_id}): every column with a value must route to
 *       the same target (a child id and its parent id agree by construction); values that disagree are an error
 *       naming them. Columns compare case-insensitively; columns with only a range do not narrow the route;
 *   <li><b>hint</b>: the hint values (parent keys or ids) route by gene.
 * </ul>
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_MOD properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>sharding-count</td><td>number of targets at this level, in [1, 2^gene-bits]</td><td>required</td></tr>
 *   <tr><td>gene-bits</td><td>G of the id layout, in [0, 16]: must equal the key generator's</td><td>6</td></tr>
 *   <tr><td>gene-divisor</td><td>divides the gene before the modulo, in [1, 2^gene-bits], with
 *       {@code sharding-count * gene-divisor <= 2^gene-bits}</td><td>1</td></tr>
 * </table>
 *
 * <h2>Two levels</h2>
 * The same {@code sharding-count} at the database and the table level uses only the diagonal: with 2 databases of
 * 2 tables, {@code gene % 2} picks {@code ds_0.t_0} or {@code ds_1.t_1}, never {@code ds_0.t_1}. Give the table
 * level {@code gene-divisor} = the database count ({@code (gene / 2) % 2}) when table suffixes repeat in every
 * database, or number the tables apart ({@code ds_0.t_${[0,2]}, ds_1.t_${[1,3]}} with a table
 * {@code sharding-count} of 4). {@link GeneShardingCheck} reports nodes no gene reaches.
 */
public final class GeneModShardingAlgorithm implements StandardShardingAlgorithm<Comparable<?>>,
    ComplexKeysShardingAlgorithm<Comparable<?>>, HintShardingAlgorithm<Comparable<?>> {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_MOD";

  static final String SHARDING_COUNT = GeneRouting.SHARDING_COUNT;
  static final String GENE_BITS = SettingsReader.GENE_BITS;
  static final String GENE_DIVISOR = GeneRouting.GENE_DIVISOR;
  private static final List<String> PROPERTIES = List.of(SHARDING_COUNT, GENE_BITS, GENE_DIVISOR);

  private @Nullable GeneRouting routing;
  /** The last set of targets found sound, so each set is checked once, on its first routing call. */
  /**
   * Target collections already checked, each with its target per index. ShardingSphere hands the same collection
   * objects on every call (its rule's data sources and actual tables), so a routing call finds its targets by
   * identity instead of checking and scanning the names again; a new collection is checked once.
   */
  private volatile List<Targets> known = List.of();
  private static final int MAX_KNOWN = 64;

  private record Targets(Collection<String> names, int size, @Nullable String[] byIndex) {}

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneModShardingAlgorithm() {}

  /**
   * Checks and keeps the properties.
   *
   * @throws IllegalArgumentException naming the property and the allowed range
   */
  @Override
  public void init(Properties props) {
    SettingsReader p = AlgorithmProps.of(TYPE, props, PROPERTIES);
    int bits = p.geneBits();
    long geneCount = 1L << bits;
    int count = (int) p.requiredLong(SHARDING_COUNT, 1, geneCount);
    int divisor = (int) p.longValue(GENE_DIVISOR, 1, geneCount, 1);
    try {
      this.routing = new GeneRouting(count, divisor, bits);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + " properties " + e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- standard

  /** The target of one value of the sharding column ({@code =}, and each value of {@code IN}). */
  @Override
  public String doSharding(Collection<String> availableTargetNames,
      PreciseShardingValue<Comparable<?>> shardingValue) {
    long gene = gene(shardingValue.getLogicTableName(), shardingValue.getColumnName(), shardingValue.getValue());
    return target(availableTargetNames, gene, () -> shardingValue.getLogicTableName() + "."
        + shardingValue.getColumnName() + " = " + shardingValue.getValue());
  }

  /** Every target: a range of ids spans all genes. */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      RangeShardingValue<Comparable<?>> shardingValue) {
    return new ArrayList<>(availableTargetNames);
  }

  // ---------------------------------------------------------------- complex

  /**
   * The targets of the values of several columns (e.g. a child's id and its parent id): each column's values give
   * a set of targets; the columns must agree (the sets intersect), else the values contradict each other.
   */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      ComplexKeysShardingValue<Comparable<?>> shardingValue) {
    String table = shardingValue.getLogicTableName();
    String single = singleTarget(availableTargetNames, table, shardingValue.getColumnNameAndShardingValuesMap());
    if (single != null) {
      return List.of(single);
    }
    Map<String, Set<Comparable<?>>> valuesByColumn = new LinkedHashMap<>();
    shardingValue.getColumnNameAndShardingValuesMap().forEach((column, values) ->
        valuesByColumn.computeIfAbsent(column.toLowerCase(Locale.ROOT), c -> new LinkedHashSet<>()).addAll(values));
    if (valuesByColumn.isEmpty()) {
      return new ArrayList<>(availableTargetNames); // only ranges
    }
    GeneRouting r = routing();
    Set<Integer> indexes = null;
    Map<String, Set<Integer>> indexesByColumn = new LinkedHashMap<>();
    Map<String, Long> singleGenes = new LinkedHashMap<>();
    for (Map.Entry<String, Set<Comparable<?>>> e : valuesByColumn.entrySet()) {
      Set<Integer> columnIndexes = new TreeSet<>();
      for (Comparable<?> value : e.getValue()) {
        long gene = gene(table, e.getKey(), value);
        columnIndexes.add(r.index(gene));
        if (e.getValue().size() == 1) {
          singleGenes.put(e.getKey(), gene);
        }
      }
      indexesByColumn.put(e.getKey(), columnIndexes);
      if (indexes == null) {
        indexes = new TreeSet<>(columnIndexes);
      } else {
        indexes.retainAll(columnIndexes);
      }
    }
    if (indexes.isEmpty()) {
      throw new IllegalArgumentException(conflict(table, valuesByColumn, indexesByColumn));
    }
    if (singleGenes.size() == valuesByColumn.size() && singleGenes.values().stream().distinct().count() > 1) {
      throw new IllegalArgumentException(differentGenes(table, valuesByColumn, singleGenes));
    }
    List<String> result = new ArrayList<>(indexes.size());
    for (int index : indexes) {
      result.add(targetOfIndex(availableTargetNames, index, () -> table + " " + valuesByColumn));
    }
    return result;
  }

  /**
   * The one target of a row or a lookup (every column has one value, all of one gene), without building the sets of
   * the general case; {@code null} for anything else, which the general case routes or reports.
   */
  private @Nullable String singleTarget(Collection<String> targets, String table,
      Map<String, Collection<Comparable<?>>> values) {
    if (values.isEmpty()) {
      return null;
    }
    long gene = -1;
    for (Map.Entry<String, Collection<Comparable<?>>> e : values.entrySet()) {
      if (e.getValue().size() != 1) {
        return null;
      }
      long g = gene(table, e.getKey(), e.getValue().iterator().next());
      if (gene >= 0 && g != gene) {
        return null;
      }
      gene = g;
    }
    long routed = gene;
    return targetOfIndex(targets, routing().index(gene), () -> table + " " + values + " (gene " + routed + ")");
  }

  /**
   * One value per column whose genes differ, though they route to one target today: the row would split from its
   * parent the day the shard count changes.
   */
  private String differentGenes(String table, Map<String, Set<Comparable<?>>> values, Map<String, Long> genes) {
    StringJoiner parts = new StringJoiner(" but ");
    genes.forEach((column, gene) -> parts.add(column + " = " + values.get(column).iterator().next() + " has gene "
        + gene));
    return TYPE + ": the sharding columns of " + table + " carry different genes: " + parts + " (" + routing()
        + "); they share a target only by chance of the modulo and would split when the shard count changes. A"
        + " child id must carry its parent's gene: insert the child inside GeneContext.inherit(parentId)";
  }

  private String conflict(String table, Map<String, Set<Comparable<?>>> values, Map<String, Set<Integer>> indexes) {
    StringJoiner parts = new StringJoiner(" but ");
    values.forEach((column, v) -> {
      Set<Integer> i = indexes.get(column);
      parts.add(v.size() == 1
          ? column + " = " + v.iterator().next() + " routes to index " + i.iterator().next()
          : column + " in " + v + " routes to indexes " + i);
    });
    return TYPE + ": the sharding columns of " + table + " route to different targets: " + parts
        + " (" + routing() + "); a child id must carry its parent's gene: insert the child inside"
        + " GeneContext.inherit(parentId)";
  }

  // ---------------------------------------------------------------- hint

  /** The targets of the hint values, each routed by its gene. */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      HintShardingValue<Comparable<?>> shardingValue) {
    String table = shardingValue.getLogicTableName();
    Set<String> result = new LinkedHashSet<>();
    for (Comparable<?> value : shardingValue.getValues()) {
      result.add(target(availableTargetNames, gene(table, "hint", value), () -> table + " hint " + value));
    }
    return result;
  }

  // ---------------------------------------------------------------- math

  /** The gene of a value of {@code table.column}; the message of a bad value names both. */
  private long gene(String table, String column, @Nullable Object value) {
    if (value == null) {
      throw new IllegalArgumentException(TYPE + ": " + where(table, column) + " is null; a sharding value must be a"
          + " whole number, a String or a UUID");
    }
    try {
      return Genes.ofKey(value, routing().geneBits());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + ": cannot route " + where(table, column) + " = " + value + ": "
          + e.getMessage(), e);
    }
  }

  private static String where(String table, String column) {
    return column.equals("hint") ? table + " hint" : table + "." + column;
  }

  /** {@code (gene / gene-divisor) % sharding-count}. */
  int index(long gene) {
    return routing().index(gene);
  }

  /**
   * The target a gene routes to among {@code targets}, without the check of the whole set (for
   * {@link GeneShardingCheck}, which reports the set's problems itself).
   */
  String targetOfGene(Collection<String> targets, long gene) {
    int index = index(gene);
    try {
      return routing().target(targets, index);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(TYPE + ": gene " + gene + " routes to index " + index + " but "
          + e.getMessage(), e);
    }
  }

  private String target(Collection<String> targets, long gene, Supplier<String> what) {
    return targetOfIndex(targets, index(gene), what);
  }

  private String targetOfIndex(Collection<String> targets, int index, Supplier<String> what) {
    @Nullable String[] byIndex = targets(targets).byIndex();
    String found = index < byIndex.length ? byIndex[index] : null;
    if (found != null) {
      return found;
    }
    try { // names the index and the targets
      return routing().target(targets, index);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(TYPE + ": " + what.get() + " routes to index " + index + " but "
          + e.getMessage(), e);
    }
  }

  /**
   * The checked targets of a collection: on its first routing call every problem of the set at once (names without
   * an {@code _<index>} suffix, two targets with one suffix, targets no gene reaches), rather than one gene at a time
   * as rows happen to arrive. Found again by identity and size: ShardingSphere's collections do not change once its
   * rule is built.
   */
  private Targets targets(Collection<String> names) {
    List<Targets> seen = known;
    for (Targets t : seen) {
      if (t.names() == names && t.size() == names.size()) {
        return t;
      }
    }
    GeneRouting r = routing();
    List<String> problems = r.problems(names);
    if (!problems.isEmpty()) {
      throw new IllegalStateException(TYPE + " (" + r + ") cannot route to the targets " + names + ": "
          + String.join("; ", problems));
    }
    @Nullable String[] byIndex = new String[r.shardingCount()];
    for (String name : names) {
      byIndex[GeneRouting.suffix(name)] = name; // problems() found every suffix in [0, sharding-count) and distinct
    }
    Targets t = new Targets(names, names.size(), byIndex);
    List<Targets> next = new ArrayList<>(seen.size() < MAX_KNOWN ? seen : List.of());
    next.add(t);
    known = List.copyOf(next);
    return t;
  }

  private GeneRouting routing() {
    GeneRouting r = routing;
    if (r == null) {
      throw new IllegalStateException(TYPE + " was used before init(Properties)");
    }
    return r;
  }

  /** The routing rule ({@code sharding-count}, {@code gene-divisor}, {@code gene-bits}) once initialised. */
  GeneRouting rule() {
    return routing();
  }

  /** G: the gene bits this algorithm reads; -1 before init. */
  int geneBits() {
    GeneRouting r = routing;
    return r == null ? -1 : r.geneBits();
  }

  /** Lets ShardingSphere's binding-table check compare two GENE_MOD configurations. */
  @Override
  public Optional<String> getAlgorithmStructure(String dataNodePrefix, String shardingColumn) {
    return Optional.of(toString());
  }

  @Override
  public String getType() {
    return TYPE;
  }

  @Override
  public String toString() {
    GeneRouting r = routing;
    return TYPE + "[" + (r == null ? "not initialised" : r.toString()) + "]";
  }
}
