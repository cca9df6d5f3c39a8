package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.Range;
import io.geneid.core.GeneIdLayout;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.junit.jupiter.api.Test;

/** GENE_INTERVAL routes by the month of an id's own timestamp, a parent to its window, and refuses late children. */
class GeneIntervalShardingAlgorithmTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  /** One database's month tables, as ShardingSphere hands them (a set, the same object every call). */
  private static final LinkedHashSet<String> TABLES = new LinkedHashSet<>(List.of("t_item_202610", "t_item_202611",
      "t_item_202612"));
  private static final DataNodeInfo NODE = new DataNodeInfo("t_item_", 6, '0');

  static GeneIntervalShardingAlgorithm algorithm(Object... keyValues) {
    Properties props = new Properties();
    props.put("datetime-lower", "2026-01-01 00:00:00");
    props.put("datetime-interval-unit", "MONTHS");
    props.put("sharding-suffix-pattern", "yyyyMM");
    props.put("parent-columns", "order_id");
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    GeneIntervalShardingAlgorithm algorithm = new GeneIntervalShardingAlgorithm();
    algorithm.init(props);
    return algorithm;
  }

  private static long at(String instant) {
    return LAYOUT.firstIdAt(Instant.parse(instant));
  }

  /** A child id issued at {@code instant} for {@code parent}: its gene. */
  private static long childAt(String instant, long parent) {
    return at(instant) | LAYOUT.geneOf(parent) | (3L << 6);
  }

  private static PreciseShardingValue<Comparable<?>> precise(String column, Comparable<?> value) {
    return new PreciseShardingValue<>("t_item", column, NODE, value);
  }

  private static ComplexKeysShardingValue<Comparable<?>> row(Object... columnValues) {
    Map<String, java.util.Collection<Comparable<?>>> values = new LinkedHashMap<>();
    for (int i = 0; i < columnValues.length; i += 2) {
      values.put((String) columnValues[i], List.of((Comparable<?>) columnValues[i + 1]));
    }
    return new ComplexKeysShardingValue<>("t_item", values, Map.of());
  }

  private static RangeShardingValue<Comparable<?>> range(String column, Range<Comparable<?>> range) {
    return new RangeShardingValue<>("t_item", column, NODE, range);
  }

  @Test
  void anIdRoutesToTheTableOfItsOwnMonth() {
    GeneIntervalShardingAlgorithm a = algorithm();
    assertThat(a.getType()).isEqualTo("GENE_INTERVAL");
    assertThat(a.doSharding(TABLES, precise("id", at("2026-11-30T23:59:59.999Z") + 63))).isEqualTo("t_item_202611");
    assertThat(a.doSharding(TABLES, precise("id", at("2026-12-01T00:00:00Z")))).isEqualTo("t_item_202612");
    assertThat(a.doSharding(TABLES, precise("ID", BigDecimal.valueOf(at("2026-10-01T00:00:00Z")))))
        .isEqualTo("t_item_202610");
    assertThat(a.doSharding(TABLES, new HintShardingValue<Comparable<?>>("t_item", "id",
        List.of(at("2026-10-05T00:00:00Z"), at("2026-12-05T00:00:00Z"))))).containsExactly("t_item_202610",
            "t_item_202612");
  }

  @Test
  void anIdWhoseTableIsMissingOrOutOfRangeIsAnErrorThatSaysWhatToDo() {
    GeneIntervalShardingAlgorithm a = algorithm("datetime-upper", "2027-12-31 23:59:59");
    long january = at("2027-01-02T00:00:00Z");
    assertThatThrownBy(() -> a.doSharding(TABLES, precise("id", january))).isInstanceOf(IllegalStateException.class)
        .hasMessage("GENE_INTERVAL: t_item.id = " + january + " (2027-01-02T00:00:00Z) routes to interval 202701 but"
            + " no target among [t_item_202610, t_item_202611, t_item_202612] ends with 202701: create it for every"
            + " data node (gene-id tables --config <your YAML> --create) and list it in actualDataNodes");
    long tooLate = at("2028-01-01T00:00:00Z");
    assertThatThrownBy(() -> a.doSharding(TABLES, precise("id", tooLate)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_INTERVAL: t_item.id = " + tooLate + " (2028-01-01T00:00:00Z) lies in interval 202801"
            + " (after datetime-upper 2027-12-31T23:59:59): no table is configured for it");
    long tooEarly = at("2025-12-31T23:59:59Z");
    assertThatThrownBy(() -> a.doSharding(TABLES, precise("id", tooEarly)))
        .hasMessageContaining("lies in interval 202512 (before datetime-lower 2026-01-01T00:00)");
    assertThatThrownBy(() -> a.doSharding(TABLES, precise("id", "42"))).hasMessage("GENE_INTERVAL: cannot route"
        + " t_item.id = '42': GENE_INTERVAL reads the timestamp of a numeric id, so a sharding value must be a whole"
        + " number that fits a long (bind ids as numbers)");
    assertThatThrownBy(() -> a.doSharding(TABLES, precise("id", -1L))).hasMessage("GENE_INTERVAL: cannot route"
        + " t_item.id = -1: an id is never negative");
  }

  @Test
  void aParentColumnNeedsTheComplexStrategy() {
    assertThatThrownBy(() -> algorithm().doSharding(TABLES, precise("order_id", at("2026-11-01T00:00:00Z"))))
        .hasMessage("GENE_INTERVAL: t_item.order_id is one of parent-columns: a parent's id routes to its interval"
            + " and the max-child-lag after it, which only the complex strategy can return (complex: shardingColumns:"
            + " id,order_id)");
  }

  @Test
  void aRangeOfIdsMadeFromTimesReadsOnlyTheMonthsItSpans() {
    GeneIntervalShardingAlgorithm a = algorithm();
    long november = at("2026-11-01T00:00:00Z");
    long december = at("2026-12-01T00:00:00Z");
    long endOfNovember = LAYOUT.lastIdAt(Instant.parse("2026-11-30T23:59:59.999Z"));
    assertThat(a.doSharding(TABLES, range("id", Range.closedOpen(november, december))))
        .containsExactly("t_item_202611");
    assertThat(a.doSharding(TABLES, range("id", Range.closed(november, endOfNovember))))
        .containsExactly("t_item_202611");
    assertThat(a.doSharding(TABLES, range("id", Range.closed(november, december))))
        .containsExactly("t_item_202611", "t_item_202612");
    assertThat(a.doSharding(TABLES, range("id", Range.atLeast(november))))
        .containsExactly("t_item_202611", "t_item_202612");
    assertThat(a.doSharding(TABLES, range("id", Range.lessThan(november)))).containsExactly("t_item_202610");
    assertThat(a.doSharding(TABLES, range("id", Range.greaterThan(Long.MAX_VALUE)))).isEmpty();
    assertThat(a.doSharding(TABLES, range("id", Range.lessThan(0L)))).isEmpty();
    assertThat(a.doSharding(TABLES, range("id", Range.all()))).containsExactlyElementsOf(TABLES);
  }

  @Test
  void aChildRoutesByItsOwnIdAndAParentToItsMonthAndTheLagAfterIt() {
    GeneIntervalShardingAlgorithm a = algorithm();
    long order = at("2026-10-31T23:59:59.990Z") | 5;
    long item = childAt("2026-11-01T00:00:00.004Z", order);
    assertThat(a.doSharding(TABLES, row("id", item, "order_id", order))).containsExactly("t_item_202611");
    assertThat(a.doSharding(TABLES, row("id", item))).containsExactly("t_item_202611");
    assertThat(a.doSharding(TABLES, row("order_id", order))).containsExactly("t_item_202610", "t_item_202611");
    long lateOrder = at("2026-12-15T00:00:00Z");
    assertThat(a.doSharding(TABLES, row("order_id", lateOrder))).as("next month's table is not there yet")
        .containsExactly("t_item_202612");
    assertThat(algorithm("max-child-lag", "0").doSharding(TABLES, row("order_id", order)))
        .containsExactly("t_item_202610");
    // a range of parents widens by the lag; a range and a parent narrow each other
    assertThat(a.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item", Map.of(),
        Map.of("order_id", Range.closed(order, order))))).containsExactly("t_item_202610", "t_item_202611");
    assertThat(a.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item",
        Map.of("order_id", List.<Comparable<?>>of(order)),
        Map.of("id", Range.<Comparable<?>>atLeast(at("2026-11-01T00:00:00Z")))))).containsExactly("t_item_202611");
    assertThat(a.doSharding(TABLES, new ComplexKeysShardingValue<Comparable<?>>("t_item", Map.of(), Map.of())))
        .containsExactlyElementsOf(TABLES);
  }

  @Test
  void aChildPastTheLagIsRefusedNamingBothIdsAndTheProperty() {
    GeneIntervalShardingAlgorithm a = algorithm();
    long order = at("2026-10-31T23:59:59.990Z") | 5;
    long late = childAt("2026-12-01T00:00:00Z", order);
    assertThatThrownBy(() -> a.doSharding(TABLES, row("id", late, "order_id", order)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_INTERVAL: t_item id = " + late + ", order_id = " + order + ": the child id " + late
            + " (2026-12-01T00:00:00Z, interval 202612) lies 2 intervals after its parent's id " + order
            + " (2026-10-31T23:59:59.990Z, interval 202610), more than max-child-lag = 1 allows: a lookup by the"
            + " parent's id reads only 202610..202611 and would not find it; raise max-child-lag (lookups by parent"
            + " then read more tables) or give the child a newer parent");
    assertThat(algorithm("max-child-lag", "2").doSharding(TABLES, row("id", late, "order_id", order)))
        .containsExactly("t_item_202612");
    long early = childAt("2026-09-30T00:00:00Z", order);
    assertThatThrownBy(() -> a.doSharding(TABLES, row("order_id", order, "id", early)))
        .hasMessageContaining("lies before its parent's id " + order);
  }

  @Test
  void withoutParentColumnsTwoColumnsOfDifferentMonthsAskForThem() {
    GeneIntervalShardingAlgorithm a = algorithm("parent-columns", "");
    long order = at("2026-10-31T23:59:59.990Z");
    long item = childAt("2026-11-01T00:00:00Z", order);
    assertThatThrownBy(() -> a.doSharding(TABLES, row("id", item, "order_id", order)))
        .hasMessage("GENE_INTERVAL: the sharding columns of t_item route to different intervals: id routes to"
            + " interval 202611 but order_id routes to interval 202610; if one of them holds a parent's id, name it"
            + " in parent-columns (e.g. parent-columns: order_id)");
  }

  @Test
  void targetsThatAreNoIntervalsTableAreReportedAtOnce() {
    GeneIntervalShardingAlgorithm a = algorithm("datetime-upper", "2026-12-31 00:00:00");
    List<String> bad = List.of("t_item_202611", "t_item_0", "t_item_202701", "x_202611");
    assertThatThrownBy(() -> a.doSharding(bad, precise("id", at("2026-11-02T00:00:00Z"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageEndingWith("cannot route to the targets [t_item_202611, t_item_0, t_item_202701, x_202611]:"
            + " target t_item_0 does not end with an interval's suffix (sharding-suffix-pattern yyyyMM, e.g."
            + " 202601); target t_item_202701 is interval 202701 (after datetime-upper 2026-12-31T00:00); targets"
            + " t_item_202611 and x_202611 are both interval 202611");
  }

  @Test
  void propertiesAreCheckedAsTheOtherAlgorithmsCheckThem() {
    assertThatThrownBy(() -> algorithm("datetime-interval-units", "MONTHS"))
        .hasMessage("GENE_INTERVAL has no property 'datetime-interval-units'; allowed: datetime-pattern,"
            + " datetime-lower, datetime-upper, sharding-suffix-pattern, datetime-interval-amount,"
            + " datetime-interval-unit, datetime-zone, max-child-lag, epoch, timestamp-bits, worker-bits,"
            + " sequence-bits, gene-bits, parent-columns");
    assertThatThrownBy(() -> algorithm("max-child-lag", "1001"))
        .hasMessage("GENE_INTERVAL property 'max-child-lag' must be in [0, 1000] but was 1001");
    assertThatThrownBy(() -> algorithm("gene-bits", "17"))
        .hasMessage("GENE_INTERVAL property 'gene-bits' must be in [0, 16] but was 17");
    assertThatThrownBy(() -> new GeneIntervalShardingAlgorithm().routing())
        .hasMessage("GENE_INTERVAL was used before init(Properties)");
    assertThat(algorithm().toString()).isEqualTo("GENE_INTERVAL[datetime-lower=2026-01-01T00:00,"
        + " datetime-interval-amount=1, datetime-interval-unit=MONTHS, sharding-suffix-pattern=yyyyMM,"
        + " datetime-zone=UTC, max-child-lag=1, parent-columns=order_id, " + LAYOUT + "]");
  }
}
