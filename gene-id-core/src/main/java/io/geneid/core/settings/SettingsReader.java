package io.geneid.core.settings;

import io.geneid.core.GeneIdStringFormat;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.internal.Checks;
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
  /** Key of {@link #stringFormat(GeneIdLayout)}: whether ids are strings ({@code true}/{@code false}). */
  public static final String STRING_IDS = "string-ids";
  /** Key of the prefix of string ids. */
  public static final String STRING_ID_PREFIX = "string-id-prefix";
  /** Key of whether string ids carry a date part ({@code true}/{@code false}). */
  public static final String STRING_ID_DATE = "string-id-date";
  /** The keys {@link #stringFormat(GeneIdLayout)} reads. */
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
      throw new IllegalArgumentException(nameOf(key) + " is required: " + what);
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
      throw new IllegalArgumentException(nameOf(key) + " is required: a whole number in [" + min + ", " + max + "]");
    }
    long value;
    if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
      value = ((Number) raw).longValue();
    } else {
      try {
        value = Long.parseLong(String.valueOf(raw).trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(nameOf(key) + " must be a whole number in [" + min + ", " + max
            + "] but was '" + raw + "'", e);
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
    Checks.range(nameOf(key), value, min, max);
    return value;
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
      throw new IllegalArgumentException(nameOf(key) + " must be a number in [" + min + ", " + max + "] but was '"
          + raw + "'", e);
    }
    if (!(value >= min && value <= max)) {
      throw new IllegalArgumentException(nameOf(key) + " must be in [" + min + ", " + max + "] but was " + raw);
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
      throw new IllegalArgumentException(nameOf(key) + " must be true or false but was '" + raw + "'");
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
      throw new IllegalArgumentException(nameOf(key) + " must be a duration such as 30s, 1500ms or PT30S but was '"
          + raw + "'", e);
    }
  }

  /**
   * {@code value} if it lies in {@code [min, max]}.
   *
   * @throws IllegalArgumentException {@code "<name> must be in [<min>ms, <max>ms] but was <value>ms"}
   */
  public Duration durationRange(String key, Duration value, Duration min, Duration max) {
    return Checks.duration(nameOf(key), value, min, max);
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
          throw new IllegalArgumentException(nameOf(key) + " must be Unix milliseconds from " + EARLIEST_MILLIS_EPOCH
              + " on, an ISO-8601 instant or a date, but was " + text + " (" + epoch + "): that looks like seconds;"
              + " write " + text + "000 or " + Instant.ofEpochSecond(Long.parseLong(text)));
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
      throw new IllegalArgumentException(nameOf(key) + " must be an ISO-8601 instant such as "
          + GeneIdLayout.DEFAULT_EPOCH + ", a date such as 2025-01-01 (UTC) or Unix milliseconds but was '" + raw
          + "'", e);
    }
  }

  /** {@link #GENE_BITS}: G in [0, {@value GeneIdLayout#MAX_GENE_BITS}], default that of the default layout. */
  public int geneBits() {
    return intValue(GENE_BITS, 0, GeneIdLayout.MAX_GENE_BITS, GeneIdLayout.defaults().geneBits());
  }

  /**
   * The layout of {@link #EPOCH}, {@link #TIMESTAMP_BITS}, {@link #WORKER_BITS}, {@link #SEQUENCE_BITS} and
   * {@link #GENE_BITS}, each defaulting to {@link GeneIdLayout#defaults()}.
   *
   * @throws IllegalArgumentException naming the key out of its own range, or every width when they do not add up
   */
  public GeneIdLayout layout() {
    GeneIdLayout defaults = GeneIdLayout.defaults();
    Instant epoch = epoch(EPOCH, defaults.epoch());
    int t = intValue(TIMESTAMP_BITS, GeneIdLayout.MIN_TIMESTAMP_BITS, 63, defaults.timestampBits());
    int w = intValue(WORKER_BITS, 0, GeneIdLayout.MAX_FIELD_BITS, defaults.workerBits());
    int s = intValue(SEQUENCE_BITS, 0, GeneIdLayout.MAX_FIELD_BITS, defaults.sequenceBits());
    int g = geneBits();
    if (t + w + s + g != 63) {
      throw new IllegalArgumentException((owner.isEmpty() ? "" : owner + " properties ") + nameOf.apply(TIMESTAMP_BITS)
          + " + " + nameOf.apply(WORKER_BITS) + " + " + nameOf.apply(SEQUENCE_BITS) + " + " + nameOf.apply(GENE_BITS)
          + " must be 63 but was " + (t + w + s + g) + " (" + t + " + " + w + " + " + s + " + " + g + "); the defaults"
          + " are " + defaults.timestampBits() + ", " + defaults.workerBits() + ", " + defaults.sequenceBits() + ", "
          + defaults.geneBits());
    }
    try { // settings configure a generator: the layout must be usable now, not only well formed
      GeneIdLayout layout = GeneIdLayout.builder().epoch(epoch).timestampBits(t).workerBits(w).sequenceBits(s)
          .geneBits(g).build();
      layout.checkUsableAt(Instant.now());
      return layout;
    } catch (IllegalArgumentException e) { // the epoch (a fraction of a ms, before 1970, in the future) or run out
      throw new IllegalArgumentException(withKeyNames(String.valueOf(e.getMessage())), e);
    }
  }

  /**
   * The string form of ids, or null for numeric ids: {@link #STRING_IDS} ({@code true} turns it on, default
   * {@code false}), {@link #STRING_ID_PREFIX} (default none) and {@link #STRING_ID_DATE} (default {@code false}; the
   * date part is the UTC day of each id's timestamp under {@code dateLayout}).
   *
   * @param dateLayout the layout of the ids, for the date part; null where ids carry no time (segment ids), which
   *     refuses {@code string-id-date: true}
   * @throws IllegalArgumentException naming the key: a prefix or date set while string ids are off, a bad prefix, a
   *     date part without a time to take it from
   */
  public io.geneid.core.@Nullable GeneIdStringFormat stringFormat(@Nullable GeneIdLayout dateLayout) {
    if (!bool(STRING_IDS, false)) {
      for (String key : java.util.List.of(STRING_ID_PREFIX, STRING_ID_DATE)) {
        if (has(key)) {
          throw new IllegalArgumentException(nameOf(key) + " configures string ids, which are off: set "
              + nameOf(STRING_IDS) + " to true");
        }
      }
      return null;
    }
    io.geneid.core.GeneIdStringFormat.Builder b = io.geneid.core.GeneIdStringFormat.builder();
    try {
      b.prefix(string(STRING_ID_PREFIX, ""));
      if (bool(STRING_ID_DATE, false)) {
        if (dateLayout == null) {
          throw new IllegalArgumentException("these ids carry no time to take a date from: set it to false");
        }
        b.date(dateLayout);
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      String m = String.valueOf(e.getMessage());
      if (m.startsWith(nameOf(STRING_IDS)) || m.contains(" must be true or false")) {
        throw e;
      }
      String key = m.startsWith("prefix") ? STRING_ID_PREFIX : STRING_ID_DATE;
      throw new IllegalArgumentException(nameOf(key) + ": " + m, e);
    }
  }

  /** The layout's field names in one of its messages ({@code timestampBits}, {@code epoch}) as this reader names keys. */
  private String withKeyNames(String layoutMessage) {
    Matcher m = LAYOUT_FIELDS.matcher(layoutMessage);
    StringBuilder out = new StringBuilder(owner.isEmpty() ? "" : owner + ": ");
    while (m.find()) {
      String key = m.group(1).equals(EPOCH) ? EPOCH
          : m.group(1).replace("Bits", "-bits"); // timestampBits -> timestamp-bits
      m.appendReplacement(out, Matcher.quoteReplacement(nameOf.apply(key)));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static final Pattern LAYOUT_FIELDS =
      Pattern.compile("\\b(epoch|timestampBits|workerBits|sequenceBits|geneBits)\\b");

  @Override
  public String toString() {
    return "SettingsReader" + new TreeSet<>(values.keySet());
  }
}
