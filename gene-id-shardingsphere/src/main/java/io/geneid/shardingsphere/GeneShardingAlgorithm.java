package io.geneid.shardingsphere;

import io.geneid.core.GeneIdLayout;

import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.GeneRouting;
import io.geneid.core.Genes;
import io.geneid.core.settings.SettingsReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * What {@code GENE_MOD} and {@code GENE_BUCKET} share: routing a value by its gene to a target index, then to the
 * target whose name ends with {@code "_" + index}, in the standard, complex and hint forms, with the same checks
 * and messages. A subclass says only how a gene becomes an index ({@link #index(long)}) and what is wrong with a set
 * of targets ({@link #targetProblems(Collection)}).
 */
abstract class GeneShardingAlgorithm implements StandardShardingAlgorithm<Comparable<?>>,
    ComplexKeysShardingAlgorithm<Comparable<?>>, HintShardingAlgorithm<Comparable<?>> {

  /**
   * Target collections already checked, each with its target per index. ShardingSphere hands the same collection
   * objects on every call (its rule's data sources and actual tables), so a routing call finds its targets by
   * identity instead of checking and scanning the names again; a new collection is checked once. (Comparing a
   * collection with a copy, as before, never matched ShardingSphere's sets, and every call checked again.)
   */
  private volatile List<Targets> known = List.of();
  private static final int MAX_KNOWN = 64;

  /** A checked collection of targets and the name ending in each {@code _<index>}. */
  private record Targets(Collection<String> names, int size, @Nullable String[] bySuffix) {}

  /** The properties every gene algorithm reads beside its own: string ids and the layout that checks their dates. */
  static final List<String> STRING_ID_PROPERTIES = List.of(SettingsReader.STRING_IDS, SettingsReader.STRING_ID_PREFIX,
      SettingsReader.STRING_ID_DATE, SettingsReader.EPOCH, SettingsReader.TIMESTAMP_BITS, SettingsReader.WORKER_BITS,
      SettingsReader.SEQUENCE_BITS);
  private static final List<String> LAYOUT_PROPERTIES = List.of(SettingsReader.EPOCH, SettingsReader.TIMESTAMP_BITS,
      SettingsReader.WORKER_BITS, SettingsReader.SEQUENCE_BITS);

  /** String ids routed by the gene of the number they encode, or null: every string is hashed. */
  private volatile @Nullable GeneIdStringFormat strings;

  /**
   * Reads {@code string-ids}, {@code string-id-prefix} and {@code string-id-date} (and, only with a date, the layout
   * that checks each date part against its id), as the key generators read them.
   *
   * @throws IllegalArgumentException naming a property out of range, or layout properties given without a date
   */
  final void readStringIds(SettingsReader p) {
    boolean on = p.bool(SettingsReader.STRING_IDS, false);
    boolean date = p.bool(SettingsReader.STRING_ID_DATE, false);
    if (!date || !on) {
      for (String key : LAYOUT_PROPERTIES) {
        if (p.has(key)) {
          throw new IllegalArgumentException(p.nameOf(key) + " only serves to check the date part of string ids"
              + " (" + SettingsReader.STRING_IDS + ": true, " + SettingsReader.STRING_ID_DATE + ": true); remove it");
        }
      }
    }
    this.strings = GeneIdStringFormat.from(p, date && on ? GeneIdLayout.from(p) : null);
  }

  /** The target index of a gene. */
  abstract int index(long gene);

  /** G: the gene bits this algorithm reads; -1 before init. */
  abstract int geneBits();

  /** The settings in messages, e.g. {@code sharding-count=2, gene-divisor=1, gene-bits=6}. */
  abstract String rule();

  /** What is wrong with a set of targets at one level, one sentence each; empty when nothing. */
  abstract List<String> targetProblems(Collection<String> targets);

  /**
   * The target among {@code targets} for an index.
   *
   * @throws IllegalStateException if none or several end with {@code "_" + index}
   */
  abstract String targetOfIndex(Collection<String> targets, int index);

  /** Why two genes that share a target today may not tomorrow, for the complex form's message. */
  abstract String whyGenesSplit();

  /**
   * True when ShardingSphere hands each routing call one data source's share of the targets (auto tables: table
   * {@code i} of {@code n} in data source {@code i % n}, and the table level is asked once per data source): an
   * index whose target is absent then lives in another data source, and the call routes to nothing instead of
   * failing.
   */
  boolean targetsSplitOverDataSources() {
    return false;
  }

  // ---------------------------------------------------------------- standard

  /**
   * The target of one value of the sharding column ({@code =}, and each value of {@code IN}); for auto tables
   * {@code null} when the target is in another data source (ShardingSphere keeps only names among the targets).
   */
  @Override
  public @Nullable String doSharding(Collection<String> availableTargetNames,
      PreciseShardingValue<Comparable<?>> shardingValue) {
    String table = shardingValue.getLogicTableName();
    String column = shardingValue.getColumnName();
    int index = index(gene(table, column, shardingValue.getValue()));
    String found = knownTarget(availableTargetNames, index);
    if (found != null || targetsSplitOverDataSources()) {
      return found;
    }
    return checkedTargetOfIndex(availableTargetNames, index,
        () -> table + "." + column + " = " + shardingValue.getValue());
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
    Map<String, Collection<Comparable<?>>> columnValues = shardingValue.getColumnNameAndShardingValuesMap();
    long singleGene = singleGene(table, columnValues);
    if (singleGene >= 0) {
      int index = index(singleGene);
      String single = knownTarget(availableTargetNames, index);
      if (single == null && !targetsSplitOverDataSources()) {
        single = checkedTargetOfIndex(availableTargetNames, index,
            () -> table + " " + columnValues + " (gene " + singleGene + ")");
      }
      return single == null ? List.of() : List.of(single);
    }
    Map<String, Set<Comparable<?>>> valuesByColumn = new LinkedHashMap<>();
    shardingValue.getColumnNameAndShardingValuesMap().forEach((column, values) ->
        valuesByColumn.computeIfAbsent(column.toLowerCase(Locale.ROOT), c -> new LinkedHashSet<>()).addAll(values));
    if (valuesByColumn.isEmpty()) {
      return new ArrayList<>(availableTargetNames); // only ranges
    }
    Set<Integer> indexes = null;
    Map<String, Set<Integer>> indexesByColumn = new LinkedHashMap<>();
    Map<String, Long> singleGenes = new LinkedHashMap<>();
    for (Map.Entry<String, Set<Comparable<?>>> e : valuesByColumn.entrySet()) {
      Set<Integer> columnIndexes = new TreeSet<>();
      for (Comparable<?> value : e.getValue()) {
        long gene = gene(() -> table + "." + e.getKey(), value);
        columnIndexes.add(index(gene));
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
      String target = checkedTargetOfIndex(availableTargetNames, index, () -> table + " " + valuesByColumn);
      if (target != null) {
        result.add(target);
      }
    }
    return result;
  }

  /**
   * The one gene of a row or a lookup (every column has one value, all of one gene), without building the sets of
   * the general case; -1 for anything else, which the general case routes or reports.
   */
  private long singleGene(String table, Map<String, Collection<Comparable<?>>> values) {
    long gene = -1;
    for (Map.Entry<String, Collection<Comparable<?>>> e : values.entrySet()) {
      if (e.getValue().size() != 1) {
        return -1;
      }
      Comparable<?> value = e.getValue().iterator().next();
      long g = gene(table, e.getKey(), value);
      if (gene >= 0 && g != gene) {
        return -1;
      }
      gene = g;
    }
    return gene;
  }

  /**
   * One value per column whose genes differ, though they route to one target today: the row would split from its
   * parent the day the targets change.
   */
  private String differentGenes(String table, Map<String, Set<Comparable<?>>> values, Map<String, Long> genes) {
    StringJoiner parts = new StringJoiner(" but ");
    genes.forEach((column, gene) -> parts.add(column + " = " + values.get(column).iterator().next() + " has gene "
        + gene));
    return getType() + ": the sharding columns of " + table + " carry different genes: " + parts + " (" + rule()
        + "); they share a target only by chance of " + whyGenesSplit() + ". A child id must carry its parent's"
        + " gene: insert the child inside GeneContext.inherit(parentId)";
  }

  private String conflict(String table, Map<String, Set<Comparable<?>>> values, Map<String, Set<Integer>> indexes) {
    StringJoiner parts = new StringJoiner(" but ");
    values.forEach((column, v) -> {
      Set<Integer> i = indexes.get(column);
      parts.add(v.size() == 1
          ? column + " = " + v.iterator().next() + " routes to index " + i.iterator().next()
          : column + " in " + v + " routes to indexes " + i);
    });
    return getType() + ": the sharding columns of " + table + " route to different targets: " + parts
        + " (" + rule() + "); a child id must carry its parent's gene: insert the child inside"
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
      String target = target(availableTargetNames, gene(() -> where, value), () -> where + " " + value);
      if (target != null) {
        result.add(target);
      }
    }
    return result;
  }

  // ---------------------------------------------------------------- math

  /** The gene of a sharding value of {@code where} (a table and column, built only for a message). */
  final long gene(String where, @Nullable Object value) {
    return gene(() -> where, value);
  }

  /**
   * The gene of a value of {@code table.column}, without building anything for a message unless it fails (the
   * routing of every row and lookup goes through here).
   */
  private long gene(String table, String column, @Nullable Object value) {
    int bits = geneBits();
    if (value != null && bits >= 0) {
      try {
        return geneOf(value, bits);
      } catch (IllegalArgumentException e) {
        // reported below with the table and column
      }
    }
    return gene(() -> table + "." + column, value);
  }

  private long geneOf(Object value, int bits) {
    GeneIdStringFormat f = strings;
    if (f != null && value instanceof CharSequence text && f.matches(text)) {
      return Genes.of(f.parse(text), bits); // a string id: the gene of its number
    }
    return Genes.ofKey(value, bits);
  }

  /** The gene of a sharding value; {@code where} names the table and column in a message. */
  final long gene(Supplier<String> where, @Nullable Object value) {
    if (value == null) {
      throw new IllegalArgumentException(getType() + ": " + where.get() + " is null; a sharding value must be a whole"
          + " number, a String or a UUID");
    }
    int bits = geneBits();
    if (bits < 0) {
      throw new IllegalStateException(getType() + " was used before init(Properties)");
    }
    try {
      return geneOf(value, bits);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(getType() + ": cannot route " + where.get() + " = " + value + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * The target a gene routes to among {@code targets}, without the check of the whole set (for
   * {@link GeneShardingCheck}, which reports the set's problems itself).
   */
  final String targetOfGene(Collection<String> targets, long gene) {
    int index = index(gene);
    try {
      return targetOfIndex(targets, index);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(getType() + ": gene " + gene + " routes to index " + index + " but "
          + e.getMessage(), e);
    }
  }

  private @Nullable String target(Collection<String> targets, long gene, Supplier<String> what) {
    return checkedTargetOfIndex(targets, index(gene), what);
  }

  /**
   * The target of an index among {@code targets} when the checked set has one; {@code null} otherwise (then
   * {@link #checkedTargetOfIndex} reports why, or the target is in another data source). Builds nothing.
   */
  private @Nullable String knownTarget(Collection<String> targets, int index) {
    @Nullable String[] bySuffix = checked(targets).bySuffix();
    return index >= 0 && index < bySuffix.length ? bySuffix[index] : null;
  }

  /**
   * The target of an index among {@code targets}; {@code null} only when {@link #targetsSplitOverDataSources()}
   * and the index's target is in another data source.
   *
   * @throws IllegalStateException naming {@code what}, the index and the targets, when none fits otherwise
   */
  private @Nullable String checkedTargetOfIndex(Collection<String> targets, int index, Supplier<String> what) {
    @Nullable String[] bySuffix = checked(targets).bySuffix();
    String found = index >= 0 && index < bySuffix.length ? bySuffix[index] : null;
    if (found != null) {
      return found;
    }
    if (targetsSplitOverDataSources()) {
      return null; // the checked set has distinct suffixes below sharding-count: this index is elsewhere
    }
    try { // names the index and the targets
      return targetOfIndex(targets, index);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(getType() + ": " + what.get() + " routes to index " + index + " but "
          + e.getMessage(), e);
    }
  }

  /**
   * The checked targets of a collection: on its first routing call every problem of the set at once, rather than
   * one gene at a time as rows happen to arrive. Found again by identity and size: ShardingSphere's collections do
   * not change once its rule is built.
   */
  private Targets checked(Collection<String> names) {
    List<Targets> seen = known;
    for (Targets t : seen) {
      if (t.names() == names && t.size() == names.size()) {
        return t;
      }
    }
    List<String> problems = targetProblems(names);
    if (!problems.isEmpty()) {
      throw new IllegalStateException(getType() + " (" + rule() + ") cannot route to the targets " + names + ": "
          + String.join("; ", problems));
    }
    int top = -1;
    for (String name : names) {
      top = Math.max(top, GeneRouting.suffix(name));
    }
    // at most one entry per gene (2^16): a larger suffix no gene reaches is left to targetOfIndex's scan
    @Nullable String[] bySuffix = new String[Math.min(top + 1, 1 << 16)];
    for (String name : names) { // the problems were no suffix and one suffix twice: each name has its own
      int suffix = GeneRouting.suffix(name);
      if (suffix < bySuffix.length) {
        bySuffix[suffix] = name;
      }
    }
    Targets t = new Targets(names, names.size(), bySuffix);
    List<Targets> next = new ArrayList<>(seen.size() < MAX_KNOWN ? seen : List.of());
    next.add(t);
    known = List.copyOf(next);
    return t;
  }

  /** Lets ShardingSphere's binding-table check compare two configurations of one type. */
  @Override
  public Optional<String> getAlgorithmStructure(String dataNodePrefix, String shardingColumn) {
    return Optional.of(toString());
  }

  @Override
  public String toString() {
    GeneIdStringFormat f = strings;
    return getType() + "[" + (geneBits() < 0 ? "not initialised" : rule()) + (f == null ? "" : ", " + f) + "]";
  }
}
