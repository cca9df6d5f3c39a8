package io.geneid.core.internal;

/** Not API: the range checks behind every "must be in [min, max] but was v" message of gene-id. */
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

  /**
   * Checks {@code min <= value <= max}.
   *
   * @return {@code value}
   * @throws IllegalArgumentException {@code "<name> must be in [<min>ms, <max>ms] but was <value>ms"}
   */
  public static java.time.Duration duration(String name, java.time.Duration value, java.time.Duration min,
      java.time.Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(name + " must be in [" + min.toMillis() + "ms, " + max.toMillis()
          + "ms] but was " + value.toMillis() + "ms");
    }
    return value;
  }
}
