package io.geneid.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The interval of an id holds the id's own timestamp, its suffix reads back as that interval, intervals never go down
 * as ids grow, and {@code firstIdAt}/{@code lastIdAt} bound the ids of an instant exactly.
 */
class IntervalRoutingPropertyTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  /** Ids from 2025 to the end of 2035. */
  private static final long LAST_ID = LAYOUT.lastIdAt(Instant.parse("2035-12-31T23:59:59.999Z"));

  @Provide
  Arbitrary<IntervalRouting> routings() {
    Arbitrary<ChronoUnit> units = Arbitraries.of(IntervalRouting.UNITS);
    Arbitrary<Integer> amounts = Arbitraries.of(1, 1, 1, 2, 3, 7);
    Arbitrary<ZoneId> zones = Arbitraries.of("UTC", "+08:00", "-05:30", "Asia/Shanghai", "Europe/Berlin",
        "America/New_York").map(ZoneId::of);
    Arbitrary<LocalDateTime> days = Arbitraries.longs().between(0, 365L * 4).map(d -> LocalDateTime.of(2025, 1, 1,
        0, 0).plusDays(d));
    Arbitrary<Integer> lags = Arbitraries.integers().between(0, 3);
    return Combinators.combine(units, amounts, zones, days, lags).as((unit, amount, zone, day, lag) -> {
      LocalDateTime lower = switch (unit) {
        case YEARS -> day.withDayOfYear(1);
        case MONTHS -> day.withDayOfMonth(1);
        case HOURS -> day.withHour(day.getDayOfYear() % 24);
        default -> day;
      };
      return IntervalRouting.builder().layout(LAYOUT).unit(unit).amount(amount).zone(zone).lower(lower)
          .maxChildLag(lag).build();
    });
  }

  @Provide
  Arbitrary<Long> ids() {
    return Arbitraries.longs().between(0, LAST_ID);
  }

  @Property(tries = 3000)
  void theIntervalOfAnIdHoldsItsTimestampAndItsSuffixReadsBack(@ForAll("routings") IntervalRouting routing,
      @ForAll("ids") long id) {
    Instant at = LAYOUT.decode(id).timestamp();
    long interval = routing.intervalOf(id);
    assertThat(routing.intervalAt(at)).isEqualTo(interval);
    if (interval >= 0) { // intervals before datetime-lower have no start of their own to check
      assertThat(routing.start(interval)).as("start of %s", interval).isBeforeOrEqualTo(at);
      assertThat(routing.end(interval)).as("end of %s", interval).isAfter(at);
      assertThat(routing.intervalOfTarget("t_item_" + routing.suffix(interval))).hasValue(interval);
    } else {
      assertThat(routing.start(0)).isAfter(at);
    }
  }

  @Property(tries = 2000)
  void intervalsNeverGoDownAsIdsGrow(@ForAll("routings") IntervalRouting routing, @ForAll("ids") long a,
      @ForAll("ids") long b) {
    long low = Math.min(a, b);
    long high = Math.max(a, b);
    assertThat(routing.intervalOf(low)).isLessThanOrEqualTo(routing.intervalOf(high));
    // again through the cache of the last interval: the same answers in any order
    assertThat(routing.intervalOf(high)).isEqualTo(routing.intervalAt(LAYOUT.decode(high).timestamp()));
    assertThat(routing.intervalOf(low)).isEqualTo(routing.intervalAt(LAYOUT.decode(low).timestamp()));
  }

  @Property(tries = 2000)
  void aChildIsAcceptedExactlyWhenItsIntervalIsInItsParentsWindow(@ForAll("routings") IntervalRouting routing,
      @ForAll("ids") long parent, @ForAll("ids") long child) {
    long[] window = routing.parentWindow(parent);
    long interval = routing.intervalOf(child);
    boolean inWindow = interval >= window[0] && interval <= window[1];
    String problem = routing.childProblem(child, parent);
    assertThat(problem == null).as("%s", problem).isEqualTo(inWindow);
    assertThat(window[1] - window[0]).isEqualTo(routing.maxChildLag());
    if (problem != null) {
      assertThat(problem).contains(Long.toString(child), Long.toString(parent));
    }
  }

  @Property(tries = 2000)
  void firstAndLastIdsAtAnInstantBoundItsIdsExactly(@ForAll("ids") long any, @ForAll("ids") long id) {
    Instant t = LAYOUT.decode(any).timestamp().plusNanos(Math.floorMod(id, 1_000_000));
    Instant of = LAYOUT.decode(id).timestamp();
    assertThat(id >= LAYOUT.firstIdAt(t)).isEqualTo(!of.isBefore(t));
    assertThat(id <= LAYOUT.lastIdAt(t)).isEqualTo(!of.isAfter(t));
  }
}
