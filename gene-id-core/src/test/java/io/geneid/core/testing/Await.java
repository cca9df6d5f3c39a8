package io.geneid.core.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Polls a condition that another thread or process makes true (a renewal that failed, a lease that lapsed), failing
 * after a timeout. Not a way to wait for time: tests that need time to pass move a controllable clock. Shared through
 * core's test-jar. The timeout is a base value: it is {@linkplain TestTime#scaled(Duration) scaled} by the tests' time
 * scale, so a busy machine waits longer before failing, and a condition that holds early ends the wait as early.
 */
public final class Await {
  private Await() {}

  /**
   * Polls {@code condition} every millisecond until it holds; fails naming {@code what} after {@code timeout} times
   * the time scale.
   */
  public static void until(BooleanSupplier condition, Duration base, String what) {
    Duration timeout = TestTime.scaled(base);
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
