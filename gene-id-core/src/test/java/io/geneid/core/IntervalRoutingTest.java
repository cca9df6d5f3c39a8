package io.geneid.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The interval of an id's own timestamp, its table suffix, and every setting checked with a message naming it. */
class IntervalRoutingTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  private static final IntervalRouting MONTHS = IntervalRouting.builder().lower(LocalDateTime.of(2026, 1, 1, 0, 0))
      .unit(ChronoUnit.MONTHS).build();

  private static long idAt(String instant) {
    return LAYOUT.firstIdAt(Instant.parse(instant));
  }

  private static IntervalRouting read(Object... keyValues) {
    Map<String, Object> props = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put((String) keyValues[i], keyValues[i + 1]);
    }
    return IntervalRouting.from(SettingsReader.of(props).ownedBy("GENE_INTERVAL"));
  }

  @Test
  void theIntervalOfAnIdIsTheMonthOfItsOwnTimestamp() {
    long lastOfNovember = LAYOUT.lastIdAt(Instant.parse("2026-11-30T23:59:59.999Z"));
    long firstOfDecember = idAt("2026-12-01T00:00:00Z");
    assertThat(lastOfNovember + 1).isEqualTo(firstOfDecember);
    assertThat(MONTHS.intervalOf(lastOfNovember)).isEqualTo(10);
    assertThat(MONTHS.suffixOf(lastOfNovember)).isEqualTo("202611");
    assertThat(MONTHS.intervalOf(firstOfDecember)).isEqualTo(11);
    assertThat(MONTHS.suffixOf(firstOfDecember)).isEqualTo("202612");
    assertThat(MONTHS.start(11)).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
    assertThat(MONTHS.end(11)).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
    assertThat(MONTHS.suffix(12)).isEqualTo("202701");
    // before datetime-lower: negative, and described as such
    long december2025 = idAt("2025-12-31T23:59:59Z");
    assertThat(MONTHS.intervalOf(december2025)).isEqualTo(-1);
    assertThat(MONTHS.inRange(-1)).isFalse();
    assertThat(MONTHS.describe(-1)).isEqualTo("202512 (before datetime-lower 2026-01-01T00:00)");
    assertThatThrownBy(() -> MONTHS.intervalOf(-5)).hasMessage("id must not be negative but was -5");
  }

  @Test
  void aZoneMovesTheBoundaryToItsLocalMidnight() {
    IntervalRouting shanghai = MONTHS.toBuilder().zone(ZoneId.of("Asia/Shanghai")).build();
    long id = idAt("2026-11-30T16:00:00Z"); // 2026-12-01 00:00 in Shanghai
    assertThat(MONTHS.suffixOf(id)).isEqualTo("202611");
    assertThat(shanghai.suffixOf(id)).isEqualTo("202612");
    assertThat(shanghai.suffixOf(id - 1)).isEqualTo("202611");
  }

  @Test
  void targetsReadBackAsTheirInterval() {
    assertThat(MONTHS.intervalOfTarget("t_item_202611")).hasValue(10);
    assertThat(MONTHS.intervalOfTarget("t_item_202701")).hasValue(12);
    assertThat(MONTHS.intervalOfTarget("t_item_202512")).hasValue(-1);
    assertThat(MONTHS.intervalOfTarget("t_item_202613")).isEmpty();
    assertThat(MONTHS.intervalOfTarget("t_item_0")).isEmpty();
    assertThat(MONTHS.intervalOfTarget("t_item")).isEmpty();
    IntervalRouting quarters = MONTHS.toBuilder().amount(3).build();
    assertThat(quarters.intervalOfTarget("t_item_202610")).hasValue(3);
    assertThat(quarters.intervalOfTarget("t_item_202611")).as("not the start of a quarter").isEmpty();
    IntervalRouting days = IntervalRouting.builder().lower(LocalDateTime.of(2026, 1, 1, 0, 0)).build();
    assertThat(days.suffixPattern()).isEqualTo("yyyyMMdd");
    assertThat(days.intervalOfTarget("t_20260201")).hasValue(31);
  }

  @Test
  void aParentsWindowIsItsIntervalAndTheLagAfterIt() {
    long order = idAt("2026-10-31T23:59:59Z");
    assertThat(MONTHS.parentWindow(order)).containsExactly(9, 10);
    assertThat(MONTHS.childProblem(idAt("2026-11-30T12:00:00Z"), order)).isNull();
    assertThat(MONTHS.childProblem(order, order)).isNull();
    long tooLate = idAt("2026-12-01T00:00:00Z");
    assertThat(MONTHS.childProblem(tooLate, order)).isEqualTo("child id " + tooLate
        + " (2026-12-01T00:00:00Z, interval 202612) lies 2 intervals after its parent's id " + order
        + " (2026-10-31T23:59:59Z, interval 202610), more than max-child-lag = 1 allows: a lookup by the parent's id"
        + " reads only 202610..202611 and would not find it; raise max-child-lag (lookups by parent then read more"
        + " tables) or give the child a newer parent");
    long before = idAt("2026-09-30T23:59:59Z");
    assertThat(MONTHS.childProblem(before, order)).startsWith("child id " + before
        + " (2026-09-30T23:59:59Z, interval 202609) lies before its parent's id");
    assertThat(MONTHS.toBuilder().maxChildLag(2).build().childProblem(tooLate, order)).isNull();
  }

  @Test
  void firstAndLastIdsAtAnInstantBoundTheIdsOfThatTime() {
    Instant t = Instant.parse("2026-11-01T00:00:00Z");
    long first = LAYOUT.firstIdAt(t);
    assertThat(LAYOUT.decode(first)).isEqualTo(new GeneIdParts(t, 0, 0, 0));
    assertThat(LAYOUT.decode(LAYOUT.lastIdAt(t))).isEqualTo(new GeneIdParts(t, 255, 255, 63));
    // sub-millisecond instants: first rounds up, last rounds down
    Instant half = t.plusNanos(500_000);
    assertThat(LAYOUT.firstIdAt(half)).isEqualTo(LAYOUT.firstIdAt(t.plusMillis(1)));
    assertThat(LAYOUT.lastIdAt(half)).isEqualTo(LAYOUT.lastIdAt(t));
    // out of the layout: every id is later / earlier, or none is
    assertThat(LAYOUT.firstIdAt(Instant.parse("2000-01-01T00:00:00Z"))).isZero();
    assertThat(LAYOUT.lastIdAt(Instant.parse("2200-01-01T00:00:00Z"))).isEqualTo(Long.MAX_VALUE);
    assertThat(LAYOUT.lastIdAt(Instant.MAX)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> LAYOUT.firstIdAt(Instant.parse("2200-01-01T00:00:00Z")))
        .hasMessage("no id is issued at or after 2200-01-01T00:00:00Z: the last timestamp of " + LAYOUT + " is"
            + " 2094-09-07T15:47:35.551Z");
    assertThatThrownBy(() -> LAYOUT.lastIdAt(Instant.parse("2024-12-31T23:59:59Z")))
        .hasMessage("no id is issued at or before 2024-12-31T23:59:59Z: the epoch of " + LAYOUT + " is"
            + " 2025-01-01T00:00:00Z");
  }

  @Test
  void propertiesAreReadAsShardingSpheresIntervalSpellsThem() {
    IntervalRouting r = read("datetime-lower", "2026-01-01 00:00:00", "datetime-upper", "2026-12-31 23:59:59",
        "datetime-interval-unit", "Months", "sharding-suffix-pattern", "yyyyMM", "max-child-lag", "2",
        "datetime-zone", "Asia/Shanghai");
    assertThat(r.lower()).isEqualTo(LocalDateTime.of(2026, 1, 1, 0, 0));
    assertThat(r.upper()).isEqualTo(LocalDateTime.of(2026, 12, 31, 23, 59, 59));
    assertThat(r.lastInterval()).isEqualTo(11);
    assertThat(r.unit()).isEqualTo(ChronoUnit.MONTHS);
    assertThat(r.maxChildLag()).isEqualTo(2);
    assertThat(r.toString()).isEqualTo("datetime-lower=2026-01-01T00:00, datetime-upper=2026-12-31T23:59:59,"
        + " datetime-interval-amount=1, datetime-interval-unit=MONTHS, sharding-suffix-pattern=yyyyMM,"
        + " datetime-zone=Asia/Shanghai, max-child-lag=2");
    assertThat(read("datetime-lower", "2026-01-01", "datetime-pattern", "yyyy-MM-dd").lower())
        .isEqualTo(LocalDateTime.of(2026, 1, 1, 0, 0));
    // an unquoted YAML timestamp arrives as a Date, or as its toString(): read as written (UTC fields)
    Date date = Date.from(Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(read("datetime-lower", date, "datetime-interval-unit", "MONTHS").lower())
        .isEqualTo(LocalDateTime.of(2026, 3, 1, 0, 0));
    assertThat(read("datetime-lower", date.toString(), "datetime-interval-unit", "MONTHS").lower())
        .isEqualTo(LocalDateTime.of(2026, 3, 1, 0, 0));
    assertThat(read("datetime-lower", "2026-01-01 00:00:00", "gene-bits", "4", "worker-bits", "10").layout())
        .isEqualTo(LAYOUT.toBuilder().geneBits(4).workerBits(10).build());
  }

  @Test
  void everyBadSettingIsNamedWithItsValueAndWhatIsAllowed() {
    assertThatThrownBy(() -> read()).isInstanceOf(InvalidSettingException.class).hasMessage(
        "GENE_INTERVAL property 'datetime-lower' is required: a date-time in datetime-pattern"
            + " 'yyyy-MM-dd HH:mm:ss', such as 2026-01-01 00:00:00");
    assertThatThrownBy(() -> read("datetime-lower", "2026/01/01")).hasMessage(
        "GENE_INTERVAL property 'datetime-lower' must be a date-time in datetime-pattern"
            + " 'yyyy-MM-dd HH:mm:ss', such as 2026-01-01 00:00:00 but was '2026/01/01'");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-15 00:00:00", "datetime-interval-unit", "MONTHS"))
        .hasMessage("GENE_INTERVAL property 'datetime-lower' must be the start of a month (day 1, 00:00:00) for"
            + " datetime-interval-unit MONTHS but was '2026-01-15T00:00'");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "datetime-upper", "2025-01-01 00:00:00"))
        .hasMessage("GENE_INTERVAL property 'datetime-upper' must be at or after datetime-lower (2026-01-01T00:00)"
            + " but was '2025-01-01T00:00'");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "datetime-interval-unit", "SECONDS"))
        .hasMessage("GENE_INTERVAL property 'datetime-interval-unit' must be one of [Hours, Days, Weeks, Months,"
            + " Years] but was 'SECONDS'");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "datetime-interval-amount", "0"))
        .hasMessage("GENE_INTERVAL property 'datetime-interval-amount' must be in [1, 1000] but was 0");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "max-child-lag", "-1"))
        .hasMessage("GENE_INTERVAL property 'max-child-lag' must be in [0, 1000] but was -1");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "datetime-zone", "Mars/Olympus"))
        .hasMessage("GENE_INTERVAL property 'datetime-zone' must be a time zone such as UTC, +08:00 or"
            + " Asia/Shanghai but was 'Mars/Olympus'");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "datetime-interval-unit", "MONTHS",
        "sharding-suffix-pattern", "MM")).hasMessage("GENE_INTERVAL property 'sharding-suffix-pattern' must be a"
            + " pattern that names each interval of 1 MONTHS by its start, in one length, such as yyyyMM ('01', the"
            + " suffix of the interval from 2026-01-01T00:00, does not read back as a start) but was 'MM'");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "datetime-interval-unit", "MONTHS",
        "sharding-suffix-pattern", "yyyy")).hasMessage("GENE_INTERVAL property 'sharding-suffix-pattern' must be a"
            + " pattern that names each interval of 1 MONTHS by its start, in one length, such as yyyyMM ('2026', the"
            + " suffix of the interval from 2026-02-01T00:00, reads back as the interval from 2026-01-01T00:00) but"
            + " was 'yyyy'");
    assertThatThrownBy(() -> read("datetime-lower", "2026-01-01 00:00:00", "sharding-suffix-pattern", "yyyyMMdd{"))
        .hasMessageStartingWith("GENE_INTERVAL property 'sharding-suffix-pattern' must be a date-time pattern such"
            + " as yyyyMMdd (java.time.format.DateTimeFormatter) but was 'yyyyMMdd{'");
  }
}
