package io.geneid.core.internal;

/** Not API: the one range check behind every "must be in [min, max] but was v" message of gene-id. */
public final class Checks {

  private Checks() {}

  /**
   * Checks {@code min <= value <= max}.
   *
   * @throws IllegalArgumentException {@code "<name> must be in [<min>, <max>] but was <value>"}
   */
  public static void range(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "] but was " + value);
    }
  }
}
