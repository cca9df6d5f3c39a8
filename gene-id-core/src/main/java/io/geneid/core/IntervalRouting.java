package io.geneid.core;

import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Which time interval (a table per month, per day, ...) an id belongs to, read from the id's <b>own timestamp</b>:
 * the rule of ShardingSphere's {@code GENE_INTERVAL}, of {@code gene-id tables} and of the server's route, so they
 * cannot disagree. With the gene choosing the database ({@link GeneRouting}), a row's table is
 * {@code <database by gene>.<table by interval>}, and a child, whose id carries its parent's gene and is issued
 * after its parent, lands in its parent's database, in the parent's interval or a later one.
 *
 * <pre>
 *   local    = the id's timestamp (epoch + id &gt;&gt;&gt; (W + S + G) ms) in datetime-zone
 *   interval = floor(whole datetime-interval-units from datetime-lower to local / datetime-interval-amount)
 *   start    = datetime-lower + interval * datetime-interval-amount datetime-interval-units
 *   suffix   = start formatted with sharding-suffix-pattern                (2026-11-01T00:00 -&gt; "202611")
 *   target   = the target whose name ends with the suffix                   (t_order_202611)
 * </pre>
 *
 * <p>Interval 0 starts at {@code datetime-lower}, which must be the start of a unit (midnight for days and weeks, the
 * 1st of a month at midnight for months, January 1st for years, a whole hour for hours). The last interval is the
 * one holding {@code datetime-upper}, or, without it, the one holding the layout's last timestamp. The property
 * names are those of ShardingSphere's own {@code INTERVAL} algorithm, which shards by a separate date-time column;
 * {@code datetime-zone} (default UTC, so a router's intervals do not depend on its machine) and
 * {@code max-child-lag} are gene-id's.
 *
 * <p><b>Children.</b> A lookup by a parent's id reads the parent's interval and the {@code max-child-lag} after it
 * ({@link #parentWindow(long)}); a child whose id lies outside that window would not be found that way, so routers
 * refuse to insert it ({@link #childProblem(long, long)}).
 *
 * <p><b>Time zones.</b> Intervals follow the local calendar of {@code datetime-zone}. The interval of an id never
 * goes down as ids grow as long as that zone never moves its clocks back across an interval boundary: UTC, fixed
 * offsets and zones without daylight saving time (Asia/Shanghai) are always safe; zones that change their clocks in
 * the night are safe for days, weeks, months and years.
 *
 * <p>Instances are immutable and thread-safe; build one with {@link #builder()} or {@link #from(SettingsReader)}.
 */
public final class IntervalRouting {

  /** Key of the pattern {@link #DATETIME_LOWER} and {@link #DATETIME_UPPER} are written in. */
  public static final String DATETIME_PATTERN = "datetime-pattern";
  /** Key of the start of interval 0, a local date-time in {@link #DATETIME_ZONE}. */
  public static final String DATETIME_LOWER = "datetime-lower";
  /** Key of a local date-time in the last interval. */
  public static final String DATETIME_UPPER = "datetime-upper";
  /** Key of the {@link DateTimeFormatter} pattern of the table suffixes. */
  public static final String SHARDING_SUFFIX_PATTERN = "sharding-suffix-pattern";
  /** Key of how many units an interval lasts. */
  public static final String DATETIME_INTERVAL_AMOUNT = "datetime-interval-amount";
  /** Key of the unit: {@code HOURS}, {@code DAYS}, {@code WEEKS}, {@code MONTHS} or {@code YEARS}. */
  public static final String DATETIME_INTERVAL_UNIT = "datetime-interval-unit";
  /** Key of the time zone whose calendar the intervals follow. */
  public static final String DATETIME_ZONE = "datetime-zone";
  /** Key of how many intervals after its parent's a child may lie. */
  public static final String MAX_CHILD_LAG = "max-child-lag";
  /** Every key {@link #from(SettingsReader)} reads, the layout's included. */
  public static final List<String> KEYS = List.of(DATETIME_PATTERN, DATETIME_LOWER, DATETIME_UPPER,
      SHARDING_SUFFIX_PATTERN, DATETIME_INTERVAL_AMOUNT, DATETIME_INTERVAL_UNIT, DATETIME_ZONE, MAX_CHILD_LAG,
      SettingsReader.EPOCH, SettingsReader.TIMESTAMP_BITS, SettingsReader.WORKER_BITS, SettingsReader.SEQUENCE_BITS,
      SettingsReader.GENE_BITS);

  /** The default {@link #DATETIME_PATTERN}, ShardingSphere's usual one. */
  public static final String DEFAULT_DATETIME_PATTERN = "yyyy-MM-dd HH:mm:ss";
  /** The default unit, as for ShardingSphere's {@code INTERVAL}. */
  public static final ChronoUnit DEFAULT_UNIT = ChronoUnit.DAYS;
  /** The units an interval can be counted in. */
  public static final List<ChronoUnit> UNITS = List.of(ChronoUnit.HOURS, ChronoUnit.DAYS, ChronoUnit.WEEKS,
      ChronoUnit.MONTHS, ChronoUnit.YEARS);
  /** The largest {@link #DATETIME_INTERVAL_AMOUNT}. */
  public static final int MAX_AMOUNT = 1000;
  /** The largest {@link #MAX_CHILD_LAG}. */
  public static final int MAX_MAX_CHILD_LAG = 1000;
  /** The default {@link #MAX_CHILD_LAG}: one interval, so a lookup by parent reads at most 2 tables. */
  public static final int DEFAULT_MAX_CHILD_LAG = 1;

  private final GeneIdLayout layout;
  private final ZoneId zone;
  private final LocalDateTime lower;
  private final @Nullable LocalDateTime upper;
  private final int amount;
  private final ChronoUnit unit;
  private final String suffixPattern;
  private final DateTimeFormatter suffixFormat;
  private final int suffixLength;
  private final int maxChildLag;
  private final long lastInterval;
  private final int timestampShift;
  /** The last interval computed, for the ids of the current interval to skip the calendar. */
  private volatile Span recent = new Span(1, 0, -1);

  /** Milliseconds since the layout's epoch {@code [from, to)} that all lie in {@code interval}. */
  private record Span(long from, long to, long interval) {}

  private IntervalRouting(Builder b, String suffixPattern, DateTimeFormatter suffixFormat, int suffixLength,
      long lastInterval) {
    this.layout = b.layout;
    this.zone = b.zone;
    this.lower = Objects.requireNonNull(b.lower);
    this.upper = b.upper;
    this.amount = b.amount;
    this.unit = b.unit;
    this.suffixPattern = suffixPattern;
    this.suffixFormat = suffixFormat;
    this.suffixLength = suffixLength;
    this.maxChildLag = b.maxChildLag;
    this.lastInterval = lastInterval;
    this.timestampShift = layout.workerBits() + layout.sequenceBits() + layout.geneBits();
  }

  /** A builder with the defaults: the default layout, UTC, 1 day, {@code max-child-lag} 1; the lower bound is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The rule of {@link #KEYS}: {@code datetime-lower} required, the rest defaulting as {@link #builder()} does
   * ({@code datetime-pattern} {@value #DEFAULT_DATETIME_PATTERN}, {@code sharding-suffix-pattern} by unit:
   * {@code yyyyMMddHH}, {@code yyyyMMdd}, {@code yyyyMMdd}, {@code yyyyMM}, {@code yyyy}), the layout as
   * {@link GeneIdLayout#from(SettingsReader)} reads it. Date-times may also be given as {@link Date} (an unquoted
   * YAML timestamp, read as written: UTC fields), {@link LocalDateTime} or {@link LocalDate}.
   *
   * @throws InvalidSettingException naming the key as {@code props} names it, its value and what is allowed
   */
  public static IntervalRouting from(SettingsReader props) {
    GeneIdLayout layout = GeneIdLayout.from(props);
    return props.checked(() -> {
      String pattern = props.string(DATETIME_PATTERN, DEFAULT_DATETIME_PATTERN);
      DateTimeFormatter dateTimes = dateTimeFormat(pattern);
      Builder b = builder().layout(layout)
          .lower(dateTime(props, DATETIME_LOWER, pattern, dateTimes, true))
          .amount(props.intValue(DATETIME_INTERVAL_AMOUNT, 1, MAX_AMOUNT, 1))
          .maxChildLag(props.intValue(MAX_CHILD_LAG, 0, MAX_MAX_CHILD_LAG, DEFAULT_MAX_CHILD_LAG));
      LocalDateTime upper = dateTime(props, DATETIME_UPPER, pattern, dateTimes, false);
      if (upper != null) {
        b.upper(upper);
      }
      if (props.has(DATETIME_INTERVAL_UNIT)) {
        b.unit(unit(props.string(DATETIME_INTERVAL_UNIT, "")));
      }
      if (props.has(DATETIME_ZONE)) {
        String text = props.string(DATETIME_ZONE, "");
        try {
          b.zone(ZoneId.of(text));
        } catch (DateTimeException e) {
          throw new InvalidSettingException(DATETIME_ZONE, "'" + text + "'", "a time zone such as UTC, +08:00 or"
              + " Asia/Shanghai", e);
        }
      }
      if (props.has(SHARDING_SUFFIX_PATTERN)) {
        b.suffixPattern(props.string(SHARDING_SUFFIX_PATTERN, ""));
      }
      return b.build();
    });
  }

  private static DateTimeFormatter dateTimeFormat(String pattern) {
    try {
      return new DateTimeFormatterBuilder().appendPattern(pattern)
          .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
          .parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0)
          .parseDefaulting(ChronoField.SECOND_OF_MINUTE, 0)
          .toFormatter(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      throw new InvalidSettingException(DATETIME_PATTERN, "'" + pattern + "'", "a date-time pattern such as "
          + DEFAULT_DATETIME_PATTERN + " (java.time.format.DateTimeFormatter)", e);
    }
  }

  private static @Nullable LocalDateTime dateTime(SettingsReader props, String key, String pattern,
      DateTimeFormatter format, boolean required) {
    Object raw = props.raw(key);
    if (raw == null) {
      if (required) {
        throw new InvalidSettingException(key, null, "a date-time in {" + DATETIME_PATTERN + "} '" + pattern + "'"
            + ", such as " + LocalDateTime.of(2026, 1, 1, 0, 0).format(format));
      }
      return null;
    }
    if (raw instanceof LocalDateTime t) {
      return t;
    }
    if (raw instanceof LocalDate d) {
      return d.atStartOfDay();
    }
    if (raw instanceof Date d) { // an unquoted YAML timestamp: YAML reads its fields as UTC
      return LocalDateTime.ofInstant(d.toInstant(), ZoneOffset.UTC);
    }
    String text = String.valueOf(raw).trim();
    try {
      return LocalDateTime.parse(text, format);
    } catch (DateTimeException e) {
      try { // Date.toString() of an unquoted YAML timestamp, as some front ends hand it over
        return LocalDateTime.ofInstant(ZonedDateTime.parse(text, DateTimeFormatter.ofPattern(
            "EEE MMM dd HH:mm:ss zzz yyyy", Locale.US)).toInstant(), ZoneOffset.UTC);
      } catch (DateTimeException ignored) {
        throw new InvalidSettingException(key, "'" + text + "'", "a date-time in {" + DATETIME_PATTERN + "} '"
            + pattern + "', such as " + LocalDateTime.of(2026, 1, 1, 0, 0).format(format), e);
      }
    }
  }

  private static ChronoUnit unit(String text) {
    for (ChronoUnit u : UNITS) {
      if (u.name().equalsIgnoreCase(text)) {
        return u;
      }
    }
    throw new InvalidSettingException(DATETIME_INTERVAL_UNIT, "'" + text + "'", "one of " + UNITS);
  }

  /** The default suffix pattern of a unit: the start of the interval down to the unit. */
  static String defaultSuffixPattern(ChronoUnit unit) {
    return switch (unit) {
      case HOURS -> "yyyyMMddHH";
      case MONTHS -> "yyyyMM";
      case YEARS -> "yyyy";
      default -> "yyyyMMdd";
    };
  }

  // ---------------------------------------------------------------- the interval of an id

  /**
   * The interval of an id: of its own timestamp ({@link #intervalAt(Instant)}). Intervals before
   * {@code datetime-lower} are negative, those after the last one above {@link #lastInterval()}; callers decide
   * what that means ({@link #inRange(long)}).
   *
   * @throws IllegalArgumentException if {@code id} is negative
   */
  public long intervalOf(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("id must not be negative but was " + id);
    }
    long millis = id >>> timestampShift;
    Span s = recent;
    if (millis >= s.from() && millis < s.to()) {
      return s.interval();
    }
    Instant at = layout.epoch().plusMillis(millis);
    long interval = intervalAt(at);
    if (interval >= 0 && interval < lastInterval) {
      remember(interval);
    }
    return interval;
  }

  /** Keeps {@code interval}'s span of milliseconds when the zone's clocks do not change inside it. */
  private void remember(long interval) {
    Instant from = start(interval);
    Instant to = start(interval + 1);
    ZoneOffsetTransition change = zone.getRules().nextTransition(from.minusMillis(1));
    if (change != null && change.getInstant().isBefore(to)) {
      return; // local time jumps inside: leave it to the calendar
    }
    long epoch = layout.epoch().toEpochMilli();
    recent = new Span(Math.max(0, from.toEpochMilli() - epoch), to.toEpochMilli() - epoch, interval);
  }

  /** The interval of an instant; see {@link #intervalOf(long)}. */
  public long intervalAt(Instant instant) {
    return intervalOfLocal(LocalDateTime.ofInstant(instant, zone));
  }

  private long intervalOfLocal(LocalDateTime local) {
    long units;
    if (local.isBefore(lower)) {
      long back = unit.between(local, lower); // whole units, rounded toward lower
      units = lower.minus(back, unit).equals(local) ? -back : -back - 1;
    } else {
      units = unit.between(lower, local);
    }
    return Math.floorDiv(units, amount);
  }

  /** Whether {@code interval} lies in {@code [0, lastInterval()]}. */
  public boolean inRange(long interval) {
    return interval >= 0 && interval <= lastInterval;
  }

  /** The last interval: the one holding {@code datetime-upper}, else the one holding the layout's last timestamp. */
  public long lastInterval() {
    return lastInterval;
  }

  /** The local start of an interval, in {@code datetime-zone}. */
  public LocalDateTime localStart(long interval) {
    return lower.plus(Math.multiplyExact(interval, amount), unit);
  }

  /** The first instant of an interval. */
  public Instant start(long interval) {
    return localStart(interval).atZone(zone).toInstant();
  }

  /** The first instant after an interval: the start of the next. */
  public Instant end(long interval) {
    return start(interval + 1);
  }

  /**
   * The table suffix of an interval: its local start formatted with {@code sharding-suffix-pattern}
   * ({@code "202611"}).
   */
  public String suffix(long interval) {
    return suffixFormat.format(localStart(interval));
  }

  /** The table suffix of an id's interval. */
  public String suffixOf(long id) {
    return suffix(intervalOf(id));
  }

  /**
   * The interval whose suffix {@code target} ends with ({@code t_order_202611} -&gt; the interval of November 2026),
   * in or out of range; empty when the name ends with no interval's suffix.
   */
  public OptionalLong intervalOfTarget(String target) {
    if (target.length() < suffixLength) {
      return OptionalLong.empty();
    }
    String tail = target.substring(target.length() - suffixLength);
    LocalDateTime start;
    try {
      start = parseSuffix(tail);
    } catch (DateTimeException | ArithmeticException e) {
      return OptionalLong.empty();
    }
    long interval = intervalOfLocal(start);
    try {
      return localStart(interval).equals(start) && suffix(interval).equals(tail) ? OptionalLong.of(interval)
          : OptionalLong.empty();
    } catch (DateTimeException | ArithmeticException e) {
      return OptionalLong.empty();
    }
  }

  /** The local date-time a suffix names: its fields, the missing ones at their start. */
  private LocalDateTime parseSuffix(String suffix) {
    TemporalAccessor t = suffixFormat.parse(suffix);
    LocalDate date;
    if (t.isSupported(ChronoField.EPOCH_DAY)) {
      date = LocalDate.ofEpochDay(t.getLong(ChronoField.EPOCH_DAY));
    } else {
      date = LocalDate.of(t.get(ChronoField.YEAR), t.isSupported(ChronoField.MONTH_OF_YEAR)
          ? t.get(ChronoField.MONTH_OF_YEAR) : 1, 1);
    }
    int hour = t.isSupported(ChronoField.HOUR_OF_DAY) ? t.get(ChronoField.HOUR_OF_DAY) : 0;
    return date.atTime(hour, 0);
  }

  // ---------------------------------------------------------------- parents and children

  /**
   * The intervals a lookup by a parent's id reads: {@code [intervalOf(parent), intervalOf(parent) + max-child-lag]},
   * as {@code {first, last}}.
   */
  public long[] parentWindow(long parentId) {
    long first = intervalOf(parentId);
    return new long[] {first, first + maxChildLag};
  }

  /**
   * Why a child id may not be stored with this parent, or null when it may: its interval must lie in
   * {@link #parentWindow(long) the parent's window}, or a lookup by the parent's id would not find it. The reason
   * names both ids, their times and intervals, and {@code max-child-lag}.
   */
  public @Nullable String childProblem(long childId, long parentId) {
    long child = intervalOf(childId);
    long parent = intervalOf(parentId);
    if (child >= parent && child - parent <= maxChildLag) {
      return null;
    }
    String ids = "child id " + childId + " (" + timestampOf(childId) + ", interval " + describe(child) + ") ";
    String of = " its parent's id " + parentId + " (" + timestampOf(parentId) + ", interval " + describe(parent)
        + ")";
    String lookup = "a lookup by the parent's id reads only " + describe(parent) + ".." + describe(parent
        + maxChildLag);
    if (child < parent) {
      return ids + "lies before" + of + ": " + lookup + " and would not find it (was the child's id issued on a"
          + " host whose clock is behind, or for another parent?)";
    }
    return ids + "lies " + (child - parent) + " intervals after" + of + ", more than " + MAX_CHILD_LAG + " = "
        + maxChildLag + " allows: " + lookup + " and would not find it; raise " + MAX_CHILD_LAG + " (lookups by"
        + " parent then read more tables) or give the child a newer parent";
  }

  /** {@code "202611"}, or {@code "202512 (before datetime-lower)"} for an interval out of range. */
  public String describe(long interval) {
    String suffix;
    try {
      suffix = suffix(interval);
    } catch (DateTimeException | ArithmeticException e) {
      suffix = "#" + interval;
    }
    return interval < 0 ? suffix + " (before " + DATETIME_LOWER + " " + lower + ")"
        : interval > lastInterval ? suffix + " (after " + (upper != null ? DATETIME_UPPER + " " + upper
            : "the last timestamp of the layout") + ")" : suffix;
  }

  /** The timestamp of an id, as the layout decodes it. */
  public Instant timestampOf(long id) {
    return layout.decode(id).timestamp();
  }

  // ---------------------------------------------------------------- settings

  /** The layout of the ids routed: the key generator's. */
  public GeneIdLayout layout() {
    return layout;
  }

  /** The zone whose calendar the intervals follow. */
  public ZoneId zone() {
    return zone;
  }

  /** The local start of interval 0. */
  public LocalDateTime lower() {
    return lower;
  }

  /** A local date-time in the last interval, or null: the layout's last timestamp bounds the intervals. */
  public @Nullable LocalDateTime upper() {
    return upper;
  }

  /** How many units an interval lasts. */
  public int amount() {
    return amount;
  }

  /** The unit of an interval. */
  public ChronoUnit unit() {
    return unit;
  }

  /** The pattern of the table suffixes. */
  public String suffixPattern() {
    return suffixPattern;
  }

  /** How many intervals after its parent's a child may lie. */
  public int maxChildLag() {
    return maxChildLag;
  }

  /** The same settings in another layout's ids (the key generator's, when a router is told them apart). */
  public IntervalRouting withLayout(GeneIdLayout other) {
    return toBuilder().layout(other).build();
  }

  /** A builder holding these settings. */
  public Builder toBuilder() {
    Builder b = builder().layout(layout).zone(zone).lower(lower).amount(amount).unit(unit)
        .suffixPattern(suffixPattern).maxChildLag(maxChildLag);
    if (upper != null) {
      b.upper(upper);
    }
    return b;
  }

  @Override
  public String toString() {
    return DATETIME_LOWER + "=" + lower + (upper == null ? "" : ", " + DATETIME_UPPER + "=" + upper) + ", "
        + DATETIME_INTERVAL_AMOUNT + "=" + amount + ", " + DATETIME_INTERVAL_UNIT + "=" + unit.name() + ", "
        + SHARDING_SUFFIX_PATTERN + "=" + suffixPattern + ", " + DATETIME_ZONE + "=" + zone + ", " + MAX_CHILD_LAG
        + "=" + maxChildLag;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof IntervalRouting r && r.layout.equals(layout) && r.zone.equals(zone) && r.lower.equals(lower)
        && Objects.equals(r.upper, upper) && r.amount == amount && r.unit == unit
        && r.suffixPattern.equals(suffixPattern) && r.maxChildLag == maxChildLag;
  }

  @Override
  public int hashCode() {
    return Objects.hash(layout, zone, lower, upper, amount, unit, suffixPattern, maxChildLag);
  }

  /** Builds an {@link IntervalRouting}; the settings are checked together by {@link #build()}. */
  public static final class Builder {
    private GeneIdLayout layout = GeneIdLayout.defaults();
    private ZoneId zone = ZoneId.of("UTC");
    private @Nullable LocalDateTime lower;
    private @Nullable LocalDateTime upper;
    private int amount = 1;
    private ChronoUnit unit = DEFAULT_UNIT;
    private @Nullable String suffixPattern;
    private int maxChildLag = DEFAULT_MAX_CHILD_LAG;

    Builder() {}

    /** The layout of the ids routed (the key generator's). Default {@link GeneIdLayout#defaults()}. */
    public Builder layout(GeneIdLayout layout) {
      this.layout = Objects.requireNonNull(layout);
      return this;
    }

    /** The zone whose calendar the intervals follow. Default UTC. */
    public Builder zone(ZoneId zone) {
      this.zone = Objects.requireNonNull(zone);
      return this;
    }

    /** The local start of interval 0: the start of a unit. Required. */
    public Builder lower(LocalDateTime lower) {
      this.lower = Objects.requireNonNull(lower);
      return this;
    }

    /** A local date-time in the last interval. Default none: the layout's last timestamp. */
    public Builder upper(LocalDateTime upper) {
      this.upper = Objects.requireNonNull(upper);
      return this;
    }

    /** How many units an interval lasts, in [1, {@value #MAX_AMOUNT}]. Default 1. */
    public Builder amount(int amount) {
      this.amount = amount;
      return this;
    }

    /** The unit, one of {@link #UNITS}. Default days. */
    public Builder unit(ChronoUnit unit) {
      this.unit = Objects.requireNonNull(unit);
      return this;
    }

    /** The pattern of the table suffixes; it must name each interval. Default by unit, e.g. {@code yyyyMM}. */
    public Builder suffixPattern(String pattern) {
      this.suffixPattern = Objects.requireNonNull(pattern);
      return this;
    }

    /** How many intervals after its parent's a child may lie, in [0, {@value #MAX_MAX_CHILD_LAG}]. Default 1. */
    public Builder maxChildLag(int maxChildLag) {
      this.maxChildLag = maxChildLag;
      return this;
    }

    /**
     * Checks the settings together.
     *
     * @throws InvalidSettingException naming the setting by its key, its value and what is allowed
     */
    public IntervalRouting build() {
      InvalidSettingException.requireRange(DATETIME_INTERVAL_AMOUNT, amount, 1, MAX_AMOUNT);
      InvalidSettingException.requireRange(MAX_CHILD_LAG, maxChildLag, 0, MAX_MAX_CHILD_LAG);
      if (!UNITS.contains(unit)) {
        throw new InvalidSettingException(DATETIME_INTERVAL_UNIT, "'" + unit.name() + "'", "one of " + UNITS);
      }
      LocalDateTime from = lower;
      if (from == null) {
        throw new InvalidSettingException(DATETIME_LOWER, null, "the local start of the first interval, such as"
            + " 2026-01-01 00:00:00");
      }
      String startOf = startOfUnit(from);
      if (startOf != null) {
        throw new InvalidSettingException(DATETIME_LOWER, "'" + from + "'", "the start of " + startOf + " for "
            + DATETIME_INTERVAL_UNIT + " " + unit.name());
      }
      if (upper != null && upper.isBefore(from)) {
        throw new InvalidSettingException(DATETIME_UPPER, "'" + upper + "'", "at or after {" + DATETIME_LOWER + "} ("
            + from + ")");
      }
      String pattern = suffixPattern != null ? suffixPattern : defaultSuffixPattern(unit);
      DateTimeFormatter format;
      try {
        format = DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
      } catch (IllegalArgumentException e) {
        throw new InvalidSettingException(SHARDING_SUFFIX_PATTERN, "'" + pattern + "'", "a date-time pattern such"
            + " as " + defaultSuffixPattern(unit) + " (java.time.format.DateTimeFormatter)", e);
      }
      LocalDateTime last = upper != null ? upper
          : LocalDateTime.ofInstant(layout.lastTimestamp(), zone);
      IntervalRouting probe = new IntervalRouting(this, pattern, format, 0, Long.MAX_VALUE);
      long lastInterval = probe.intervalOfLocal(last);
      int length;
      try {
        length = probe.suffix(0).length();
      } catch (DateTimeException e) {
        throw new InvalidSettingException(SHARDING_SUFFIX_PATTERN, "'" + pattern + "'", "a pattern of the local"
            + " date-time fields of an interval's start, such as " + defaultSuffixPattern(unit), e);
      }
      IntervalRouting routing = new IntervalRouting(this, pattern, format, length, lastInterval);
      String problem = routing.namingProblem();
      if (problem != null) {
        throw new InvalidSettingException(SHARDING_SUFFIX_PATTERN, "'" + pattern + "'", "a pattern that names each"
            + " interval of " + amount + " " + unit.name() + " by its start, in one length, such as "
            + defaultSuffixPattern(unit) + " (" + problem + ")");
      }
      return routing;
    }

    /** What {@code t} is not the start of, for the unit, or null when it is. */
    private @Nullable String startOfUnit(LocalDateTime t) {
      boolean hour = t.getMinute() == 0 && t.getSecond() == 0 && t.getNano() == 0;
      boolean day = hour && t.getHour() == 0;
      return switch (unit) {
        case HOURS -> hour ? null : "an hour (minute 0, second 0)";
        case MONTHS -> day && t.getDayOfMonth() == 1 ? null : "a month (day 1, 00:00:00)";
        case YEARS -> day && t.getDayOfYear() == 1 ? null : "a year (January 1, 00:00:00)";
        default -> day ? null : "a day (00:00:00)";
      };
    }
  }

  /**
   * Why the suffixes do not name the intervals one to one in one length, or null: checked on the first intervals, a
   * year of them and the last, each formatted and read back.
   */
  private @Nullable String namingProblem() {
    List<Long> probes = new ArrayList<>(List.of(0L, 1L, 2L));
    long yearLater = unit == ChronoUnit.YEARS ? 1 : unit == ChronoUnit.MONTHS ? 12 : unit == ChronoUnit.WEEKS ? 52
        : unit == ChronoUnit.DAYS ? 365 : 24 * 365;
    probes.add(Math.max(1, yearLater / amount));
    probes.add(Math.max(1, yearLater / amount) + 1);
    if (upper != null) {
      probes.add(lastInterval);
    }
    for (long interval : probes) {
      if (interval > lastInterval) {
        continue;
      }
      String suffix;
      try {
        suffix = suffix(interval);
      } catch (DateTimeException e) {
        return "interval " + interval + " (from " + localStart(interval) + ") cannot be formatted: "
            + e.getMessage();
      }
      if (suffix.length() != suffixLength) {
        return "the suffix of " + localStart(interval) + " is '" + suffix + "' and that of " + lower + " '"
            + suffix(0) + "'";
      }
      OptionalLong read = intervalOfTarget(suffix);
      if (read.isEmpty() || read.getAsLong() != interval) {
        return "'" + suffix + "', the suffix of the interval from " + localStart(interval) + ", "
            + (read.isEmpty() ? "does not read back as a start" : "reads back as the interval from "
            + localStart(read.getAsLong()));
      }
    }
    return null;
  }
}
