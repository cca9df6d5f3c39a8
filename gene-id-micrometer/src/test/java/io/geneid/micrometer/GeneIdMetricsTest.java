package io.geneid.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GeneIdMetricsTest {

  private static final long T0 = Instant.parse("2026-03-01T00:00:00Z").toEpochMilli();
  /** S=2: four ids per millisecond per gene. */
  private static final GeneIdLayout LAYOUT = GeneIdLayout.builder().timestampBits(45).workerBits(8).sequenceBits(2)
      .geneBits(8).build();

  private final AtomicLong time = new AtomicLong(T0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void metersFollowTheGeneratorsStats() {
    GeneSnowflakeGenerator generator = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(7).clock(time::get)
        .maxBorrowMillis(10).clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).buildUnshared();
    GeneIdMetrics.of(generator).bindTo(registry);
    Tags tags = Tags.of("worker.id", "7", "layout", "T45-W8-S2-G8", "epoch", "2025-01-01T00:00:00Z");

    assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isZero();
    for (int i = 0; i < 4 * 6; i++) {
      generator.nextId(3); // six milliseconds of gene 3: five borrowed
    }
    assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isEqualTo(24);
    assertThat(millis(GeneIdMetrics.BORROW_DEBT, tags)).isEqualTo(5);

    time.addAndGet(10);
    generator.nextId(1);
    time.addAndGet(-4);
    generator.nextId(2);
    assertThat(counter(GeneIdMetrics.CLOCK_STEPBACKS, tags)).isEqualTo(1);
    assertThat(millis(GeneIdMetrics.CLOCK_STEPBACK_MAX, tags)).isEqualTo(4);
    assertThat(counter(GeneIdMetrics.CLOCK_WAITS, tags)).isZero();
    assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isEqualTo(26);

    long left = LAYOUT.lastTimestamp().toEpochMilli() + 1 - time.get();
    assertThat(millis(GeneIdMetrics.TIMESTAMP_REMAINING, tags)).isCloseTo(left, within(0.5)); // ms -> s -> ms
    assertThat(registry.get(GeneIdMetrics.IDS_ISSUED).functionCounter().getId().getBaseUnit()).isEqualTo("ids");
  }

  @Test
  void bindsEveryRegisteredGeneratorWithExtraTags() {
    GeneIdLayout layout = LAYOUT.toBuilder().epoch(Instant.parse("2025-02-01T00:00:00Z")).build();
    GeneSnowflakeGenerator a = GeneSnowflakeGenerator.builder().layout(layout).workerId(1).build();
    GeneSnowflakeGenerator b = GeneSnowflakeGenerator.builder().layout(layout).workerId(2).build();
    a.nextId();
    b.nextId();
    b.nextId();
    GeneIdMetrics metrics = GeneIdMetrics.registered().withTags(Tags.of("application", "orders"));
    metrics.bindTo(registry);
    metrics.bindTo(registry); // binding again registers nothing twice

    Collection<Meter> issued = registry.find(GeneIdMetrics.IDS_ISSUED).tag("epoch", "2025-02-01T00:00:00Z").meters();
    assertThat(issued).hasSize(2);
    assertThat(registry.get(GeneIdMetrics.IDS_ISSUED).tags("worker.id", "1", "application", "orders")
        .functionCounter().count()).isEqualTo(1);
    assertThat(registry.get(GeneIdMetrics.IDS_ISSUED).tags("worker.id", "2", "application", "orders")
        .functionCounter().count()).isEqualTo(2);
    assertThat(GeneIdRegistry.all()).contains(a, b);
    assertThat(registry.getMeters()).hasSize(6 * GeneIdRegistry.all().size());
  }

  private double counter(String name, Tags tags) {
    FunctionCounter counter = registry.get(name).tags(tags).functionCounter();
    return counter.count();
  }

  private double millis(String name, Tags tags) {
    TimeGauge gauge = registry.get(name).tags(tags).timeGauge();
    return gauge.value(TimeUnit.MILLISECONDS);
  }
}
