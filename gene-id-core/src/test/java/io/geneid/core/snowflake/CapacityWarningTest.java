package io.geneid.core.snowflake;

import io.geneid.core.GeneClock;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.testing.CapturingLoggerFinder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CapacityWarningTest {

  private static final String LOGGER = "io.geneid.core.snowflake.GeneSnowflakeGenerator";

  /** T=39 from 2025-01-01: the timestamp field runs out in 2042-06-03. */
  private static GeneIdLayout shortLayout(String epoch) {
    return GeneIdLayout.builder().epoch(Instant.parse(epoch)).timestampBits(39).workerBits(8).sequenceBits(10)
        .geneBits(6).build();
  }

  @Test
  void javaScriptSafeUntilIsTheFirstMillisecondWhoseIdsExceed2Pow53() {
    GeneIdLayout layout = GeneIdLayout.defaults();
    Instant until = layout.javaScriptSafeUntil();
    assertThat(until).isEqualTo(Instant.parse("2025-01-25T20:31:23.648Z"));
    long maxSafe = (1L << 53) - 1;
    long lastSafe = layout.encode(new GeneIdParts(until.minusMillis(1), layout.maxWorkerId(), layout.maxSequence(),
        layout.maxGene()));
    assertThat(lastSafe).isEqualTo(maxSafe);
    long firstUnsafe = layout.encode(new GeneIdParts(until, 0, 0, 0));
    assertThat(firstUnsafe).isEqualTo(maxSafe + 1);
  }

  @Test
  void warnsWhenTheTimestampFieldRunsOutWithinTheHorizon() {
    GeneIdLayout layout = shortLayout("2025-01-01T00:00:00Z");
    assertThat(layout.lastTimestamp()).isEqualTo(Instant.parse("2042-06-03T21:56:53.887Z"));

    assertThat(layout.capacityWarning(Instant.parse("2030-01-01T00:00:00Z"), Duration.ofDays(5 * 365))).isEmpty();
    assertThat(layout.capacityWarning(Instant.parse("2040-01-01T00:00:00Z"), Duration.ofDays(5 * 365)))
        .contains("the timestamp field of GeneIdLayout[epoch=2025-01-01T00:00:00Z, T=39, W=8, S=10, G=6]"
            + " runs out at 2042-06-03T21:56:53.888Z, in 884 days (capacity warning horizon 1825 days):"
            + " no id can be issued after that; plan the move to a layout with more timestampBits or a later epoch"
            + " before then");
    assertThat(layout.capacityWarning(Instant.parse("2043-01-01T00:00:00Z"), Duration.ofDays(1)))
        .hasValueSatisfying(w -> assertThat(w).contains(" ran out at 2042-06-03T21:56:53.888Z (capacity"));
    assertThat(layout.capacityWarning(Instant.parse("2042-06-03T00:00:00Z"), Duration.ZERO)).isEmpty();
    assertThatThrownBy(() -> layout.capacityWarning(Instant.now(), Duration.ofDays(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity warning horizon must not be negative but was PT-24H");
  }

  @Test
  void warnsOncePerLayout() {
    GeneIdLayout layout = shortLayout("2025-01-02T00:00:00Z");
    System.Logger logger = new CapturingLoggerFinder.Capturing("test.warnsOncePerLayout");
    Instant late = Instant.parse("2041-01-01T00:00:00Z");
    assertThat(CapacityWarning.warnOnce(layout, late, Duration.ofDays(5 * 365), logger)).isTrue();
    assertThat(CapacityWarning.warnOnce(layout, late, Duration.ofDays(5 * 365), logger)).isFalse();
    assertThat(CapturingLoggerFinder.of("test.warnsOncePerLayout")).singleElement().satisfies(e -> {
      assertThat(e.level()).isEqualTo(System.Logger.Level.WARNING);
      assertThat(e.message()).startsWith("the timestamp field of GeneIdLayout[epoch=2025-01-02T00:00:00Z");
    });
  }

  @Test
  void buildingAGeneratorLogsTheWarningThroughSystemLogger() {
    GeneIdLayout layout = shortLayout("2025-01-03T00:00:00Z");
    GeneClock in2040 = () -> Instant.parse("2040-01-01T00:00:00Z").toEpochMilli();
    GeneSnowflakeGenerator.builder().layout(layout).workerId(1).clock(in2040).buildUnshared();
    GeneSnowflakeGenerator.builder().layout(layout).workerId(2).clock(in2040).buildUnshared();

    assertThat(warningsAbout(layout)).singleElement().satisfies(e -> {
      assertThat(e.level()).isEqualTo(System.Logger.Level.WARNING);
      assertThat(e.message()).contains("runs out at 2042-06-05T21:56:53.888Z, in 886 days (capacity warning"
          + " horizon 1826 days)");
    });
  }

  @Test
  void noWarningOutsideTheHorizonOrWhenTurnedOff() {
    GeneIdLayout layout = shortLayout("2025-01-04T00:00:00Z");
    GeneSnowflakeGenerator.builder().layout(layout).workerId(1)
        .clock(() -> Instant.parse("2030-01-01T00:00:00Z").toEpochMilli()).buildUnshared();
    GeneSnowflakeGenerator.builder().layout(layout).workerId(2).capacityWarningHorizon(Duration.ZERO)
        .clock(() -> Instant.parse("2042-01-01T00:00:00Z").toEpochMilli()).buildUnshared();
    assertThat(warningsAbout(layout)).isEmpty();
  }

  @Test
  void theBuilderHorizonWins() {
    GeneIdLayout layout = shortLayout("2025-01-05T00:00:00Z");
    GeneSnowflakeGenerator.builder().layout(layout).workerId(1).capacityWarningHorizon(Duration.ofDays(20 * 365))
        .clock(() -> Instant.parse("2030-01-01T00:00:00Z").toEpochMilli()).buildUnshared();
    assertThat(warningsAbout(layout)).singleElement().satisfies(e ->
        assertThat(e.message()).contains("(capacity warning horizon 7300 days)"));
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().capacityWarningHorizon(Duration.ofDays(-2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacityWarningHorizon must not be negative but was PT-48H");
  }

  @Test
  void theSystemPropertySetsTheDefaultHorizon() {
    GeneIdLayout layout = shortLayout("2025-01-06T00:00:00Z");
    String before = System.getProperty(CapacityWarning.HORIZON_PROPERTY);
    try {
      System.setProperty(CapacityWarning.HORIZON_PROPERTY, "P20Y");
      GeneSnowflakeGenerator.builder().layout(layout).workerId(1)
          .clock(() -> Instant.parse("2030-01-01T00:00:00Z").toEpochMilli()).buildUnshared();
      assertThat(warningsAbout(layout)).singleElement().satisfies(e ->
          assertThat(e.message()).contains("(capacity warning horizon 7305 days)"));

      System.setProperty(CapacityWarning.HORIZON_PROPERTY, "5 years");
      assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().layout(layout).workerId(2).buildUnshared())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("geneid.capacity-warning-horizon must be an ISO-8601 duration such as P5Y, P180D or PT12H"
              + " but was '5 years'");
    } finally {
      if (before == null) {
        System.clearProperty(CapacityWarning.HORIZON_PROPERTY);
      } else {
        System.setProperty(CapacityWarning.HORIZON_PROPERTY, before);
      }
    }
  }

  @Test
  void parsesDurationsAndPeriods() {
    assertThat(CapacityWarning.parse("h", "P5Y")).isEqualTo(Duration.ofHours(5 * 8766));
    assertThat(CapacityWarning.parse("h", "P6M")).isEqualTo(Duration.ofHours(4383));
    assertThat(CapacityWarning.parse("h", "P180D")).isEqualTo(Duration.ofDays(180));
    assertThat(CapacityWarning.parse("h", " PT12H ")).isEqualTo(Duration.ofHours(12));
    assertThat(CapacityWarning.parse("h", "PT0S")).isEqualTo(Duration.ZERO);
    assertThatThrownBy(() -> CapacityWarning.parse("h", "-P1D"))
        .hasMessage("h must not be negative but was '-P1D'");
    assertThat(GeneSnowflakeGenerator.Builder.DEFAULT_CAPACITY_WARNING_HORIZON).isEqualTo(CapacityWarning.parse("h",
        "P5Y"));
  }

  private static List<CapturingLoggerFinder.Entry> warningsAbout(GeneIdLayout layout) {
    return CapturingLoggerFinder.of(LOGGER).stream().filter(e -> e.message().contains(layout.toString())).toList();
  }
}
