package io.geneid.redis;

import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A thread that takes ids from a generator at a bounded pace through store faults: it keeps every id, counts the ids
 * it got twice, the calls that failed (fenced, store unavailable) and, from a moment on, when it first issued again
 * after a failure.
 */
final class Issuer implements AutoCloseable {

  final String name;
  private final LongSupplier next;
  private final int perMilli;
  private final Set<Long> ids;
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong issued = new AtomicLong();
  private volatile long markNanos = Long.MAX_VALUE;
  private volatile long failedAfterMark;
  private volatile long recoveredNanos;
  private volatile long issuedAtMark;
  private volatile boolean stop;
  private final Thread thread;

  /**
   * Starts taking {@code perMilli} ids, then pausing a millisecond, into {@code ids} (shared by the issuers whose ids
   * must not collide).
   */
  Issuer(String name, LongSupplier next, int perMilli, Set<Long> ids) {
    this.name = name;
    this.ids = ids;
    this.next = next;
    this.perMilli = perMilli;
    this.thread = new Thread(this::run, "issuer-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (!stop) {
      for (int i = 0; i < perMilli && !stop; i++) {
        long id;
        try {
          id = next.getAsLong();
        } catch (RuntimeException e) {
          failures.incrementAndGet();
          if (System.nanoTime() >= markNanos && failedAfterMark == 0) {
            failedAfterMark = System.nanoTime();
          }
          break;
        }
        if (!ids.add(id)) {
          duplicates.incrementAndGet();
        }
        issued.incrementAndGet();
        if (failedAfterMark != 0 && recoveredNanos == 0) {
          recoveredNanos = System.nanoTime();
        }
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** From now on, note the first failure and the first id after it (a failover starts). */
  void mark() {
    failedAfterMark = 0;
    recoveredNanos = 0;
    issuedAtMark = issued.get();
    markNanos = System.nanoTime();
  }

  /** Whether, since {@link #mark()}, it issued {@code n} ids after its last recovery (or without failing). */
  boolean issuedSinceMark(long n) {
    return issued.get() - issuedAtMark >= n && (failedAfterMark == 0 || recoveredNanos != 0);
  }

  /** Milliseconds from {@link #mark()} to the first id after the first failure since then; 0 if it never failed. */
  long millisToRecover() {
    return failedAfterMark == 0 ? 0 : (recoveredNanos - markNanos) / 1_000_000;
  }

  /** Milliseconds without ids after the mark: from the first failure to the first id after it. */
  long millisWithoutIds() {
    return failedAfterMark == 0 ? 0 : (recoveredNanos - failedAfterMark) / 1_000_000;
  }

  long duplicates() {
    return duplicates.get();
  }

  long failures() {
    return failures.get();
  }

  long issued() {
    return issued.get();
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.join(10_000);
  }
}
