package io.geneid.core;

/**
 * The time source of a generator, in milliseconds since 1970-01-01T00:00:00Z.
 *
 * <p>Tests pass their own (a lambda over an {@code AtomicLong} is enough). Production code uses {@link #system()}.
 */
@FunctionalInterface
public interface GeneClock {

  /** Milliseconds since the Unix epoch. */
  long currentTimeMillis();

  /**
   * The default clock: the wall clock read once, then advanced by {@link System#nanoTime()}. It never goes
   * backwards inside a process, whatever NTP or an operator does to the wall clock; it can drift from the wall
   * clock by the rate error of the two clocks over the life of the process. {@link io.geneid.core.snowflake.GeneSnowflakeGenerator} issues
   * most ids with this clock from a reading that a daemon thread refreshes about once a millisecond (see "Clock"
   * there), which is never ahead of it.
   */
  static GeneClock system() {
    return MonotonicClock.INSTANCE;
  }

  /** {@link System#currentTimeMillis()}: follows every step of the wall clock, backwards ones included. */
  static GeneClock wall() {
    return WallClock.INSTANCE;
  }

  /** Anchored wall clock advanced by the monotonic nano clock. */
  enum MonotonicClock implements GeneClock {
    INSTANCE;

    private final long anchorMillis = System.currentTimeMillis();
    private final long anchorNanos = System.nanoTime();

    @Override
    public long currentTimeMillis() {
      return anchorMillis + (System.nanoTime() - anchorNanos) / 1_000_000L;
    }

    @Override
    public String toString() {
      return "GeneClock.system()";
    }
  }

  /** The plain wall clock. */
  enum WallClock implements GeneClock {
    INSTANCE;

    @Override
    public long currentTimeMillis() {
      return System.currentTimeMillis();
    }

    @Override
    public String toString() {
      return "GeneClock.wall()";
    }
  }
}
