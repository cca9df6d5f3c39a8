package io.geneid.core;

import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import java.util.List;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The string form of a gene id: an optional business prefix, an optional date, and the 64-bit id in 13 characters of
 * Crockford's base 32, so that string ids sort like the numbers they stand for and decode back to them (the gene,
 * worker and time stay readable from the string).
 *
 * <pre>
 *   ORD 20261122 06Y375A2W3G0P
 *   |   |        +-- the id, 13 base-32 digits, most significant first (first digit 0-7: 63 bits)
 *   |   +----------- the UTC day (yyyyMMdd) of the id's own timestamp, optional
 *   +--------------- the prefix, optional: 1 to 32 of A-Z a-z 0-9 _ - . :
 * </pre>
 *
 * <p>The digits are {@value #ALPHABET}: Crockford's base 32, in ASCII order, upper case, without I, L, O and U. Every
 * string of one format has the same length, so <b>string order is numeric order</b> for ids of one format: a later
 * id never sorts before an earlier one of its gene (and the date, taken from the id, never goes down as the id grows).
 * Base 32 rather than base 62: base 62 needs lower and upper case apart, and the default case-insensitive collations
 * of MySQL and MariaDB would then sort them wrongly and even find two different ids equal in a unique index.
 *
 * <p>{@link #parse(CharSequence)} accepts only the canonical form (no lower case, no Crockford look-alikes): one id has
 * one string, so a string key finds its row. The gene of a string id is the gene of the number it encodes,
 * {@code parse(s) & (2^G - 1)}; this is how {@code GENE_MOD} routes string ids configured with this format, so a
 * string child id lands with its numeric parent.
 *
 * @param prefix the business prefix, possibly empty
 * @param dateLayout the layout whose timestamps give the date part, or null for no date part; the date part needs a
 *     layout whose timestamps end before the year 10000
 */
public record GeneIdStringFormat(String prefix, @Nullable GeneIdLayout dateLayout) {

  /** The digits, in ascending order (ASCII order too): Crockford's base 32. */
  public static final String ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  /** Characters of the id part: 13 base-32 digits hold 65 bits, of which an id uses 63. */
  public static final int ID_LENGTH = 13;
  /** Characters of the date part: {@code yyyyMMdd}. */
  public static final int DATE_LENGTH = 8;
  /** The longest prefix. */
  public static final int MAX_PREFIX_LENGTH = 32;

  private static final long MILLIS_PER_DAY = 86_400_000L;
  /** Digit value per ASCII character, -1 where none. */
  private static final byte[] VALUES = new byte[128];
  private static final GeneIdStringFormat PLAIN = new GeneIdStringFormat("", null);

  static {
    java.util.Arrays.fill(VALUES, (byte) -1);
    for (int i = 0; i < ALPHABET.length(); i++) {
      VALUES[ALPHABET.charAt(i)] = (byte) i;
    }
  }

  /**
   * Checks the prefix and the date layout.
   *
   * @throws IllegalArgumentException naming the prefix character or the layout's last day that does not fit
   */
  public GeneIdStringFormat {
    Objects.requireNonNull(prefix, "prefix");
    if (prefix.length() > MAX_PREFIX_LENGTH) {
      throw new InvalidSettingException(SettingsReader.STRING_ID_PREFIX, "'" + prefix + "' (" + prefix.length() + ")",
          "at most " + MAX_PREFIX_LENGTH + " characters");
    }
    for (int i = 0; i < prefix.length(); i++) {
      char c = prefix.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
          || c == ':')) {
        throw new InvalidSettingException(SettingsReader.STRING_ID_PREFIX, "'" + prefix + "' (character '" + c
            + "' at index " + i + ")", "made of A-Z a-z 0-9 _ - . :");
      }
    }
    if (dateLayout != null) {
      Instant last = dateLayout.lastTimestamp();
      if (last.isAfter(Instant.parse("9999-12-31T23:59:59.999Z"))) {
        throw new InvalidSettingException(SettingsReader.STRING_ID_DATE, "true with " + dateLayout + ", which runs"
            + " until " + last, "false unless the layout's timestamps end before the year 10000 (a yyyyMMdd part)");
      }
    }
  }

  /**
   * The string form of ids, or null for numeric ids: {@link SettingsReader#STRING_IDS} ({@code true} turns it on,
   * default {@code false}), {@link SettingsReader#STRING_ID_PREFIX} (default none) and
   * {@link SettingsReader#STRING_ID_DATE} (default {@code false}; the date part is the UTC day of each id's timestamp
   * under {@code dateLayout}).
   *
   * @param dateLayout the layout of the ids, for the date part; null where ids carry no time (segment ids), which
   *     refuses {@code string-id-date: true}
   * @throws InvalidSettingException naming the key as {@code props} names it: a prefix or date set while string ids
   *     are off, a bad prefix, a date part without a time to take it from
   */
  public static @Nullable GeneIdStringFormat from(SettingsReader props, @Nullable GeneIdLayout dateLayout) {
    if (!props.bool(SettingsReader.STRING_IDS, false)) {
      for (String key : List.of(SettingsReader.STRING_ID_PREFIX, SettingsReader.STRING_ID_DATE)) {
        if (props.has(key)) {
          throw props.named(new InvalidSettingException(key, "set", "unset while " + props.nameOf(
              SettingsReader.STRING_IDS) + " is false (it configures string ids)"));
        }
      }
      return null;
    }
    try {
      Builder b = builder().prefix(props.string(SettingsReader.STRING_ID_PREFIX, ""));
      if (props.bool(SettingsReader.STRING_ID_DATE, false)) {
        if (dateLayout == null) {
          throw new InvalidSettingException(SettingsReader.STRING_ID_DATE, "true", "false for ids that carry no time"
              + " to take a date from");
        }
        b.date(dateLayout);
      }
      return b.build();
    } catch (InvalidSettingException e) {
      throw props.named(e);
    }
  }

  /** No prefix, no date: the 13 id digits alone. */
  public static GeneIdStringFormat plain() {
    return PLAIN;
  }

  /** A builder; without settings it builds {@link #plain()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Whether strings of this format carry a date part. */
  public boolean hasDate() {
    return dateLayout != null;
  }

  /** The length of every string of this format. */
  public int length() {
    return prefix.length() + (dateLayout == null ? 0 : DATE_LENGTH) + ID_LENGTH;
  }

  /**
   * The string of {@code id}.
   *
   * @throws IllegalArgumentException if id is negative
   */
  public String format(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("id must not be negative but was " + id);
    }
    char[] out = new char[length()];
    prefix.getChars(0, prefix.length(), out, 0);
    int at = prefix.length();
    if (dateLayout != null) {
      writeDate(out, at, dayOf(id, dateLayout));
      at += DATE_LENGTH;
    }
    long v = id;
    for (int i = at + ID_LENGTH - 1; i >= at; i--) {
      out[i] = ALPHABET.charAt((int) (v & 31));
      v >>>= 5;
    }
    return new String(out);
  }

  /**
   * The id a string of this format stands for.
   *
   * @throws IllegalArgumentException naming the string and what is wrong: its length, its prefix, a character that is
   *     no base-32 digit (or date digit), a value above 63 bits, a date that is no day, or a date that is not the day
   *     of the id's own timestamp
   */
  public long parse(CharSequence text) {
    Objects.requireNonNull(text, "text");
    String problem = shapeProblem(text);
    if (problem != null) {
      throw new IllegalArgumentException("string id '" + text + "' " + problem);
    }
    long id = idPart(text);
    if (dateLayout != null) {
      int at = prefix.length();
      LocalDate written;
      try {
        written = LocalDate.of(digits(text, at, 4), digits(text, at + 4, 2), digits(text, at + 6, 2));
      } catch (DateTimeException e) {
        throw new IllegalArgumentException("string id '" + text + "' has the date part '"
            + text.subSequence(at, at + DATE_LENGTH) + "', which is not a day (yyyyMMdd)", e);
      }
      LocalDate actual = dayOf(id, dateLayout);
      if (!written.equals(actual)) {
        throw new IllegalArgumentException("string id '" + text + "' has the date part "
            + text.subSequence(at, at + DATE_LENGTH) + " but its id " + id + " was made at "
            + dateLayout.decode(id).timestamp() + " (" + compact(actual) + " UTC): the string was altered");
      }
    }
    return id;
  }

  /**
   * Whether {@code text} has this format's shape: its length, its prefix, eight digits where the date goes and 13
   * base-32 digits of at most 63 bits. Whether the date is the id's own day is checked by {@link #parse}.
   */
  public boolean matches(@Nullable CharSequence text) {
    return text != null && shapeProblem(text) == null;
  }

  /** The parts of a string id under {@code layout}: {@code layout.decode(parse(text))}. */
  public GeneIdParts decode(CharSequence text, GeneIdLayout layout) {
    return layout.decode(parse(text));
  }

  private @Nullable String shapeProblem(CharSequence text) {
    int length = length();
    if (text.length() != length) {
      return "must have " + length + " characters (" + describe() + ") but has " + text.length();
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (text.charAt(i) != prefix.charAt(i)) {
        return "must start with the prefix '" + prefix + "'";
      }
    }
    int at = prefix.length();
    if (dateLayout != null) {
      for (int i = at; i < at + DATE_LENGTH; i++) {
        char c = text.charAt(i);
        if (c < '0' || c > '9') {
          return "has '" + c + "' at index " + i + " in its date part (yyyyMMdd), not a digit";
        }
      }
      at += DATE_LENGTH;
    }
    for (int i = at; i < length; i++) {
      char c = text.charAt(i);
      if (c >= 128 || VALUES[c] < 0) {
        return "has '" + c + "' at index " + i + " in its id part, not a base-32 digit (" + ALPHABET + ")";
      }
    }
    if (VALUES[text.charAt(at)] > 7) {
      return "encodes a number above 63 bits: the first digit of its id part must be 0 to 7 but was '"
          + text.charAt(at) + "'";
    }
    return null;
  }

  private long idPart(CharSequence text) {
    long v = 0;
    for (int i = text.length() - ID_LENGTH; i < text.length(); i++) {
      v = (v << 5) | VALUES[text.charAt(i)];
    }
    return v;
  }

  private String describe() {
    return (prefix.isEmpty() ? "" : "prefix '" + prefix + "', ") + (dateLayout == null ? "" : "date yyyyMMdd, ")
        + ID_LENGTH + " base-32 digits";
  }

  private static int digits(CharSequence text, int from, int count) {
    int v = 0;
    for (int i = from; i < from + count; i++) {
      v = v * 10 + (text.charAt(i) - '0');
    }
    return v;
  }

  private static LocalDate dayOf(long id, GeneIdLayout layout) {
    long millis = layout.epoch().toEpochMilli() + (id >>> (63 - layout.timestampBits()));
    return LocalDate.ofEpochDay(Math.floorDiv(millis, MILLIS_PER_DAY));
  }

  private static void writeDate(char[] out, int at, LocalDate day) {
    writeDigits(out, at, day.getYear(), 4);
    writeDigits(out, at + 4, day.getMonthValue(), 2);
    writeDigits(out, at + 6, day.getDayOfMonth(), 2);
  }

  private static void writeDigits(char[] out, int at, int value, int count) {
    for (int i = at + count - 1; i >= at; i--) {
      out[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  private static String compact(LocalDate day) {
    char[] out = new char[DATE_LENGTH];
    writeDate(out, 0, day);
    return new String(out);
  }

  @Override
  public String toString() {
    return "GeneIdStringFormat[" + describe() + (dateLayout == null ? "" : " (date of " + dateLayout + ")") + "]";
  }

  /** Configuration of a {@link GeneIdStringFormat}. */
  public static final class Builder {
    private String prefix = "";
    private @Nullable GeneIdLayout dateLayout;

    private Builder() {}

    /** The business prefix ({@code ORD}): up to 32 of {@code A-Z a-z 0-9 _ - . :}. Default none. */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /**
     * Adds the date part: the UTC day ({@code yyyyMMdd}) of each id's timestamp under {@code layout}, the layout the
     * ids are made with. Default none.
     */
    public Builder date(GeneIdLayout layout) {
      this.dateLayout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /**
     * The format.
     *
     * @throws IllegalArgumentException for a bad prefix or a date layout that runs past the year 9999
     */
    public GeneIdStringFormat build() {
      return new GeneIdStringFormat(prefix, dateLayout);
    }
  }
}
