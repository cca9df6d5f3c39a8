package io.geneid.core.snowflake;

import io.geneid.core.settings.SettingsReader;
import java.time.Duration;

/**
 * The snowflake generators' own settings read from kebab-case properties ({@link SettingsReader} reads what every
 * generator shares: the layout, string ids): {@value SettingsReader#MAX_BORROW_MILLIS} and
 * {@value SettingsReader#CLOCK_BACKWARDS_MAX_WAIT}.
 */
public final class SnowflakeSettings {

  private SnowflakeSettings() {}

  /**
   * {@value SettingsReader#MAX_BORROW_MILLIS}: how far a gene may run ahead of the clock, in [0,
   * {@value GeneSnowflakeGenerator.Builder#MAX_MAX_BORROW_MILLIS}], default
   * {@value GeneSnowflakeGenerator.Builder#DEFAULT_MAX_BORROW_MILLIS}.
   *
   * @throws IllegalArgumentException naming the key, the value and the range
   */
  public static long maxBorrowMillis(SettingsReader props) {
    return props.longValue(SettingsReader.MAX_BORROW_MILLIS, 0, GeneSnowflakeGenerator.Builder.MAX_MAX_BORROW_MILLIS,
        GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS);
  }

  /**
   * {@value SettingsReader#CLOCK_BACKWARDS_MAX_WAIT}: how long a caller waits for a clock that stepped back, in
   * [0, 1 h], default that of {@link ClockBackwardsPolicy#DEFAULT}.
   *
   * @throws IllegalArgumentException naming the key, the value and the range
   */
  public static ClockBackwardsPolicy clockBackwardsPolicy(SettingsReader props) {
    return ClockBackwardsPolicy.waitUpTo(props.duration(SettingsReader.CLOCK_BACKWARDS_MAX_WAIT, Duration.ZERO,
        Duration.ofHours(1), ClockBackwardsPolicy.DEFAULT.maxWait()));
  }
}
