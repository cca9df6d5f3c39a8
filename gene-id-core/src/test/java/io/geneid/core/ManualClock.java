package io.geneid.core;

import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves by hand; optionally it advances by 1 ms every {@code readsPerTick} reads. */
final class ManualClock implements GeneClock {
  private final AtomicLong millis;
  private final AtomicLong reads = new AtomicLong();
  private volatile long readsPerTick;

  ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  static ManualClock atDefaultEpochPlusDays(int days) {
    return new ManualClock(GeneIdLayout.DEFAULT_EPOCH.toEpochMilli() + days * 86_400_000L);
  }

  /** Advance 1 ms every n reads (0: never by itself). */
  ManualClock tickEvery(long n) {
    this.readsPerTick = n;
    return this;
  }

  void advance(long deltaMillis) {
    millis.addAndGet(deltaMillis);
  }

  void set(long unixMillis) {
    millis.set(unixMillis);
  }

  long now() {
    return millis.get();
  }

  @Override
  public long currentTimeMillis() {
    long n = readsPerTick;
    if (n > 0 && reads.incrementAndGet() % n == 0) {
      return millis.incrementAndGet();
    }
    return millis.get();
  }
}
