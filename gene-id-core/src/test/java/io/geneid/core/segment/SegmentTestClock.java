package io.geneid.core.segment;

import io.geneid.core.GeneClock;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test moves it. */
final class SegmentTestClock implements GeneClock {
  private final AtomicLong millis = new AtomicLong(1_800_000_000_000L);

  @Override
  public long currentTimeMillis() {
    return millis.get();
  }

  void advance(long delta) {
    millis.addAndGet(delta);
  }
}
