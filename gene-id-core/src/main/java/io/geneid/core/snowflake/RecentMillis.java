package io.geneid.core.snowflake;

import io.geneid.core.GeneClock;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A recent reading of {@link GeneClock#system()}, kept by a daemon thread ({@code gene-id-clock}) that reads the clock
 * about once a millisecond while generators use it, so that issuing an id of a millisecond already under way costs a
 * memory read instead of a clock read ({@link System#nanoTime()} costs 20 to 30 ns on a virtual machine).
 *
 * <p>What a generator may rely on: every value {@link #read()} returns is an earlier reading of the exact clock, so it
 * is never ahead of the exact clock; it lags it by about a millisecond, more when the thread is not scheduled. A
 * generator uses it only where an earlier time is safe (a gene entering a millisecond that is not ahead of the clock,
 * or the next sequence of a millisecond it already entered) and reads the exact clock for everything else: borrowing,
 * waiting, the restart floor.
 *
 * <p>The thread starts on the first read and stops after about a second without reads; while it is stopped a read
 * returns the exact clock and starts it again. Readers write a shared word at most once per tick.
 */
final class RecentMillis {

  /** {@link #MILLIS} while no thread keeps the reading. */
  private static final long STOPPED = Long.MIN_VALUE;
  private static final long TICK_NANOS = 1_000_000L;
  /** Ticks without a read after which the thread stops. */
  private static final int IDLE_TICKS = 1_000;
  /** Two cells in the middle of 16 longs, on a cache line of their own. */
  private static final int MILLIS = 7;
  /** 1 once read since the last tick. */
  private static final int READ = 8;

  private static final AtomicLongArray CELLS = new AtomicLongArray(16);
  private static final AtomicBoolean RUNNING = new AtomicBoolean();

  static {
    CELLS.set(MILLIS, STOPPED);
  }

  private RecentMillis() {}

  /** A reading of {@link GeneClock#system()} at most about a millisecond old (never ahead of it). */
  static long read() {
    long millis = CELLS.get(MILLIS);
    if (millis == STOPPED) {
      start();
      return GeneClock.system().currentTimeMillis();
    }
    if (CELLS.getOpaque(READ) == 0L) {
      CELLS.setOpaque(READ, 1L);
    }
    return millis;
  }

  private static void start() {
    if (RUNNING.compareAndSet(false, true)) {
      CELLS.set(MILLIS, GeneClock.system().currentTimeMillis());
      Thread ticker = new Thread(RecentMillis::tick, "gene-id-clock");
      ticker.setDaemon(true);
      ticker.start();
    }
  }

  private static void tick() {
    int idle = 0;
    for (;;) {
      LockSupport.parkNanos(TICK_NANOS);
      long now = GeneClock.system().currentTimeMillis();
      if (CELLS.getOpaque(READ) != 0L) {
        CELLS.setOpaque(READ, 0L);
        idle = 0;
      } else if (++idle >= IDLE_TICKS) {
        // readers see STOPPED and read the exact clock until one of them starts a new thread
        CELLS.set(MILLIS, STOPPED);
        RUNNING.set(false);
        return;
      }
      CELLS.set(MILLIS, now);
    }
  }
}
