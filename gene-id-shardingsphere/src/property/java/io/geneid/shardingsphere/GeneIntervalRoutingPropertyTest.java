package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.common.collect.Range;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.IntervalRouting;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;

/**
 * Issue #43's "done means", as properties of GENE_INTERVAL's routing over a table per month from 2026 to 2029: for any
 * id the routed table's interval holds the id's timestamp; a child (an id with its parent's gene, issued any time after
 * it) is routed only inside [parent interval, parent interval + max-child-lag], or refused naming both ids and the
 * property; a lookup by the parent reads that window and finds every accepted child; a range of ids made from two
 * instants reads exactly the months between them.
 */
class GeneIntervalRoutingPropertyTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  private static final DataNodeInfo NODE = new DataNodeInfo("t_item_", 6, '0');
  private static final long FIRST = LAYOUT.firstIdAt(Instant.parse("2026-01-01T00:00:00Z"));
  private static final long LAST = LAYOUT.lastIdAt(Instant.parse("2029-12-31T23:59:59.999Z"));
  /** About four months of milliseconds: a child may come that long after its parent. */
  private static final long MAX_CHILD_DELAY_MILLIS = 120L * 24 * 3600 * 1000;

  private static final Map<Integer, GeneIntervalShardingAlgorithm> BY_LAG = new LinkedHashMap<>();
  private static final Set<String> TABLES = new LinkedHashSet<>();

  static {
    for (int lag = 0; lag <= 3; lag++) {
      Properties props = new Properties();
      props.put("datetime-lower", "2026-01-01 00:00:00");
      props.put("datetime-upper", "2029-12-31 23:59:59");
      props.put("datetime-interval-unit", "MONTHS");
      props.put("parent-columns", "order_id");
      props.put("max-child-lag", String.valueOf(lag));
      GeneIntervalShardingAlgorithm a = new GeneIntervalShardingAlgorithm();
      a.init(props);
      BY_LAG.put(lag, a);
    }
    IntervalRouting routing = BY_LAG.get(1).routing();
    for (long i = 0; i <= routing.lastInterval(); i++) {
      TABLES.add("t_item_" + routing.suffix(i));
    }
  }

  @Provide
  Arbitrary<Long> ids() {
    return Arbitraries.longs().between(FIRST, LAST);
  }

  private static long intervalOfTable(IntervalRouting routing, String table) {
    return routing.intervalOfTarget(table).orElseThrow();
  }

  @Property(tries = 3000)
  void theRoutedTableOfAnIdHoldsItsTimestamp(@ForAll("ids") long id, @ForAll @IntRange(min = 0, max = 3) int lag) {
    GeneIntervalShardingAlgorithm a = BY_LAG.get(lag);
    IntervalRouting routing = a.routing();
    String table = a.doSharding(TABLES, new PreciseShardingValue<>("t_item", "id", NODE, id));
    long interval = intervalOfTable(routing, table);
    Instant at = LAYOUT.decode(id).timestamp();
    assertThat(routing.start(interval)).isBeforeOrEqualTo(at);
    assertThat(routing.end(interval)).isAfter(at);
    Collection<String> complex = a.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item",
        Map.of("id", List.of(id)), Map.of()));
    assertThat(complex).containsExactly(table);
  }

  @Property(tries = 3000)
  void childrenAreNeverRoutedOutsideTheirParentsWindow(@ForAll("ids") long parent,
      @ForAll @LongRange(min = -3_600_000, max = MAX_CHILD_DELAY_MILLIS) long delayMillis,
      @ForAll @LongRange(min = 0, max = (1L << 22) - 1) long workerAndSequence,
      @ForAll @IntRange(min = 0, max = 3) int lag) {
    GeneIntervalShardingAlgorithm a = BY_LAG.get(lag);
    IntervalRouting routing = a.routing();
    Instant childTime = LAYOUT.decode(parent).timestamp().plusMillis(delayMillis);
    if (childTime.isAfter(Instant.parse("2029-12-31T23:59:59.999Z"))) {
      return;
    }
    long child = LAYOUT.firstIdAt(childTime) | (workerAndSequence << LAYOUT.geneBits()) | LAYOUT.geneOf(parent);
    long parentInterval = routing.intervalOf(parent);
    long childInterval = routing.intervalOf(child);
    boolean inWindow = childInterval >= parentInterval && childInterval <= parentInterval + lag;
    ComplexKeysShardingValue<Comparable<?>> row = new ComplexKeysShardingValue<>("t_item",
        Map.of("id", List.of(child), "order_id", List.of(parent)), Map.of());
    Throwable refused = catchThrowable(() -> a.doSharding(TABLES, row));
    if (!inWindow) {
      assertThat(refused).as("child %d of parent %d", child, parent).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(Long.toString(child)).hasMessageContaining(Long.toString(parent));
      if (childInterval > parentInterval) {
        assertThat(refused).hasMessageContaining("max-child-lag = " + lag);
      }
      return;
    }
    assertThat(refused).isNull();
    Collection<String> routed = a.doSharding(TABLES, row);
    assertThat(routed).hasSize(1);
    long routedInterval = intervalOfTable(routing, routed.iterator().next());
    assertThat(routedInterval).isBetween(parentInterval, parentInterval + lag).isEqualTo(childInterval);
    // a lookup by the parent reads its window (present tables only) and so finds the child
    Collection<String> byParent = a.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item",
        Map.of("order_id", List.of(parent)), Map.of()));
    assertThat(byParent).hasSizeBetween(1, lag + 1).containsAll(routed);
    assertThat(byParent).allSatisfy(t -> assertThat(intervalOfTable(routing, t))
        .isBetween(parentInterval, parentInterval + lag));
  }

  @Property(tries = 2000)
  void aRangeOfIdsMadeFromTwoInstantsReadsExactlyTheMonthsBetween(@ForAll("ids") long a, @ForAll("ids") long b,
      @ForAll("ids") long probe) {
    GeneIntervalShardingAlgorithm algorithm = BY_LAG.get(1);
    IntervalRouting routing = algorithm.routing();
    Instant from = LAYOUT.decode(Math.min(a, b)).timestamp();
    Instant to = LAYOUT.decode(Math.max(a, b)).timestamp();
    long low = LAYOUT.firstIdAt(from);
    long high = LAYOUT.lastIdAt(to);
    Collection<String> routed = algorithm.doSharding(TABLES, new RangeShardingValue<Comparable<?>>("t_item", "id",
        NODE, Range.closed(low, high)));
    long first = routing.intervalAt(from);
    long last = routing.intervalAt(to);
    assertThat(routed).hasSize((int) (last - first + 1));
    assertThat(routed).allSatisfy(t -> assertThat(intervalOfTable(routing, t)).isBetween(first, last));
    if (probe >= low && probe <= high) { // every id of the range is in a table read
      assertThat(routed).contains(algorithm.doSharding(TABLES, new PreciseShardingValue<>("t_item", "id", NODE,
          probe)));
    }
  }
}
