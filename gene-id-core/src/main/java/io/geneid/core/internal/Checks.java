package io.geneid.core.internal;

import io.geneid.core.settings.InvalidSettingException;

/** Not API: the range checks behind every "must be in [min, max] but was v" message of gene-id. */
public final class Checks {

  private Checks() {}

  /**
   * Checks {@code min <= value <= max}.
   *
   * @throws IllegalArgumentException {@code "<name> must be in [<min>, <max>] but was <value>"}
   */
  public static void range(String name, long value, long min, long max) {
    InvalidSettingException.requireRange(name, value, min, max);
  }

  /**
   * Checks {@code min <= value <= max}.
   *
   * @return {@code value}
   * @throws IllegalArgumentException {@code "<name> must be in [<min>ms, <max>ms] but was <value>ms"}
   */
  public static java.time.Duration duration(String name, java.time.Duration value, java.time.Duration min,
      java.time.Duration max) {
    return InvalidSettingException.requireRange(name, value, min, max);
  }
}
