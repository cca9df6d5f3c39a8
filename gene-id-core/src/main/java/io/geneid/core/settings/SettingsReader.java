package io.geneid.core.settings;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads settings from a key-value map, validating each value once with a message that names the key as the user
 * wrote it, the allowed range and the value. Values may be text (as ShardingSphere and the command line hand them
 * over) or already typed (a {@link Number}, {@link Boolean}, {@link Duration}, {@link Instant} or {@link Date}, as
 * Spring Boot binds them and as YAML reads unquoted numbers and dates): both are read with the same rules, so a
 * setting means the same wherever it is written.
 *
 * <p>Grammars, the same everywhere:
 * <ul>
 *   <li>whole numbers: decimal text or an integral {@link Number};
 *   <li>durations: {@code 1500ms}, {@code 30s}, {@code 10m}, {@code 1h}, plain milliseconds, or ISO-8601
 *       {@code PT30S};
 *   <li>epochs: an ISO-8601 instant or offset date-time, a date ({@code 2025-01-01}, midnight UTC), Unix
 *       milliseconds from 2000 on (earlier ones are almost surely seconds and are refused), or a {@link Date}
 *       (an unquoted YAML date), also as its {@code toString()} text;
 *   <li>booleans: {@code true} or {@code false}, any case.
 * </ul>
 *
 * <p>Instances are immutable; {@link #named(UnaryOperator)} returns a reader that names keys differently.
 */
public final class SettingsReader {

  /** Key of the layout's epoch. */
  public static final String EPOCH = "epoch";
  /** Key of T, the timestamp bits. */
  public static final String TIMESTAMP_BITS = "timestamp-bits";
  /** Key of W, the worker bits. */
  public static final String WORKER_BITS = "worker-bits";
  /** Key of S, the sequence bits. */
  public static final String SEQUENCE_BITS = "sequence-bits";
  /** Key of G, the gene bits. */
  public static final String GENE_BITS = "gene-bits";
  /** Key of how far a gene may run ahead of the clock, in milliseconds (the snowflake generators). */
  public static final String MAX_BORROW_MILLIS = "max-borrow-millis";
  /** Key of how long a caller waits for a clock that stepped back (the snowflake generators). */
  public static final String CLOCK_BACKWARDS_MAX_WAIT = "clock-backwards-max-wait";
  /** Key of whether ids are strings ({@code true}/{@code false}; {@code GeneIdStringFormat.from}). */
  public static final String STRING_IDS = "string-ids";
  /** Key of the prefix of string ids. */
  public static final String STRING_ID_PREFIX = "string-id-prefix";
  /** Key of whether string ids carry a date part ({@code true}/{@code false}). */
  public static final String STRING_ID_DATE = "string-id-date";
  /** The keys of string ids. */
  public static final java.util.List<String> STRING_ID_KEYS = java.util.List.of(STRING_IDS, STRING_ID_PREFIX,
      STRING_ID_DATE);

  /** Epochs in milliseconds must not be earlier: an earlier one was almost surely written in seconds. */
  static final Instant EARLIEST_MILLIS_EPOCH = Instant.parse("2000-01-01T00:00:00Z");

  private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h)?");
  /** The text of {@link Date#toString()}, which ShardingSphere hands over for an unquoted YAML timestamp. */
  private static final DateTimeFormatter DATE_TO_STRING =
      DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss zzz yyyy", Locale.US);

  private final Map<String, Object> values;
  private final String owner;
  private final UnaryOperator<String> nameOf;

  private SettingsReader(Map<String, Object> values, String owner, UnaryOperator<String> nameOf) {
    this.values = values;
    this.owner = owner;
    this.nameOf = nameOf;
  }

  /**
   * A reader of {@code values} (keys as text; {@code null} values count as absent) whose messages name each key as
   * it is.
   */
  public static SettingsReader of(Map<?, ?> values) {
    Map<String, Object> copy = new LinkedHashMap<>();
    values.forEach((k, v) -> {
      if (v != null) {
        copy.put(String.valueOf(k), v);
      }
    });
    return new SettingsReader(Map.copyOf(copy), "", UnaryOperator.identity());
  }

  /**
   * This reader, naming key {@code k} in its messages as {@code nameOf.apply(k)} ({@code gene-id.lease.ttl} for
   * Spring Boot's {@code lease-ttl}).
   */
  public SettingsReader named(UnaryOperator<String> nameOf) {
    return new SettingsReader(values, owner, Objects.requireNonNull(nameOf));
  }

  /**
   * This reader, naming key {@code k} in its messages as {@code <owner> property '<k>'}: {@code GENE_SNOWFLAKE
   * property 'lease-ttl'} for a ShardingSphere algorithm's properties.
   */
  public SettingsReader ownedBy(String owner) {
    return new SettingsReader(values, Objects.requireNonNull(owner), nameOf);
  }

  /** {@code e} naming its keys as this reader does ({@link #nameOf(String)}). */
  public InvalidSettingException named(InvalidSettingException e) {
    return e.namedAll(keys -> keys.size() == 1 ? nameOf(keys.get(0))
        : (owner.isEmpty() ? "" : owner + " properties ") + String.join(" + ", keys.stream().map(nameOf).toList()),
        nameOf);
  }

  /**
   * Runs a check of one of this reader's values that throws an {@link InvalidSettingException} keyed by the setting
   * key, and names that key as this reader does.
   */
  public <T> T checked(Supplier<T> check) {
    try {
      return check.get();
    } catch (InvalidSettingException e) {
      throw named(e);
    }
  }

  private InvalidSettingException bad(String key, @Nullable String value, String rule) {
    return named(new InvalidSettingException(key, value, rule));
  }

  /** The name of {@code key} in messages. */
  public String nameOf(String key) {
    String name = nameOf.apply(key);
    return owner.isEmpty() ? name : owner + " property '" + name + "'";
  }

  /** The keys that are set. */
  public java.util.Set<String> keys() {
    return values.keySet();
  }

  /** Whether {@code key} is set. */
  public boolean has(String key) {
    return values.containsKey(key);
  }

  /** The value of {@code key} as given, or {@code null}. */
  public @Nullable Object raw(String key) {
    return values.get(key);
  }

  /**
   * This reader, after checking that every key is in {@code allowed}.
   *
   * @param what what the keys configure, as the user knows it ({@code GENE_SNOWFLAKE},
   *     {@code worker-assigner=redis}); with an {@link #ownedBy(String) owner}, {@code <owner> with <what>}
   * @throws IllegalArgumentException {@code "<what> has no property '<key>'; allowed: <sorted keys>"}
   */
  public SettingsReader requireKnown(Collection<String> allowed, String what) {
    for (String key : values.keySet()) {
      if (!allowed.contains(key)) {
        throw new IllegalArgumentException((owner.isEmpty() ? what : owner + " with " + what) + " has no property '"
            + nameOf.apply(key) + "'; allowed: "
            + String.join(", ", new java.util.LinkedHashSet<>(allowed)));
      }
    }
    return this;
  }

  /** Text, trimmed, or {@code defaultValue} when absent. */
  public String string(String key, String defaultValue) {
    Object v = values.get(key);
    return v == null ? defaultValue : String.valueOf(v).trim();
  }

  /**
   * Text, trimmed.
   *
   * @param what what is expected, for the message ({@code "a Redis URI such as redis://host:6379/0"})
   * @throws IllegalArgumentException {@code "<name> is required: <what>"} when absent or blank
   */
  public String requiredString(String key, String what) {
    String v = string(key, "");
    if (v.isEmpty()) {
      throw bad(key, null, what);
    }
    return v;
  }

  /** A whole number in {@code [min, max]}, or {@code defaultValue} when absent. */
  public long longValue(String key, long min, long max, long defaultValue) {
    return has(key) ? requiredLong(key, min, max) : defaultValue;
  }

  /** A whole number in {@code [min, max]}, as an int; {@code min} and {@code max} must be ints. */
  public int intValue(String key, int min, int max, int defaultValue) {
    return (int) longValue(key, min, max, defaultValue);
  }

  /**
   * A whole number in {@code [min, max]}.
   *
   * @throws IllegalArgumentException naming the key and the range when absent, not a whole number, or out of range
   */
  public long requiredLong(String key, long min, long max) {
    Object raw = values.get(key);
    if (raw == null) {
      throw bad(key, null, "a whole number in [" + min + ", " + max + "]");
    }
    long value;
    if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
      value = ((Number) raw).longValue();
    } else {
      try {
        value = Long.parseLong(String.valueOf(raw).trim());
      } catch (NumberFormatException e) {
        throw named(new InvalidSettingException(key, "'" + raw + "'", "a whole number in [" + min + ", " + max + "]",
            e));
      }
    }
    return range(key, value, min, max);
  }

  /**
   * {@code value} if it lies in {@code [min, max]}.
   *
   * @throws IllegalArgumentException {@code "<name> must be in [<min>, <max>] but was <value>"}
   */
  public long range(String key, long value, long min, long max) {
    try {
      return InvalidSettingException.requireRange(key, value, min, max);
    } catch (InvalidSettingException e) {
      throw named(e);
    }
  }

  /** A number in {@code [min, max]}, or {@code defaultValue} when absent. */
  public double doubleValue(String key, double min, double max, double defaultValue) {
    Object raw = values.get(key);
    if (raw == null) {
      return defaultValue;
    }
    double value;
    try {
      value = raw instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(raw).trim());
    } catch (NumberFormatException e) {
      throw named(new InvalidSettingException(key, "'" + raw + "'", "a number in [" + min + ", " + max + "]", e));
    }
    if (!(value >= min && value <= max)) {
      throw bad(key, String.valueOf(raw), "in [" + min + ", " + max + "]");
    }
    return value;
  }

  /** {@code true} or {@code false}, or {@code defaultValue} when absent. */
  public boolean bool(String key, boolean defaultValue) {
    Object raw = values.get(key);
    if (raw == null) {
      return defaultValue;
    }
    if (raw instanceof Boolean b) {
      return b;
    }
    String t = String.valueOf(raw).trim().toLowerCase(Locale.ROOT);
    if (!t.equals("true") && !t.equals("false")) {
      throw bad(key, "'" + raw + "'", "true or false");
    }
    return t.equals("true");
  }

  /**
   * A duration in {@code [min, max]}, or {@code defaultValue} (unchecked) when absent.
   *
   * @throws IllegalArgumentException naming the key, the grammar or the range in milliseconds, and the value
   */
  public Duration duration(String key, Duration min, Duration max, Duration defaultValue) {
    if (!has(key)) {
      return defaultValue;
    }
    return durationRange(key, duration(key), min, max);
  }

  /**
   * A duration, or {@code defaultValue} when absent, with no range.
   *
   * @throws IllegalArgumentException naming the key and the grammar when it does not parse
   */
  public Duration duration(String key, Duration defaultValue) {
    return has(key) ? duration(key) : defaultValue;
  }

  private Duration duration(String key) {
    Object raw = Objects.requireNonNull(values.get(key));
    if (raw instanceof Duration d) {
      return d;
    }
    try {
      return parseDuration(String.valueOf(raw));
    } catch (IllegalArgumentException e) {
      throw named(new InvalidSettingException(key, "'" + raw + "'", "a duration such as 30s, 1500ms or PT30S", e));
    }
  }

  /**
   * {@code value} if it lies in {@code [min, max]}.
   *
   * @throws IllegalArgumentException {@code "<name> must be in [<min>ms, <max>ms] but was <value>ms"}
   */
  public Duration durationRange(String key, Duration value, Duration min, Duration max) {
    try {
      return InvalidSettingException.requireRange(key, value, min, max);
    } catch (InvalidSettingException e) {
      throw named(e);
    }
  }

  /**
   * Parses a duration: {@code 1500ms}, {@code 30s}, {@code 10m}, {@code 1h}, plain milliseconds, or ISO-8601.
   *
   * @throws IllegalArgumentException if {@code text} is none of these
   */
  public static Duration parseDuration(String text) {
    String t = text.trim();
    Matcher m = SIMPLE_DURATION.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      String unit = m.group(2) == null ? "ms" : m.group(2);
      return switch (unit) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }
    try {
      return Duration.parse(t);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("not a duration such as 30s, 1500ms or PT30S: '" + text + "'", e);
    }
  }

  /**
   * The epoch of {@code key}, or {@code defaultValue} when absent.
   *
   * @throws IllegalArgumentException naming the key and the grammar; for Unix milliseconds before 2000, saying they
   *     look like seconds and what to write instead
   */
  public Instant epoch(String key, Instant defaultValue) {
    Object raw = values.get(key);
    if (raw == null) {
      return defaultValue;
    }
    if (raw instanceof Instant i) {
      return i;
    }
    if (raw instanceof Date d) { // an unquoted YAML date or timestamp
      return d.toInstant();
    }
    String text = String.valueOf(raw).trim();
    try {
      if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
        Instant epoch = Instant.ofEpochMilli(Long.parseLong(text));
        if (epoch.isBefore(EARLIEST_MILLIS_EPOCH)) {
          throw bad(key, text + " (" + epoch + "): that looks like seconds; write " + text + "000 or "
              + Instant.ofEpochSecond(Long.parseLong(text)), "Unix milliseconds from " + EARLIEST_MILLIS_EPOCH
              + " on, an ISO-8601 instant or a date");
        }
        return epoch;
      }
      if (text.length() == 10) {
        return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      if (!text.isEmpty() && Character.isLetter(text.charAt(0))) {
        return ZonedDateTime.parse(text, DATE_TO_STRING).toInstant(); // Date.toString(): "Wed Jan 01 00:00:00 UTC 2025"
      }
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeException | NumberFormatException e) {
      throw named(new InvalidSettingException(key, "'" + raw + "'", "an ISO-8601 instant such as "
          + "2025-01-01T00:00:00Z, a date such as 2025-01-01 (UTC) or Unix milliseconds", e));
    }
  }

  @Override
  public String toString() {
    return "SettingsReader" + new TreeSet<>(values.keySet());
  }
}
