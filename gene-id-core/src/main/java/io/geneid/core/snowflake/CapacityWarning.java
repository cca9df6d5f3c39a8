package io.geneid.core.snowflake;

import io.geneid.core.GeneIdLayout;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.Period;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/** The start-up warning about a layout whose timestamp field runs out soon, logged once per layout per JVM. */
final class CapacityWarning {

  /** System property giving the default horizon, as an ISO-8601 duration ({@code P5Y}, {@code P180D}). */
  static final String HORIZON_PROPERTY = "geneid.capacity-warning-horizon";

  private static final Set<GeneIdLayout> WARNED = ConcurrentHashMap.newKeySet();
  private static final Logger LOG = System.getLogger(GeneSnowflakeGenerator.class.getName());

  private CapacityWarning() {}

  /** Logs the warning of {@code layout} at WARNING unless one was logged for it before; true if it logged now. */
  static boolean warnOnce(GeneIdLayout layout, Instant now, Duration horizon) {
    return warnOnce(layout, now, horizon, LOG);
  }

  static boolean warnOnce(GeneIdLayout layout, Instant now, Duration horizon, Logger logger) {
    Optional<String> warning = layout.capacityWarning(now, horizon);
    if (warning.isEmpty() || !WARNED.add(layout)) {
      return false;
    }
    logger.log(Level.WARNING, warning.get());
    return true;
  }

  /** The configured horizon, else the system property, else the default. */
  static Duration horizon(@Nullable Duration configured) {
    if (configured != null) {
      return configured;
    }
    String property = System.getProperty(HORIZON_PROPERTY);
    return property == null
        ? GeneSnowflakeGenerator.Builder.DEFAULT_CAPACITY_WARNING_HORIZON
        : parse(HORIZON_PROPERTY, property);
  }

  /**
   * An ISO-8601 duration ({@code PT12H}, {@code P30D}) or period ({@code P5Y}, {@code P18M}); a year counts 365.25
   * days and a month a twelfth of that, as in {@link GeneIdLayout#years()}.
   */
  static Duration parse(String name, String text) {
    String value = text.trim();
    Duration horizon;
    try {
      horizon = Duration.parse(value);
    } catch (DateTimeParseException notDuration) {
      try {
        Period period = Period.parse(value);
        long hours = Math.round(period.toTotalMonths() * 365.25 * 24 / 12) + period.getDays() * 24L;
        horizon = Duration.ofHours(hours);
      } catch (DateTimeParseException | ArithmeticException notPeriod) {
        throw new IllegalArgumentException(
            name + " must be an ISO-8601 duration such as P5Y, P180D or PT12H but was '" + text + "'");
      }
    }
    if (horizon.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative but was '" + text + "'");
    }
    return horizon;
  }
}
