package io.geneid.core.snowflake;

import io.geneid.core.GeneClock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Notices a generator's clock stepping back and counts waits for the clock. Only the generator's slower paths call
 * it (a gene entering a new millisecond, borrowing, waiting), never the issue of a second id in the same
 * millisecond, so it costs the hot path nothing and its shared words are written about once per millisecond.
 */
final class ClockWatch {

  private final GeneClock clock;
  private final long epochMillis;
  /** Latest clock reading seen, in ms since the layout epoch. */
  private final AtomicLong latest = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong stepBacks = new AtomicLong();
  private final AtomicLong largestStepBack = new AtomicLong();
  private final AtomicLong waits = new AtomicLong();

  ClockWatch(GeneClock clock, long epochMillis) {
    this.clock = clock;
    this.epochMillis = epochMillis;
  }

  /** Records a clock reading ({@code now}, ms since the epoch). */
  void observe(long now) {
    long seen = latest.get();
    if (now > seen) {
      // a failed CAS means another thread moved it, up or (a confirmed step) down: either way keep theirs
      latest.compareAndSet(seen, now);
    } else if (now < seen) {
      confirmStepBack(seen);
    }
  }

  /**
   * {@code now} may be stale (this thread read the clock, then was delayed while others read later times): read
   * the clock again, after having read {@code seen}. Only a second reading still behind {@code seen} is a step.
   */
  private void confirmStepBack(long seen) {
    long again = clock.currentTimeMillis() - epochMillis;
    if (again < seen && latest.compareAndSet(seen, again)) {
      stepBacks.incrementAndGet();
      largestStepBack.accumulateAndGet(seen - again, Math::max);
    }
  }

  void waited() {
    waits.incrementAndGet();
  }

  long stepBacks() {
    return stepBacks.get();
  }

  long largestStepBack() {
    return largestStepBack.get();
  }

  long waits() {
    return waits.get();
  }
}
