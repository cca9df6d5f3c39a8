package io.geneid.core;

import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import java.util.List;

import io.geneid.core.internal.Checks;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * How the 63 usable bits of an id are split, and the functions every router needs: the gene of a parent key and
 * the parts of an id.
 *
 * <pre>
 *  63 | 62 ........... T bits | W bits    | S bits   | G bits (lowest)
 *   0 | ms since epoch        | worker id | sequence | gene
 * </pre>
 *
 * <p>{@code T + W + S + G = 63}, so every id is a positive {@code long}. The gene sits in the lowest bits, so the gene
 * of an id and the gene of a numeric parent key are the same function: {@code key & (2^G - 1)}. A child id issued for
 * parent {@code p} therefore routes exactly like {@code p} under any {@code gene % n} sharding with {@code n} dividing
 * {@code 2^G}.
 *
 * <p>String keys use a documented, language-neutral hash: the CRC-32C (Castagnoli, as in iSCSI, ext4 and
 * {@code java.util.zip.CRC32C}) of the key's UTF-8 bytes, masked to the gene bits. A {@link UUID} is hashed as its
 * canonical lower-case string.
 *
 * <p>The default layout ({@link #defaults()}) is T=41, W=8, S=8, G=6 from 2025-01-01T00:00:00Z: about 69 years, 256
 * workers, 64 gene buckets, 256 ids per millisecond per gene (16,384 per millisecond per worker). A layout is checked
 * when it is built; every mistake is reported with the field, the value and the allowed range. Change a layout
 * only before the first id is written: ids of two layouts do not decode or route alike.
 *
 * @param epoch the instant timestamp 0 stands for: a whole millisecond, not before 1970 (that it is not in the
 *     future and has not run out is checked when a generator is built: {@link #checkUsableAt(Instant)})
 * @param timestampBits T, in [35, 63]: 35 bits last a little more than a year
 * @param workerBits W, in [0, 28]
 * @param sequenceBits S, in [0, 28]
 * @param geneBits G, in [0, 16]; 0 makes a classic Snowflake without genes
 */
public record GeneIdLayout(Instant epoch, int timestampBits, int workerBits, int sequenceBits, int geneBits) {

  /** The largest {@link #geneBits()}: 65,536 gene buckets. */
  public static final int MAX_GENE_BITS = 16;
  /** The smallest {@link #timestampBits()}: 2^35 ms is about 1.09 years. */
  public static final int MIN_TIMESTAMP_BITS = 35;
  /** The largest {@link #workerBits()} and {@link #sequenceBits()}. */
  public static final int MAX_FIELD_BITS = 63 - MIN_TIMESTAMP_BITS;
  /** The epoch of {@link #defaults()}. */
  public static final Instant DEFAULT_EPOCH = Instant.parse("2025-01-01T00:00:00Z");

  private static final GeneIdLayout DEFAULTS = new GeneIdLayout(DEFAULT_EPOCH, 41, 8, 8, 6);
  private static final GeneIdLayout JAVASCRIPT_SAFE = new GeneIdLayout(DEFAULT_EPOCH, 51, 4, 4, 4);

  /** Checks every field; see the class comment for the ranges. */
  public GeneIdLayout {
    if (epoch == null) {
      throw new InvalidSettingException(SettingsReader.EPOCH, null, "an instant such as " + DEFAULT_EPOCH);
    }
    InvalidSettingException.requireRange(SettingsReader.TIMESTAMP_BITS, timestampBits, MIN_TIMESTAMP_BITS, 63);
    InvalidSettingException.requireRange(SettingsReader.WORKER_BITS, workerBits, 0, MAX_FIELD_BITS);
    InvalidSettingException.requireRange(SettingsReader.SEQUENCE_BITS, sequenceBits, 0, MAX_FIELD_BITS);
    InvalidSettingException.requireRange(SettingsReader.GENE_BITS, geneBits, 0, MAX_GENE_BITS);
    int sum = timestampBits + workerBits + sequenceBits + geneBits;
    if (sum != 63) {
      throw new InvalidSettingException(List.of(SettingsReader.TIMESTAMP_BITS, SettingsReader.WORKER_BITS,
          SettingsReader.SEQUENCE_BITS, SettingsReader.GENE_BITS), sum + " (" + timestampBits + " + " + workerBits
          + " + " + sequenceBits + " + " + geneBits + ")", "63 (the defaults are 41 + 8 + 8 + 6)");
    }
    if (epoch.getNano() % 1_000_000 != 0) {
      throw new InvalidSettingException(SettingsReader.EPOCH, epoch.toString(), "a whole millisecond");
    }
    if (epoch.isBefore(Instant.EPOCH)) {
      throw new InvalidSettingException(SettingsReader.EPOCH, epoch.toString(), "at or after " + Instant.EPOCH);
    }
  }

  /**
   * Checks that ids can be issued at {@code now}: the epoch is not in the future and the timestamp field has not run
   * out. A layout is a structure, valid whatever the time, so ids of a layout that ran out still decode; this check
   * belongs to building a generator with its clock (the generators and the settings readers call it).
   *
   * @throws InvalidSettingException naming the epoch, or the timestamp bits and when they ran out
   */
  public void checkUsableAt(Instant now) {
    if (epoch.isAfter(now)) {
      throw new InvalidSettingException(SettingsReader.EPOCH, epoch + " (now " + now + ")", "in the past");
    }
    // (1L << 63) - 1 wraps to Long.MAX_VALUE, the right answer for T = 63
    Instant end = epoch.plusMillis((1L << timestampBits) - 1).plusMillis(1);
    if (!end.isAfter(now)) {
      throw new InvalidSettingException(SettingsReader.TIMESTAMP_BITS, timestampBits + " (from epoch " + epoch
          + " they ran out at " + end + ")", "enough to reach today from the epoch (choose a later epoch or more timestamp bits)");
    }
  }

  /**
   * {@link SettingsReader#GENE_BITS} alone: G in [0, {@value #MAX_GENE_BITS}], default that of {@link #defaults()}; for
   * readers of gene ids that need no whole layout (routing, segment ids).
   *
   * @throws InvalidSettingException naming the key as {@code props} names it
   */
  public static int geneBits(SettingsReader props) {
    return props.intValue(SettingsReader.GENE_BITS, 0, MAX_GENE_BITS, DEFAULTS.geneBits());
  }

  /**
   * The layout of {@link SettingsReader#EPOCH}, {@link SettingsReader#TIMESTAMP_BITS},
   * {@link SettingsReader#WORKER_BITS}, {@link SettingsReader#SEQUENCE_BITS} and {@link SettingsReader#GENE_BITS}, each
   * defaulting to {@link #defaults()}, usable now.
   *
   * @throws InvalidSettingException naming each key as {@code props} names it: one out of its own range, or every
   *     width when they do not add up
   */
  public static GeneIdLayout from(SettingsReader props) {
    GeneIdLayout d = DEFAULTS;
    try {
      GeneIdLayout layout = new GeneIdLayout(props.epoch(SettingsReader.EPOCH, d.epoch()),
          props.intValue(SettingsReader.TIMESTAMP_BITS, MIN_TIMESTAMP_BITS, 63, d.timestampBits()),
          props.intValue(SettingsReader.WORKER_BITS, 0, MAX_FIELD_BITS, d.workerBits()),
          props.intValue(SettingsReader.SEQUENCE_BITS, 0, MAX_FIELD_BITS, d.sequenceBits()),
          geneBits(props));
      layout.checkUsableAt(Instant.now()); // settings configure a generator: usable now, not only well formed
      return layout;
    } catch (InvalidSettingException e) {
      throw props.named(e);
    }
  }

  /** T=41, W=8, S=8, G=6 from 2025-01-01T00:00:00Z. */
  public static GeneIdLayout defaults() {
    return DEFAULTS;
  }

  /**
   * T=51, W=4, S=4, G=4 from 2025-01-01T00:00:00Z: ids a browser reads exactly. With only 12 bits below the
   * timestamp, ids stay below 2^53 (JavaScript's {@code Number.MAX_SAFE_INTEGER} + 1) for 2^41 ms, about 69.7
   * years ({@link #javaScriptSafeUntil()}: 2094), as long as the default layout's timestamp lasts. The price: 16
   * workers, 16 genes (shard counts 1, 2, 4, 8, 16), 16 ids per millisecond per gene and 256 per worker. Use
   * {@link #toBuilder()} to move bits between them: keep W + S + G = 12 for the same 69.7 years; each bit more halves
   * them. The other way, with any layout, is to send ids to JavaScript as strings.
   */
  public static GeneIdLayout javascriptSafe() {
    return JAVASCRIPT_SAFE;
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder(DEFAULTS);
  }

  /** A builder starting from this layout. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  // ---------------------------------------------------------------- genes

  /** Largest gene: {@code 2^G - 1} (0 when G = 0). */
  public long maxGene() {
    return (1L << geneBits) - 1;
  }

  /** The gene of a numeric key (a parent id or any other numeric key): its low G bits. */
  public long geneOf(long key) {
    return key & maxGene();
  }

  /**
   * The gene of a string key: {@code CRC32C(UTF-8 bytes of key) & (2^G - 1)}. Stable across JVMs, versions and
   * languages. A string is always hashed, even when it holds digits: route a numeric key as a number.
   */
  public long geneOf(String key) {
    return Genes.of(key, geneBits);
  }

  /**
   * The gene of a parent key of any supported type: {@link Long}, {@link Integer}, {@link Short}, {@link Byte} and
   * integral {@link java.math.BigInteger} or {@link java.math.BigDecimal} values route by their low bits;
   * {@link CharSequence} as {@link #geneOf(String)}; {@link UUID} as {@link #geneOf(String)} of its canonical string.
   *
   * @throws IllegalArgumentException for {@code null}, a fractional number or another type, naming it
   */
  public long geneOfKey(Object key) {
    return Genes.ofKey(key, geneBits);
  }

  /** Number of gene buckets: {@code 2^G}. */
  public long geneCount() {
    return 1L << geneBits;
  }

  // ---------------------------------------------------------------- ids

  /**
   * Splits an id into its fields.
   *
   * @throws IllegalArgumentException if {@code id} is negative
   */
  public GeneIdParts decode(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("id must not be negative but was " + id);
    }
    long sequence = (id >>> geneBits) & maxSequence();
    long worker = (id >>> (geneBits + sequenceBits)) & maxWorkerId();
    long millis = id >>> (geneBits + sequenceBits + workerBits);
    return new GeneIdParts(epoch.plusMillis(millis), worker, sequence, id & maxGene());
  }

  /**
   * Builds the id of the given parts: the inverse of {@link #decode(long)}.
   *
   * @throws IllegalArgumentException if a part does not fit the layout, naming it and its range
   */
  public long encode(GeneIdParts parts) {
    long millis;
    try { // not toEpochMilli(): with T = 63 the last timestamps lie beyond a long of milliseconds since 1970
      millis = Math.addExact(Math.multiplyExact(parts.timestamp().getEpochSecond() - epoch.getEpochSecond(), 1000L),
          (parts.timestamp().getNano() - epoch.getNano()) / 1_000_000);
    } catch (ArithmeticException e) {
      millis = -1;
    }
    if (millis < 0 || millis > maxTimestampMillis() || parts.timestamp().getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("timestamp must be a whole millisecond in [" + epoch + ", "
          + lastTimestamp() + "] but was " + parts.timestamp());
    }
    Checks.range("workerId", parts.workerId(), 0, maxWorkerId());
    Checks.range("sequence", parts.sequence(), 0, maxSequence());
    Checks.range("gene", parts.gene(), 0, maxGene());
    return compose(millis, parts.workerId(), parts.sequence(), parts.gene());
  }

  /**
   * The smallest id issued at or after {@code instant}: {@code id >= firstIdAt(t)} holds exactly for the ids whose
   * timestamp is at or after {@code t} (worker, sequence and gene 0, the timestamp rounded up to a whole
   * millisecond). Before the epoch it is 0: every id is later.
   *
   * <pre>{@code
   * // the ids of November 2026 (UTC), in a query ShardingSphere routes to November's tables only:
   * //   WHERE id >= ? AND id < ?
   * long from = layout.firstIdAt(Instant.parse("2026-11-01T00:00:00Z"));
   * long to = layout.firstIdAt(Instant.parse("2026-12-01T00:00:00Z"));
   * }</pre>
   *
   * @throws IllegalArgumentException if {@code instant} is after {@link #lastTimestamp()}: no id is that late
   */
  public long firstIdAt(Instant instant) {
    long millis = millisSinceEpoch(instant, true);
    if (millis > maxTimestampMillis()) {
      throw new IllegalArgumentException("no id is issued at or after " + instant + ": the last timestamp of "
          + this + " is " + lastTimestamp());
    }
    return compose(Math.max(0, millis), 0, 0, 0);
  }

  /**
   * The largest id issued at or before {@code instant}: {@code id <= lastIdAt(t)} holds exactly for the ids whose
   * timestamp is at or before {@code t} (every worker, sequence and gene bit set, the timestamp rounded down to a
   * whole millisecond). After {@link #lastTimestamp()} it is the largest id of the layout.
   * {@code BETWEEN firstIdAt(from) AND lastIdAt(to)} selects the ids issued in {@code [from, to]}.
   *
   * @throws IllegalArgumentException if {@code instant} is before the epoch: no id is that early
   */
  public long lastIdAt(Instant instant) {
    long millis = millisSinceEpoch(instant, false);
    if (millis < 0) {
      throw new IllegalArgumentException("no id is issued at or before " + instant + ": the epoch of " + this
          + " is " + epoch);
    }
    return compose(Math.min(millis, maxTimestampMillis()), maxWorkerId(), maxSequence(), maxGene());
  }

  /**
   * Whole milliseconds from the epoch to {@code instant}, rounded up or down; saturated at {@code Long.MIN_VALUE}
   * and {@code Long.MAX_VALUE} (far beyond any layout's range).
   */
  private long millisSinceEpoch(Instant instant, boolean roundUp) {
    Duration d = Duration.between(epoch, instant);
    try {
      long millis = d.toMillis(); // rounds down: seconds * 1000 + nanos (always >= 0) / 10^6
      return roundUp && d.getNano() % 1_000_000 != 0 ? Math.addExact(millis, 1) : millis;
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** Unchecked composition from milliseconds since {@link #epoch()}. */
  long compose(long millis, long workerId, long sequence, long gene) {
    return (millis << (workerBits + sequenceBits + geneBits))
        | (workerId << (sequenceBits + geneBits))
        | (sequence << geneBits)
        | gene;
  }

  // ---------------------------------------------------------------- capacity

  /** Largest worker id: {@code 2^W - 1}. */
  public long maxWorkerId() {
    return (1L << workerBits) - 1;
  }

  /** Number of worker ids: {@code 2^W}. */
  public long workerCount() {
    return 1L << workerBits;
  }

  /** Largest sequence value: {@code 2^S - 1}. */
  public long maxSequence() {
    return (1L << sequenceBits) - 1;
  }

  /** Ids one worker can issue for one gene in one millisecond: {@code 2^S}. */
  public long idsPerMillisPerGene() {
    return 1L << sequenceBits;
  }

  /** Ids one worker can issue in one millisecond over all genes: {@code 2^(S+G)}. */
  public long idsPerMillisPerWorker() {
    return 1L << (sequenceBits + geneBits);
  }

  /** Largest timestamp field value, in milliseconds since {@link #epoch()}: {@code 2^T - 1}. */
  public long maxTimestampMillis() {
    return (1L << timestampBits) - 1;
  }

  /** The last instant this layout can represent; ids cannot be issued after it. */
  public Instant lastTimestamp() {
    return epoch.plusMillis(maxTimestampMillis());
  }

  /** {@link #lastTimestamp()} as years after the epoch (365.25-day years). */
  public double years() {
    return ((double) maxTimestampMillis() + 1) / (365.25 * 24 * 3600 * 1000);
  }

  /**
   * The first instant whose ids are above {@code 2^53 - 1} ({@code Number.MAX_SAFE_INTEGER}): from then on a
   * JavaScript {@code Number} (JSON parsed in a browser, Node.js) rounds these ids, so they must travel as strings.
   * Ids of every earlier millisecond are JavaScript-safe. With the default layout that is 2^31 ms (about 24.9 days)
   * after the epoch: default ids are not JavaScript-safe.
   */
  public Instant javaScriptSafeUntil() {
    return epoch.plusMillis(1L << (53 - workerBits - sequenceBits - geneBits));
  }

  /**
   * A warning when this layout's timestamp field runs out within {@code horizon} of {@code now}, else empty.
   * {@link io.geneid.core.snowflake.GeneSnowflakeGenerator} logs it once per layout when a generator is built; a zero horizon never warns.
   *
   * @throws IllegalArgumentException if {@code horizon} is negative
   */
  public Optional<String> capacityWarning(Instant now, Duration horizon) {
    if (horizon.isNegative()) {
      throw new IllegalArgumentException("capacity warning horizon must not be negative but was " + horizon);
    }
    Instant end = lastTimestamp().plusMillis(1);
    Duration left = Duration.between(now, end);
    if (left.compareTo(horizon) >= 0) {
      return Optional.empty();
    }
    String when = left.isNegative() || left.isZero()
        ? "ran out at " + end
        : "runs out at " + end + ", in " + left.toDays() + " days";
    return Optional.of("the timestamp field of " + this + " " + when
        + " (capacity warning horizon " + horizon.toDays() + " days): no id can be issued after that; plan the move"
        + " to a layout with more timestampBits or a later epoch before then");
  }

  @Override
  public String toString() {
    return "GeneIdLayout[epoch=" + epoch + ", T=" + timestampBits + ", W=" + workerBits + ", S=" + sequenceBits
        + ", G=" + geneBits + "]";
  }

  /** Builds a {@link GeneIdLayout}; fields are checked together by {@link #build()}. */
  public static final class Builder {
    private Instant epoch;
    private int timestampBits;
    private int workerBits;
    private int sequenceBits;
    private int geneBits;

    Builder(GeneIdLayout from) {
      this.epoch = from.epoch;
      this.timestampBits = from.timestampBits;
      this.workerBits = from.workerBits;
      this.sequenceBits = from.sequenceBits;
      this.geneBits = from.geneBits;
    }

    /** The instant timestamp 0 stands for. Default 2025-01-01T00:00:00Z. */
    public Builder epoch(Instant epoch) {
      this.epoch = epoch;
      return this;
    }

    /** T. Default 41. */
    public Builder timestampBits(int timestampBits) {
      this.timestampBits = timestampBits;
      return this;
    }

    /** W. Default 8. */
    public Builder workerBits(int workerBits) {
      this.workerBits = workerBits;
      return this;
    }

    /** S. Default 8. */
    public Builder sequenceBits(int sequenceBits) {
      this.sequenceBits = sequenceBits;
      return this;
    }

    /** G. Default 6. */
    public Builder geneBits(int geneBits) {
      this.geneBits = geneBits;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the field, its value and the allowed range
     */
    public GeneIdLayout build() {
      return new GeneIdLayout(epoch, timestampBits, workerBits, sequenceBits, geneBits);
    }
  }
}
