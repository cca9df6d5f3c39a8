package io.geneid.core.snowflake;

import io.geneid.core.settings.InvalidSettingException;

import java.time.Duration;

/**
 * What a {@link GeneSnowflakeGenerator} does when its clock reads further behind the last timestamp a gene issued
 * than the generator may borrow ({@code maxBorrowMillis}). Smaller steps back are always absorbed: the gene keeps
 * issuing at its last timestamp, exactly as it does when it borrows time on sequence overflow.
 *
 * <p>The default clock, {@link io.geneid.core.GeneClock#system()}, never goes backwards inside a process, so the policy only
 * matters for a wall clock such as {@link io.geneid.core.GeneClock#wall()}. Either way no id is ever issued twice.
 *
 * @param maxWait how long a caller waits for the clock to catch up before {@link ClockMovedBackwardsException};
 *     {@link Duration#ZERO} fails at once
 */
public record ClockBackwardsPolicy(Duration maxWait) {

  /** Fail at once with {@link ClockMovedBackwardsException}. */
  public static final ClockBackwardsPolicy FAIL = new ClockBackwardsPolicy(Duration.ZERO);

  /** The default: wait up to one second for the clock, then fail. */
  public static final ClockBackwardsPolicy DEFAULT = new ClockBackwardsPolicy(Duration.ofSeconds(1));

  public ClockBackwardsPolicy {
    if (maxWait.isNegative()) {
      throw new InvalidSettingException("maxWait", maxWait.toString(), "zero or more");
    }
  }

  /** Wait up to {@code maxWait} for the clock to catch up, then fail. */
  public static ClockBackwardsPolicy waitUpTo(Duration maxWait) {
    return new ClockBackwardsPolicy(maxWait);
  }
}
