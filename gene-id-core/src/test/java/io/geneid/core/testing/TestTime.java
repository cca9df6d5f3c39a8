package io.geneid.core.testing;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;

/**
 * The one time scale of the tests: every TTL, time-out and wait a test gives a store, a client or a worker JVM is a
 * {@link #scaled(Duration) scaled} base value, so that a test's verdict does not depend on how busy the machine is.
 * Shared through core's test-jar, so every module's tests reach it.
 *
 * <p>The scale is the system property {@value #PROPERTY} when it is set ({@code mvn -B verify
 * -Dgene-id.test.time-scale=3}; Surefire passes {@code -D} properties on to the test JVMs). Otherwise it is measured
 * once per JVM: the load average per core, and how late a few 1 ms sleeps wake up. A machine with up to two runnable
 * jobs per core gets 1 (the base values, as the tests were written); one whose cores are queued deeper gets up to
 * {@value #MAX_AUTO}. The scale in
 * force is printed once, with what it was measured from.
 *
 * <p>Only waits scale. A bound a test asserts from below (at least one TTL passed) scales with the TTL it bounds; a
 * bound from above (fenced within a TTL) scales too, as the TTL does. Tests that move a controllable clock do not
 * need this.
 */
public final class TestTime {

  /** The system property that sets the scale (a number at least 1); unset, the scale is measured. */
  public static final String PROPERTY = "gene-id.test.time-scale";
  /** The largest scale a measurement sets; the property may set a larger one. */
  public static final double MAX_AUTO = 6;

  private static volatile double scale;

  private TestTime() {}

  /** The scale in force: {@value #PROPERTY} if set, else measured (once per JVM). At least 1. */
  public static double scale() {
    double s = scale;
    if (s == 0) {
      synchronized (TestTime.class) {
        s = scale;
        if (s == 0) {
          s = decide();
          scale = s;
        }
      }
    }
    return s;
  }

  /** {@code base} times the scale, whole milliseconds. */
  public static Duration scaled(Duration base) {
    return Duration.ofMillis(millis(base.toMillis()));
  }

  /** {@code baseMillis} times the scale. */
  public static long millis(long baseMillis) {
    return (long) Math.ceil(baseMillis * scale());
  }

  /** {@code base} seconds times the scale. */
  public static Duration seconds(long base) {
    return scaled(Duration.ofSeconds(base));
  }

  /** {@code base} milliseconds times the scale. */
  public static Duration ofMillis(long base) {
    return Duration.ofMillis(millis(base));
  }

  /**
   * {@code base} seconds times the scale, rounded up to whole seconds: for TTLs of stores that grant whole seconds
   * (etcd), whose TTL must not come out longer than the generator's.
   */
  public static Duration wholeSeconds(long base) {
    return Duration.ofSeconds((long) Math.ceil(base * scale()));
  }

  /** The {@code -D} argument that gives a JVM this test started the same scale. */
  public static String jvmArgument() {
    return "-D" + PROPERTY + "=" + String.format(Locale.ROOT, "%.2f", scale());
  }

  private static double decide() {
    String set = System.getProperty(PROPERTY);
    if (set != null && !set.isBlank()) {
      double s;
      try {
        s = Double.parseDouble(set.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(PROPERTY + " must be a number at least 1 but was '" + set + "'", e);
      }
      if (!(s >= 1) || Double.isInfinite(s)) {
        throw new IllegalArgumentException(PROPERTY + " must be a number at least 1 but was '" + set + "'");
      }
      return s;
    }
    int cores = Runtime.getRuntime().availableProcessors();
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(); // -1 where unknown
    double perCore = load < 0 ? 0 : load / cores;
    double lateness = sleepLateness();
    // up to two runnable jobs per core (two Maven builds on one machine) the base values hold; past that the scale
    // grows with the queue: 1.5 at three jobs per core, 3 at six
    double byLoad = perCore <= 2 ? 1 : perCore / 2;
    // a 1 ms sleep that wakes up after 5 ms or more: threads wait for a core
    double byLateness = lateness <= 4 ? 1 : lateness / 4;
    double s = Math.min(MAX_AUTO, Math.max(1, Math.max(byLoad, byLateness)));
    s = Math.round(s * 4) / 4.0;
    System.err.printf(Locale.ROOT, "[gene-id test] time scale %.2f (load average %.2f on %d cores, a 1 ms sleep takes"
        + " %.1f ms; -D%s=N sets it)%n", s, load, cores, lateness, PROPERTY);
    return s;
  }

  /** The median time a 1 ms sleep takes, in milliseconds, over 15 sleeps. */
  private static double sleepLateness() {
    double[] took = new double[15];
    for (int i = 0; i < took.length; i++) {
      long start = System.nanoTime();
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 1;
      }
      took[i] = (System.nanoTime() - start) / 1e6;
    }
    java.util.Arrays.sort(took);
    return took[took.length / 2];
  }
}
