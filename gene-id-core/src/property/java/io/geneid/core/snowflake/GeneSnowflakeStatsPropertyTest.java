package io.geneid.core.snowflake;

import io.geneid.core.GeneClock;

import io.geneid.core.GeneIdLayout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class GeneSnowflakeStatsPropertyTest {

  /**
   * Whatever the layout and however the clock moves (ticks, steps back within and beyond the borrowing bound),
   * {@code idsIssued} is exactly the number of ids handed out, and the step-back count never exceeds the steps.
   */
  @Property(tries = 150)
  void idsIssuedCountsExactly(@ForAll @IntRange(min = 0, max = 6) int sequenceBits,
      @ForAll @IntRange(min = 0, max = 16) int geneBits,
      @ForAll @Size(max = 400) List<@IntRange(min = 0, max = 99) Integer> ops) {
    GeneIdLayout layout = GeneIdLayout.builder().timestampBits(63 - 4 - sequenceBits - geneBits).workerBits(4)
        .sequenceBits(sequenceBits).geneBits(geneBits).build();
    AtomicLong manual = new AtomicLong(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    AtomicLong reads = new AtomicLong();
    // the clock also ticks by itself every 50 reads, so a gene waiting for the clock never stalls
    GeneClock clock = () -> manual.get() + reads.incrementAndGet() / 50;
    GeneSnowflakeGenerator generator = GeneSnowflakeGenerator.builder().layout(layout).workerId(5).clock(clock)
        .maxBorrowMillis(4).clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).capacityWarningHorizon(
            java.time.Duration.ZERO).buildUnshared();
    if (ops.size() % 3 == 0) {
      generator.advancePast(manual.get() + 3);
    }
    long issued = 0;
    long steps = 0;
    for (int op : ops) {
      if (op < 70) {
        try {
          generator.nextId((op * 7919L) & layout.maxGene());
          issued++;
        } catch (ClockMovedBackwardsException e) {
          // the policy refused: no id
        }
      } else if (op < 95) {
        manual.addAndGet(op % 3);
      } else {
        manual.addAndGet(-(op - 93)); // 2 to 6 ms back
        steps++;
      }
    }
    GeneSnowflakeStats stats = generator.stats();
    assertThat(stats.idsIssued()).isEqualTo(issued);
    assertThat(stats.clockStepBacks()).isLessThanOrEqualTo(steps);
    assertThat(stats.borrowDebt().isNegative()).isFalse();
  }
}
