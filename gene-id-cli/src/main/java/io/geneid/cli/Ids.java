package io.geneid.cli;

import java.math.BigInteger;

/** Parsing of the numbers given on the command line, with messages that name the value and the range. */
final class Ids {

  private Ids() {}

  /** A non-negative id: a decimal whole number in [0, 2^63 - 1]. */
  static long id(String text) {
    return wholeNumber("id", text);
  }

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
