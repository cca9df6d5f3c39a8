package io.geneid.core.testing;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneClock;

import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves by hand; optionally it advances by 1 ms every {@code readsPerTick} reads. */
public final class ManualClock implements GeneClock {
  private final AtomicLong millis;
  private final AtomicLong reads = new AtomicLong();
  private volatile long readsPerTick;

  public ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  public static ManualClock atDefaultEpochPlusDays(int days) {
    return new ManualClock(GeneIdLayout.DEFAULT_EPOCH.toEpochMilli() + days * 86_400_000L);
  }

  /** Advance 1 ms every n reads (0: never by itself). */
  public ManualClock tickEvery(long n) {
    this.readsPerTick = n;
    return this;
  }

  public void advance(long deltaMillis) {
    millis.addAndGet(deltaMillis);
  }

  public void set(long unixMillis) {
    millis.set(unixMillis);
  }

  public long now() {
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
