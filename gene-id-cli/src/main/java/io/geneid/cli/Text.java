package io.geneid.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Formatting shared by the commands. */
final class Text {

  private static final int LABEL_WIDTH = 27;
  private static final DateTimeFormatter UTC =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSxxx", Locale.ROOT);
  static final double MILLIS_PER_YEAR = 365.25 * 24 * 3600 * 1000;

  private Text() {}

  /** A label padded to a column, then the value. */
  static String row(String label, String value) {
    return String.format(Locale.ROOT, "%-" + LABEL_WIDTH + "s%s", label, value);
  }

  /** {@code target 3} or {@code targets 0 to 3}. */
  static String range(String noun, long from, long to) {
    return from == to ? noun + " " + from : noun + "s " + from + " to " + to;
  }

  /** 2025-01-01T00:00:00.000Z: always with milliseconds, so columns line up. */
  static String utc(Instant instant) {
    return UTC.format(instant);
  }

  /** 2025-01-01T08:00:00.000+08:00 Asia/Shanghai. */
  static String local(Instant instant, ZoneId zone) {
    return LOCAL.format(instant.atZone(zone)) + " " + zone;
  }

  /** 1,234,567. */
  static String number(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  /** A human duration: days or years. */
  static String duration(Duration d) {
    long days = d.toDays();
    if (days >= 365) {
      return String.format(Locale.ROOT, "%.1f years", d.toMillis() / MILLIS_PER_YEAR);
    }
    if (days >= 1) {
      return days + (days == 1 ? " day" : " days");
    }
    long minutes = d.toMinutes();
    return minutes >= 1 ? minutes + " min" : d.toMillis() + " ms";
  }
}
