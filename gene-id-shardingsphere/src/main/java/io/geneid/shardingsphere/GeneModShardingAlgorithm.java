package io.geneid.shardingsphere;

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

  static final String SHARDING_COUNT = "sharding-count";
  static final String GENE_BITS = AlgorithmProps.GENE_BITS;
  static final String GENE_DIVISOR = "gene-divisor";
  private static final List<String> PROPERTIES = List.of(SHARDING_COUNT, GENE_BITS, GENE_DIVISOR);

  private int geneBits = -1;
  private int shardingCount;
  private int geneDivisor;

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneModShardingAlgorithm() {}

  /**
   * Checks and keeps the properties.
   *
   * @throws IllegalArgumentException naming the property and the allowed range
   */
  @Override
  public void init(Properties props) {
    AlgorithmProps p = AlgorithmProps.of(TYPE, props, PROPERTIES);
    int bits = p.geneBits();
    long geneCount = 1L << bits;
    int count = (int) p.requiredLong(SHARDING_COUNT, 1, geneCount);
    int divisor = (int) p.longValue(GENE_DIVISOR, 1, geneCount, 1);
    if ((long) count * divisor > geneCount) {
      throw new IllegalArgumentException(TYPE + " properties " + SHARDING_COUNT + " * " + GENE_DIVISOR
          + " must be at most 2^" + GENE_BITS + " = " + geneCount + " but was " + count + " * " + divisor + " = "
          + (long) count * divisor + ": indexes above " + ((geneCount - 1) / divisor) + " would never be used");
    }
    this.geneBits = bits;
    this.shardingCount = count;
    this.geneDivisor = divisor;
  }

  // ---------------------------------------------------------------- standard

  /** The target of one value of the sharding column ({@code =}, and each value of {@code IN}). */
  @Override
  public String doSharding(Collection<String> availableTargetNames,
      PreciseShardingValue<Comparable<?>> shardingValue) {
    String where = shardingValue.getLogicTableName() + "." + shardingValue.getColumnName();
    long gene = gene(where, shardingValue.getValue());
    return target(availableTargetNames, gene, () -> where + " = " + shardingValue.getValue());
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
    Map<String, Set<Comparable<?>>> valuesByColumn = new LinkedHashMap<>();
    shardingValue.getColumnNameAndShardingValuesMap().forEach((column, values) ->
        valuesByColumn.computeIfAbsent(column.toLowerCase(Locale.ROOT), c -> new LinkedHashSet<>()).addAll(values));
    if (valuesByColumn.isEmpty()) {
      return new ArrayList<>(availableTargetNames); // only ranges
    }
    Set<Integer> indexes = null;
    Map<String, Set<Integer>> indexesByColumn = new LinkedHashMap<>();
    for (Map.Entry<String, Set<Comparable<?>>> e : valuesByColumn.entrySet()) {
      Set<Integer> columnIndexes = new TreeSet<>();
      for (Comparable<?> value : e.getValue()) {
        columnIndexes.add(index(gene(table + "." + e.getKey(), value)));
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
    List<String> result = new ArrayList<>(indexes.size());
    for (int index : indexes) {
      result.add(targetOfIndex(availableTargetNames, index, () -> table + " " + valuesByColumn));
    }
    return result;
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
        + " (" + SHARDING_COUNT + "=" + shardingCount + ", " + GENE_DIVISOR + "=" + geneDivisor + ", " + GENE_BITS
        + "=" + geneBits + "); a child id must carry its parent's gene: insert the child inside"
        + " GeneContext.inherit(parentId)";
  }

  // ---------------------------------------------------------------- hint

  /** The targets of the hint values, each routed by its gene. */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      HintShardingValue<Comparable<?>> shardingValue) {
    String where = shardingValue.getLogicTableName() + " hint";
    Set<String> result = new LinkedHashSet<>();
    for (Comparable<?> value : shardingValue.getValues()) {
      result.add(target(availableTargetNames, gene(where, value), () -> where + " " + value));
    }
    return result;
  }

  // ---------------------------------------------------------------- math

  private long gene(String where, @Nullable Object value) {
    if (value == null) {
      throw new IllegalArgumentException(TYPE + ": " + where + " is null; a sharding value must be a whole"
          + " number, a String or a UUID");
    }
    try {
      return Genes.ofKey(value, initialisedGeneBits());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + ": cannot route " + where + " = " + value + ": " + e.getMessage(), e);
    }
  }

  /** {@code (gene / gene-divisor) % sharding-count}. */
  int index(long gene) {
    return (int) ((gene / geneDivisor) % shardingCount);
  }

  /** The target a gene routes to among {@code targets} (for {@link GeneShardingCheck}). */
  String targetOfGene(Collection<String> targets, long gene) {
    return target(targets, gene, () -> "gene " + gene);
  }

  private String target(Collection<String> targets, long gene, Supplier<String> what) {
    return targetOfIndex(targets, index(gene), what);
  }

  private String targetOfIndex(Collection<String> targets, int index, Supplier<String> what) {
    String found = null;
    for (String target : targets) {
      if (suffix(target) == index) {
        if (found != null) {
          throw new IllegalStateException(TYPE + ": " + what.get() + " routes to index " + index
              + " but both " + found + " and " + target + " end with _" + index);
        }
        found = target;
      }
    }
    if (found == null) {
      throw new IllegalStateException(TYPE + ": " + what.get() + " routes to index " + index
          + " but no available target ends with _" + index + ": " + targets + " (" + SHARDING_COUNT + "="
          + shardingCount + ", " + GENE_DIVISOR + "=" + geneDivisor + ")");
    }
    return found;
  }

  /** The number after the last underscore, or -1. */
  private static int suffix(String target) {
    int underscore = target.lastIndexOf('_');
    int length = target.length() - underscore - 1;
    if (underscore < 0 || length == 0 || length > 9) {
      return -1;
    }
    int value = 0;
    for (int i = underscore + 1; i < target.length(); i++) {
      char c = target.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private int initialisedGeneBits() {
    if (geneBits < 0) {
      throw new IllegalStateException(TYPE + " was used before init(Properties)");
    }
    return geneBits;
  }

  /** G: the gene bits this algorithm reads. */
  int geneBits() {
    return geneBits;
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
    return TYPE + "[" + SHARDING_COUNT + "=" + shardingCount + ", " + GENE_DIVISOR + "=" + geneDivisor + ", "
        + GENE_BITS + "=" + geneBits + "]";
  }
}
