package io.geneid.shardingsphere;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import io.geneid.core.IntervalRouting;
import io.geneid.core.settings.SettingsReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingAlgorithm;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingAlgorithm;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.StandardShardingAlgorithm;
import org.jspecify.annotations.Nullable;

/**
 * ShardingSphere sharding algorithm type {@code GENE_INTERVAL}: the table of a row is the time interval (month, day,
 * ...) of its id's <b>own timestamp</b>, so with {@code GENE_MOD} or {@code GENE_BUCKET} choosing the database by the
 * gene, an order lands in {@code <database of its gene>.t_order_<its month>} and each of its items, whose id carries
 * the order's gene and is issued after it, in the same database, in the order's month or a later one. No date-time
 * column is needed, and a child needs no date of its parent.
 *
 * <pre>
 *   interval = the interval of the id's timestamp (see {@link IntervalRouting})
 *   target   = the available target whose name ends with the interval's suffix   (t_order_202611)
 * </pre>
 *
 * <p>One class serves every strategy form:
 * <ul>
 *   <li><b>standard</b> on the row's own id: {@code =} and {@code IN} route to the table of each id's interval
 *       (a table that is missing is an error naming it); a range ({@code BETWEEN}, {@code >=}, {@code <}) reads the
 *       tables of the intervals it spans: build its bounds with {@code GeneIdLayout.firstIdAt} and {@code lastIdAt};
 *   <li><b>complex</b> on a child's own id and its parent's id ({@code shardingColumns: id,order_id} with
 *       {@code parent-columns: order_id}): the own id routes as above; a parent id routes to its interval and the
 *       {@code max-child-lag} after it (default 1: at most 2 tables), each present table of them; the columns must
 *       agree, so an INSERT of a child more than {@code max-child-lag} intervals after its parent (or before it) is
 *       refused with a message naming both ids and the property, rather than stored where a lookup by the parent
 *       cannot find it;
 *   <li><b>hint</b>: the hint values are ids, each routed to its interval's table.
 * </ul>
 * A statement with no value of a sharding column reads every table, as with any algorithm.
 *
 * <h2>Properties</h2>
 * The names of ShardingSphere's {@code INTERVAL} algorithm where they mean the same:
 * <table>
 *   <caption>GENE_INTERVAL properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>datetime-lower</td><td>the local start of the first interval, in datetime-pattern; the start of a
 *       unit (a month: day 1, 00:00:00)</td><td>required</td></tr>
 *   <tr><td>datetime-upper</td><td>a local date-time in the last interval</td><td>none: the layout's last
 *       timestamp</td></tr>
 *   <tr><td>datetime-pattern</td><td>how datetime-lower and datetime-upper are written</td>
 *       <td>{@code yyyy-MM-dd HH:mm:ss}</td></tr>
 *   <tr><td>datetime-interval-unit</td><td>{@code HOURS}, {@code DAYS}, {@code WEEKS}, {@code MONTHS} or
 *       {@code YEARS}</td><td>{@code DAYS}</td></tr>
 *   <tr><td>datetime-interval-amount</td><td>units per interval, in [1, 1000]</td><td>1</td></tr>
 *   <tr><td>sharding-suffix-pattern</td><td>the table suffix: the interval's start in this pattern; it must
 *       name each interval ({@code yyyyMM} for months)</td><td>by unit: {@code yyyyMMddHH}, {@code yyyyMMdd},
 *       {@code yyyyMMdd}, {@code yyyyMM}, {@code yyyy}</td></tr>
 *   <tr><td>datetime-zone</td><td>the time zone whose calendar the intervals follow</td><td>UTC</td></tr>
 *   <tr><td>max-child-lag</td><td>how many intervals after its parent's a child may lie, in [0, 1000]</td>
 *       <td>1</td></tr>
 *   <tr><td>parent-columns</td><td>the sharding columns that hold a parent's id, comma-separated</td><td>none
 *       </td></tr>
 *   <tr><td>epoch, timestamp-bits, worker-bits, sequence-bits, gene-bits</td><td>the key generator's layout
 *       ({@link GeneShardingCheck} compares them)</td><td>the defaults</td></tr>
 * </table>
 */
public final class GeneIntervalShardingAlgorithm implements StandardShardingAlgorithm<Comparable<?>>,
    ComplexKeysShardingAlgorithm<Comparable<?>>, HintShardingAlgorithm<Comparable<?>> {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_INTERVAL";
  /** The property naming the sharding columns that hold a parent's id. */
  public static final String PARENT_COLUMNS = "parent-columns";

  private static final List<String> PROPERTIES = Stream.concat(IntervalRouting.KEYS.stream(),
      Stream.of(PARENT_COLUMNS)).toList();
  private static final int MAX_KNOWN = 64;

  private volatile @Nullable Settings settings;
  /** Target collections already checked, found again by identity (see {@code GeneShardingAlgorithm}). */
  private volatile List<Targets> known = List.of();

  private record Settings(IntervalRouting routing, Set<String> parentColumns) {}

  /** A checked collection of targets, each by its interval. */
  private record Targets(Collection<String> names, int size, NavigableMap<Long, String> byInterval) {}

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneIntervalShardingAlgorithm() {}

  /**
   * Checks and keeps the properties.
   *
   * @throws IllegalArgumentException naming the property, its value and what is allowed, or an unknown property
   */
  @Override
  public void init(Properties props) {
    SettingsReader p = AlgorithmProps.of(TYPE, props, PROPERTIES);
    IntervalRouting routing = IntervalRouting.from(p);
    Set<String> parents = new LinkedHashSet<>();
    for (String column : p.string(PARENT_COLUMNS, "").split(",")) {
      if (!column.isBlank()) {
        parents.add(column.trim().toLowerCase(Locale.ROOT));
      }
    }
    this.settings = new Settings(routing, Collections.unmodifiableSet(parents));
  }

  @Override
  public String getType() {
    return TYPE;
  }

  /** The interval rule, for computing an interval's bounds or an id's table suffix as this algorithm does. */
  public IntervalRouting routing() {
    return settings().routing();
  }

  /** The columns this algorithm reads as a parent's id, lower-cased. */
  public Set<String> parentColumns() {
    return settings().parentColumns();
  }

  private Settings settings() {
    return AlgorithmProps.initialised(TYPE, settings);
  }

  // ---------------------------------------------------------------- standard

  /** The table of one id ({@code =}, and each value of {@code IN}). */
  @Override
  public String doSharding(Collection<String> availableTargetNames, PreciseShardingValue<Comparable<?>> value) {
    String table = value.getLogicTableName();
    String column = value.getColumnName();
    Settings s = settings();
    if (s.parentColumns().contains(column.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(TYPE + ": " + table + "." + column + " is one of " + PARENT_COLUMNS
          + ": a parent's id routes to its interval and the " + IntervalRouting.MAX_CHILD_LAG + " after it, which"
          + " only the complex strategy can return (complex: shardingColumns: id," + column + ")");
    }
    long id = id(() -> table + "." + column, value.getValue());
    long interval = checkedInterval(s.routing(), id, () -> table + "." + column + " = " + id);
    return exactTarget(availableTargetNames, interval, () -> table + "." + column + " = " + id + " ("
        + s.routing().timestampOf(id) + ")");
  }

  /** The tables of the intervals a range of ids spans. */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      RangeShardingValue<Comparable<?>> value) {
    String where = value.getLogicTableName() + "." + value.getColumnName();
    boolean parent = parentColumns().contains(value.getColumnName().toLowerCase(Locale.ROOT));
    long[] span = rangeIntervals(() -> where, value.getValueRange(), parent);
    return span == null ? List.of() : targetsIn(availableTargetNames, List.of(span));
  }

  // ---------------------------------------------------------------- complex

  /**
   * The tables of a child's own id and its parent's id (and of ranges of either): each column's values give a set
   * of intervals, and the columns must agree.
   */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      ComplexKeysShardingValue<Comparable<?>> value) {
    String table = value.getLogicTableName();
    Settings s = settings();
    IntervalRouting routing = s.routing();
    Map<String, Collection<Comparable<?>>> values = value.getColumnNameAndShardingValuesMap();
    if (values.size() == 2) { // a row, or a lookup by both: a child outside its parent's window is named first
      checkChild(table, values, s);
    }
    Map<String, List<long[]>> byColumn = new LinkedHashMap<>();
    for (Map.Entry<String, Collection<Comparable<?>>> e : values.entrySet()) {
      String column = e.getKey().toLowerCase(Locale.ROOT);
      boolean parent = s.parentColumns().contains(column);
      List<long[]> intervals = new ArrayList<>();
      for (Comparable<?> v : e.getValue()) {
        long id = id(() -> table + "." + e.getKey(), v);
        long first = checkedInterval(routing, id, () -> table + "." + e.getKey() + " = " + id);
        intervals.add(new long[] {first, parent ? first + routing.maxChildLag() : first});
      }
      byColumn.merge(column, normalise(intervals), GeneIntervalShardingAlgorithm::intersect);
    }
    for (Map.Entry<String, Range<Comparable<?>>> e : value.getColumnNameAndRangeValuesMap().entrySet()) {
      String column = e.getKey().toLowerCase(Locale.ROOT);
      long[] span = rangeIntervals(() -> table + "." + e.getKey(), e.getValue(),
          s.parentColumns().contains(column));
      byColumn.merge(column, span == null ? List.of() : List.of(span), GeneIntervalShardingAlgorithm::intersect);
    }
    if (byColumn.isEmpty()) {
      return new ArrayList<>(availableTargetNames);
    }
    List<long[]> common = null;
    for (List<long[]> intervals : byColumn.values()) {
      common = common == null ? intervals : intersect(common, intervals);
    }
    if (common.isEmpty()) {
      if (value.getColumnNameAndRangeValuesMap().isEmpty()) {
        throw new IllegalArgumentException(conflict(table, byColumn, s));
      }
      return List.of(); // a range and values that exclude each other: no row can match
    }
    Collection<String> targets = targetsIn(availableTargetNames, common);
    if (targets.isEmpty()) {
      throw new IllegalStateException(TYPE + ": " + table + " " + values + " routes to " + describe(routing, common)
          + " but no target among " + availableTargetNames + " ends with " + (common.size() == 1
          && common.get(0)[0] == common.get(0)[1] ? "its suffix" : "their suffixes") + missingTableAdvice());
    }
    return targets;
  }

  /**
   * One own id and one parent id (each column one value): refused, naming both and {@code max-child-lag}, when the
   * child lies outside its parent's window.
   */
  private static void checkChild(String table, Map<String, Collection<Comparable<?>>> values, Settings s) {
    String ownColumn = null;
    String parentColumn = null;
    for (Map.Entry<String, Collection<Comparable<?>>> e : values.entrySet()) {
      if (e.getValue().size() != 1) {
        return;
      }
      if (s.parentColumns().contains(e.getKey().toLowerCase(Locale.ROOT))) {
        parentColumn = e.getKey();
      } else {
        ownColumn = e.getKey();
      }
    }
    if (ownColumn == null || parentColumn == null) {
      return;
    }
    String own = ownColumn;
    String parentName = parentColumn;
    long child = id(() -> table + "." + own, values.get(own).iterator().next());
    long parent = id(() -> table + "." + parentName, values.get(parentName).iterator().next());
    String problem = s.routing().childProblem(child, parent);
    if (problem != null) {
      throw new IllegalArgumentException(TYPE + ": " + table + " " + own + " = " + child + ", " + parentName + " = "
          + parent + ": the " + problem);
    }
  }

  private String conflict(String table, Map<String, List<long[]>> byColumn, Settings s) {
    StringJoiner parts = new StringJoiner(" but ");
    byColumn.forEach((column, intervals) -> parts.add(column + " routes to " + describe(s.routing(), intervals)));
    boolean anyParent = byColumn.keySet().stream().anyMatch(s.parentColumns()::contains);
    return TYPE + ": the sharding columns of " + table + " route to different intervals: " + parts + (anyParent
        ? "; a child must lie in its parent's interval or the " + IntervalRouting.MAX_CHILD_LAG + " = "
        + s.routing().maxChildLag() + " after it"
        : "; if one of them holds a parent's id, name it in " + PARENT_COLUMNS + " (e.g. " + PARENT_COLUMNS + ": "
        + byColumn.keySet().stream().skip(1).findFirst().orElse("order_id") + ")");
  }

  // ---------------------------------------------------------------- hint

  /** The tables of the hint values, each an id. */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      HintShardingValue<Comparable<?>> value) {
    String where = value.getLogicTableName() + " hint";
    IntervalRouting routing = routing();
    Set<String> result = new LinkedHashSet<>();
    for (Comparable<?> v : value.getValues()) {
      long id = id(() -> where, v);
      long interval = checkedInterval(routing, id, () -> where + " " + id);
      result.add(exactTarget(availableTargetNames, interval, () -> where + " " + id));
    }
    return result;
  }

  // ---------------------------------------------------------------- intervals

  /**
   * The intervals a range of ids spans, as {@code {first, last}} (a parent column's last widened by
   * {@code max-child-lag}), clipped to the configured intervals; null when no id lies in the range.
   */
  private long @Nullable [] rangeIntervals(Supplier<String> where, Range<Comparable<?>> range, boolean parent) {
    IntervalRouting routing = routing();
    long low = 0;
    long high = Long.MAX_VALUE;
    if (range.hasLowerBound()) {
      long v = id(where, range.lowerEndpoint(), true);
      if (range.lowerBoundType() == BoundType.OPEN) {
        if (v == Long.MAX_VALUE) {
          return null;
        }
        v++;
      }
      low = Math.max(0, v);
    }
    if (range.hasUpperBound()) {
      long v = id(where, range.upperEndpoint(), true);
      high = range.upperBoundType() == BoundType.OPEN ? v - 1 : v;
    }
    if (high < low) {
      return null;
    }
    long first = Math.max(0, routing.intervalOf(low));
    long last = range.hasUpperBound() ? routing.intervalOf(high) + (parent ? routing.maxChildLag() : 0)
        : routing.lastInterval();
    last = Math.min(last, routing.lastInterval());
    return first > last ? null : new long[] {first, last};
  }

  /** The interval of an id, which must lie between datetime-lower and the last interval. */
  private static long checkedInterval(IntervalRouting routing, long id, Supplier<String> what) {
    long interval = routing.intervalOf(id);
    if (!routing.inRange(interval)) {
      throw new IllegalArgumentException(TYPE + ": " + what.get() + " (" + routing.timestampOf(id) + ") lies in"
          + " interval " + routing.describe(interval) + ": no table is configured for it");
    }
    return interval;
  }

  /** Sorted, merged closed intervals. */
  private static List<long[]> normalise(List<long[]> intervals) {
    List<long[]> sorted = new ArrayList<>(intervals);
    sorted.sort((a, b) -> Long.compare(a[0], b[0]));
    List<long[]> out = new ArrayList<>();
    for (long[] i : sorted) {
      long[] last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && i[0] <= last[1] + 1) {
        last[1] = Math.max(last[1], i[1]);
      } else {
        out.add(new long[] {i[0], i[1]});
      }
    }
    return out;
  }

  /** The intersection of two sorted, merged lists of closed intervals. */
  private static List<long[]> intersect(List<long[]> a, List<long[]> b) {
    List<long[]> out = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.size() && j < b.size()) {
      long lo = Math.max(a.get(i)[0], b.get(j)[0]);
      long hi = Math.min(a.get(i)[1], b.get(j)[1]);
      if (lo <= hi) {
        out.add(new long[] {lo, hi});
      }
      if (a.get(i)[1] < b.get(j)[1]) {
        i++;
      } else {
        j++;
      }
    }
    return out;
  }

  private static String describe(IntervalRouting routing, List<long[]> intervals) {
    if (intervals.isEmpty()) {
      return "no interval";
    }
    StringJoiner out = new StringJoiner(", ");
    for (long[] i : intervals) {
      out.add(i[0] == i[1] ? routing.describe(i[0]) : routing.describe(i[0]) + ".." + routing.describe(i[1]));
    }
    return (intervals.size() == 1 && intervals.get(0)[0] == intervals.get(0)[1] ? "interval " : "intervals ") + out;
  }

  // ---------------------------------------------------------------- targets

  /** The target of one interval. */
  private String exactTarget(Collection<String> targets, long interval, Supplier<String> what) {
    String found = checked(targets).byInterval().get(interval);
    if (found == null) {
      throw new IllegalStateException(TYPE + ": " + what.get() + " routes to interval " + routing().describe(interval)
          + " but no target among " + targets + " ends with " + routing().suffix(interval) + missingTableAdvice());
    }
    return found;
  }

  /** The present targets of the intervals, in interval order. */
  private Collection<String> targetsIn(Collection<String> targets, List<long[]> intervals) {
    NavigableMap<Long, String> byInterval = checked(targets).byInterval();
    Set<String> out = new LinkedHashSet<>();
    for (long[] i : intervals) {
      out.addAll(byInterval.subMap(i[0], true, i[1], true).values());
    }
    return out;
  }

  private static String missingTableAdvice() {
    return ": create it for every data node (gene-id tables --config <your YAML> --create) and list it in"
        + " actualDataNodes";
  }

  /**
   * The checked targets of a collection: on its first routing call every name that is no interval's table (or one
   * outside the configured intervals, or one interval twice) is reported at once.
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
      throw new IllegalStateException(this + " cannot route to the targets " + names + ": "
          + String.join("; ", problems));
    }
    IntervalRouting routing = routing();
    NavigableMap<Long, String> byInterval = new TreeMap<>();
    for (String name : names) {
      byInterval.put(routing.intervalOfTarget(name).getAsLong(), name);
    }
    Targets t = new Targets(names, names.size(), byInterval);
    List<Targets> next = new ArrayList<>(seen.size() < MAX_KNOWN ? seen : List.of());
    next.add(t);
    known = List.copyOf(next);
    return t;
  }

  /**
   * What is wrong with a set of targets at one level, one sentence each: a name that ends with no interval's suffix,
   * an interval out of the configured range, two names of one interval.
   */
  List<String> targetProblems(Collection<String> names) {
    IntervalRouting routing = routing();
    List<String> problems = new ArrayList<>();
    Map<Long, String> seen = new TreeMap<>();
    for (String name : names) {
      OptionalLong interval = routing.intervalOfTarget(name);
      if (interval.isEmpty()) {
        problems.add("target " + name + " does not end with an interval's suffix ("
            + IntervalRouting.SHARDING_SUFFIX_PATTERN + " " + routing.suffixPattern() + ", e.g. "
            + routing.suffix(0) + ")");
      } else if (!routing.inRange(interval.getAsLong())) {
        problems.add("target " + name + " is interval " + routing.describe(interval.getAsLong()));
      } else {
        String other = seen.put(interval.getAsLong(), name);
        if (other != null) {
          problems.add("targets " + other + " and " + name + " are both interval "
              + routing.suffix(interval.getAsLong()));
        }
      }
    }
    return problems;
  }

  // ---------------------------------------------------------------- values

  private static long id(Supplier<String> where, @Nullable Object value) {
    return id(where, value, false);
  }

  /** A sharding value as an id: a whole number, not negative unless it bounds a range. */
  private static long id(Supplier<String> where, @Nullable Object value, boolean rangeBound) {
    long id;
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      id = ((Number) value).longValue();
    } else if (value instanceof BigInteger b && b.bitLength() < 64) {
      id = b.longValue();
    } else if (value instanceof BigDecimal d && d.stripTrailingZeros().scale() <= 0 && d.toBigInteger()
        .bitLength() < 64) {
      id = d.longValueExact();
    } else {
      throw new IllegalArgumentException(TYPE + ": cannot route " + where.get() + " = " + (value instanceof
          CharSequence ? "'" + value + "'" : value) + ": " + TYPE + " reads the timestamp of a numeric id, so a"
          + " sharding value must be a whole number that fits a long (bind ids as numbers)");
    }
    if (id < 0 && !rangeBound) {
      throw new IllegalArgumentException(TYPE + ": cannot route " + where.get() + " = " + id + ": an id is never"
          + " negative");
    }
    return id;
  }

  /** Lets ShardingSphere's binding-table check compare two configurations of one type. */
  @Override
  public Optional<String> getAlgorithmStructure(String dataNodePrefix, String shardingColumn) {
    return Optional.of(toString());
  }

  @Override
  public String toString() {
    Settings s = settings;
    return TYPE + "[" + (s == null ? "not initialised" : s.routing() + (s.parentColumns().isEmpty() ? ""
        : ", " + PARENT_COLUMNS + "=" + String.join(",", s.parentColumns())) + ", " + s.routing().layout()) + "]";
  }
}
