package io.geneid.core.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Polls a condition that another thread or process makes true (a renewal that failed, a lease that lapsed), failing
 * after a timeout. Not a way to wait for time: tests that need time to pass move a controllable clock. Shared through
 * core's test-jar.
 */
public final class Await {
  private Await() {}

  /** Polls {@code condition} every millisecond until it holds; fails naming {@code what} after {@code timeout}. */
  public static void until(BooleanSupplier condition, Duration timeout, String what) {
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
