package io.geneid.shardingsphere;

import io.geneid.core.settings.SettingsReader;
import io.geneid.core.GeneIdStringFormat;
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
 * the string {@code "42"} is hashed, it does not route like the number 42. With {@code string-ids: true}, a string
 * of the configured {@link GeneIdStringFormat} (a string id of {@code GENE_SNOWFLAKE} or {@code GENE_SEGMENT} with the
 * same {@code string-id-*} properties) routes by the gene of the number it encodes, so a string child id lands with
 * its numeric parent and a numeric child with its string parent; every other string is hashed as before.
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
 *   <tr><td>string-ids, string-id-prefix, string-id-date</td><td>recognise string ids of this format and route
 *       them by the gene of their number (as the key generator's)</td><td>false, none, false</td></tr>
 *   <tr><td>epoch, timestamp-bits, worker-bits, sequence-bits</td><td>only with {@code string-id-date: true}: the
 *       key generator's layout, to check each date part against its id</td><td>the defaults</td></tr>
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
  private static final List<String> LAYOUT_PROPERTIES = List.of(SettingsReader.EPOCH, SettingsReader.TIMESTAMP_BITS,
      SettingsReader.WORKER_BITS, SettingsReader.SEQUENCE_BITS);
  private static final List<String> PROPERTIES = List.of(SHARDING_COUNT, GENE_BITS, GENE_DIVISOR,
      SettingsReader.STRING_IDS, SettingsReader.STRING_ID_PREFIX, SettingsReader.STRING_ID_DATE,
      SettingsReader.EPOCH, SettingsReader.TIMESTAMP_BITS, SettingsReader.WORKER_BITS, SettingsReader.SEQUENCE_BITS);

  private @Nullable GeneRouting routing;
  /** String ids routed by the gene of the number they encode, or null: every string is hashed. */
  private @Nullable GeneIdStringFormat strings;
  /** The last set of targets found sound, so each set is checked once, on its first routing call. */
  private volatile Collection<String> checkedTargets = List.of();

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
    boolean date = p.bool(SettingsReader.STRING_ID_DATE, false);
    if (!date || !p.bool(SettingsReader.STRING_IDS, false)) {
      for (String key : LAYOUT_PROPERTIES) {
        if (p.has(key)) {
          throw new IllegalArgumentException(p.nameOf(key) + " only serves to check the date part of string ids"
              + " (" + SettingsReader.STRING_IDS + ": true, " + SettingsReader.STRING_ID_DATE + ": true); remove it");
        }
      }
    }
    this.strings = p.stringFormat(date && p.bool(SettingsReader.STRING_IDS, false) ? p.layout() : null);
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
    GeneRouting r = routing();
    Set<Integer> indexes = null;
    Map<String, Set<Integer>> indexesByColumn = new LinkedHashMap<>();
    Map<String, Long> singleGenes = new LinkedHashMap<>();
    for (Map.Entry<String, Set<Comparable<?>>> e : valuesByColumn.entrySet()) {
      Set<Integer> columnIndexes = new TreeSet<>();
      for (Comparable<?> value : e.getValue()) {
        long gene = gene(table + "." + e.getKey(), value);
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
      GeneIdStringFormat f = strings;
      if (f != null && value instanceof CharSequence text && f.matches(text)) {
        return Genes.of(f.parse(text), routing().geneBits()); // a string id: the gene of its number
      }
      return Genes.ofKey(value, routing().geneBits());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + ": cannot route " + where + " = " + value + ": " + e.getMessage(), e);
    }
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
    checkTargets(targets);
    try {
      return routing().target(targets, index);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(TYPE + ": " + what.get() + " routes to index " + index + " but "
          + e.getMessage(), e);
    }
  }

  /**
   * On the first routing call with a set of targets, every problem of the set at once (names without an
   * {@code _<index>} suffix, two targets with one suffix, targets no gene reaches), rather than one gene at a time
   * as rows happen to arrive.
   */
  private void checkTargets(Collection<String> targets) {
    if (targets.equals(checkedTargets)) {
      return;
    }
    List<String> problems = routing().problems(targets);
    if (!problems.isEmpty()) {
      throw new IllegalStateException(TYPE + " (" + routing() + ") cannot route to the targets " + targets + ": "
          + String.join("; ", problems));
    }
    checkedTargets = List.copyOf(targets);
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
    GeneIdStringFormat f = strings;
    return TYPE + "[" + (r == null ? "not initialised" : r.toString()) + (f == null ? "" : ", " + f) + "]";
  }
}
