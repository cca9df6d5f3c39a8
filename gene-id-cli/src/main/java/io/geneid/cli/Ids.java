package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdStringFormat;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.LocalDate;
import org.jspecify.annotations.Nullable;

/** Parsing of the numbers given on the command line, with messages that name the value and the range. */
final class Ids {

  private Ids() {}

  /** A non-negative id: a decimal whole number in [0, 2^63 - 1]. */
  static long id(String text) {
    return wholeNumber("id", text);
  }

  /**
   * An id as given: decimal, or a string id ({@link GeneIdStringFormat}: a prefix, an optional {@code yyyyMMdd} date
   * and 13 base-32 digits). The format is recognised from the text: the last 13 characters are the id; eight digits
   * before them that form a day are its date part (checked against the id's day under {@code layout}); the rest is
   * the prefix.
   *
   * @param format the configured string format ({@code --string-id-prefix}, {@code --string-id-date}), or null
   */
  static Parsed parse(String text, GeneIdLayout layout, @Nullable GeneIdStringFormat format) {
    String t = text.trim();
    if (t.matches("[+-]?[\\d_]+") || t.length() < GeneIdStringFormat.ID_LENGTH && format == null) {
      return new Parsed(id(text), null);
    }
    GeneIdStringFormat f = format != null ? format : recognise(t, layout);
    try {
      return new Parsed(f.parse(t), f);
    } catch (IllegalArgumentException e) {
      throw new BadInputException("id must be a whole number in [0, " + Long.MAX_VALUE + "] or a string id ("
          + (format != null ? "of the format --string-id-prefix and --string-id-date give" : "a prefix, an optional"
          + " yyyyMMdd date and " + GeneIdStringFormat.ID_LENGTH + " base-32 digits") + ") but was '" + text + "': "
          + e.getMessage());
    }
  }

  /** The format {@code t} is written in, read from its shape (see {@link #parse}). */
  private static GeneIdStringFormat recognise(String t, GeneIdLayout layout) {
    int rest = Math.max(0, t.length() - GeneIdStringFormat.ID_LENGTH);
    String head = t.substring(0, rest);
    GeneIdStringFormat.Builder b = GeneIdStringFormat.builder();
    int dateAt = head.length() - GeneIdStringFormat.DATE_LENGTH;
    if (dateAt >= 0 && isDay(head.substring(dateAt))) {
      b.date(layout);
      head = head.substring(0, dateAt);
    }
    try {
      return b.prefix(head).build();
    } catch (IllegalArgumentException e) {
      throw new BadInputException("id must be a whole number in [0, " + Long.MAX_VALUE + "] or a string id (a "
          + "prefix, an optional yyyyMMdd date and " + GeneIdStringFormat.ID_LENGTH + " base-32 digits) but was '"
          + t + "': " + e.getMessage());
    }
  }

  private static boolean isDay(String eight) {
    if (!eight.matches("\\d{8}")) {
      return false;
    }
    try {
      LocalDate.of(Integer.parseInt(eight.substring(0, 4)), Integer.parseInt(eight.substring(4, 6)),
          Integer.parseInt(eight.substring(6)));
      return true;
    } catch (DateTimeException e) {
      return false;
    }
  }

  /**
   * An id and, for a string id, its format.
   *
   * @param id the number
   * @param format the string form it was given in, or null for a decimal
   */
  record Parsed(long id, @Nullable GeneIdStringFormat format) {}

  static long wholeNumber(String what, String text) {
    String value = text.trim().replace("_", "");
    if (value.matches("[+-]?\\d+")) {
      BigInteger number = new BigInteger(value);
      if (number.signum() < 0) {
        throw new BadInputException(what + " must not be negative but was " + text);
      }
      if (number.bitLength() > 63) {
        throw new BadInputException(what + " must be in [0, " + Long.MAX_VALUE + "] but was " + text);
      }
      return number.longValue();
    }
    throw new BadInputException(what + " must be a whole number in [0, " + Long.MAX_VALUE + "] but was '" + text
        + "'");
  }
}
