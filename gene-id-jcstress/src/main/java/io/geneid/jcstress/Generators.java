package io.geneid.jcstress;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneClock;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.time.Duration;
import java.util.Arrays;

/** The generators the tests race on, and the one check every test makes: how many distinct ids came out. */
final class Generators {

  /** Two ids per gene per millisecond (S = 1), so a few calls already roll into borrowed milliseconds. */
  static final GeneIdLayout NARROW = GeneIdLayout.builder().timestampBits(48).workerBits(8).sequenceBits(1)
      .geneBits(6).build();
  /** Two genes (G = 1) of two ids per millisecond each: two threads walking the genes meet on both at once. */
  static final GeneIdLayout TWO_GENES = GeneIdLayout.builder().timestampBits(53).workerBits(8).sequenceBits(1)
      .geneBits(1).build();
  /** A fixed "now", one second after the epoch. */
  static final long NOW = NARROW.epoch().toEpochMilli() + 1_000;
  /** The gene every actor asks for. */
  static final long GENE = 43;

  private Generators() {}

  /**
   * A generator of its own on {@code clock}. {@code buildUnshared()} takes no JVM-wide claim: jcstress creates many
   * state objects at once, each the only user of its generator.
   */
  static GeneSnowflakeGenerator generator(GeneClock clock, long maxBorrowMillis) {
    return GeneSnowflakeGenerator.builder().layout(NARROW).workerId(7).clock(clock).maxBorrowMillis(maxBorrowMillis)
        .capacityWarningHorizon(Duration.ZERO).buildUnshared();
  }

  /**
   * A generator of its own on {@link GeneClock#system()}, which issues an id of a millisecond under way at the reading
   * the clock thread keeps (the path of production), borrowing up to 10 ms.
   */
  static GeneSnowflakeGenerator systemClock(GeneIdLayout layout) {
    return GeneSnowflakeGenerator.builder().layout(layout).workerId(7).maxBorrowMillis(10)
        .capacityWarningHorizon(Duration.ZERO).buildUnshared();
  }

  /** The number of distinct values among {@code ids}. */
  static int distinct(long... ids) {
    return (int) Arrays.stream(ids).distinct().count();
  }
}
