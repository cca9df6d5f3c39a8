package io.geneid.client;

import io.geneid.core.GeneIdException;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The ids of one gene (or one segment key) fetched ahead from the servers, handed out in the order they came.
 *
 * <p>Every id is handed out at most once: ids are taken under one lock, and the lock is never held across a network
 * call. When a take leaves {@link #lowWaterMark} ids or fewer, a refill of {@link #batchSize} ids starts on the
 * executor; a caller that finds fewer ids than it needs waits for the refill in flight (starting one if none is), and
 * if that refill fails, throws its error: callers do not queue up behind an outage, each waits for one refill at most.
 * After a failure, a background refill waits {@link #retryPause} before the next try, so an outage with ids left does
 * not spin; a caller that needs ids tries at once.
 */
final class IdBuffer {

  /** Fetches {@code n} ids; blocks for at most its own time-out; throws {@link GeneIdException} when it cannot. */
  @FunctionalInterface
  interface Source {
    long[] fetch(int n);
  }

  private final String name;
  private final Source source;
  private final int batchSize;
  private final int lowWaterMark;
  private final long retryPauseNanos;
  private final long maxWaitNanos;
  private final Executor executor;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  /** Fetched chunks, oldest first; ids {@code [head, length)} of the first are left (guarded by lock). */
  private final ArrayDeque<long[]> chunks = new ArrayDeque<>();
  private int head;
  private int available;
  private boolean fetching;
  private boolean closed;
  private long failures;
  private @Nullable GeneIdException lastFailure;
  private long lastFailureNanos;

  IdBuffer(String name, Source source, int batchSize, int lowWaterMark, long retryPauseNanos, long maxWaitNanos,
      Executor executor) {
    this.name = name;
    this.source = source;
    this.batchSize = batchSize;
    this.lowWaterMark = lowWaterMark;
    this.retryPauseNanos = retryPauseNanos;
    this.maxWaitNanos = maxWaitNanos;
    this.executor = executor;
  }

  /** One id. */
  long take() {
    long[] one = new long[1];
    take(one, 0, 1);
    return one[0];
  }

  /**
   * Copies {@code n} ids ({@code n <= batchSize}) into {@code into[from ..]}, in the order they were fetched.
   *
   * @throws GeneIdException if the buffer holds fewer and the refill fails, or the buffer is closed
   */
  void take(long[] into, int from, int n) {
    lock.lock();
    try {
      long seenFailures = failures;
      long deadline = 0L;
      while (available < n) {
        if (closed) {
          throw new GeneIdException(name + " is closed");
        }
        if (failures != seenFailures) {
          GeneIdException failure = lastFailure;
          throw failure instanceof GeneServerUnavailableException u ? u.rethrown() : failure;
        }
        if (!fetching) {
          startFetch();
          continue; // startFetch may fail at once (executor shut down): look again
        }
        long now = System.nanoTime();
        if (deadline == 0L) {
          deadline = now + maxWaitNanos;
        } else if (now - deadline >= 0) {
          throw new GeneIdException(name + ": no ids after waiting " + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
              + " ms for a refill");
        }
        changed.awaitNanos(deadline - now);
      }
      int taken = 0;
      while (taken < n) {
        long[] chunk = chunks.getFirst();
        int count = Math.min(n - taken, chunk.length - head);
        System.arraycopy(chunk, head, into, from + taken, count);
        taken += count;
        head += count;
        if (head == chunk.length) {
          chunks.removeFirst();
          head = 0;
        }
      }
      available -= n;
      if (available <= lowWaterMark && !fetching && !closed
          && (lastFailure == null || System.nanoTime() - lastFailureNanos >= retryPauseNanos)) {
        startFetch();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GeneIdException(name + ": interrupted while waiting for ids", e);
    } finally {
      lock.unlock();
    }
  }

  /** Starts a refill in the background if the buffer is empty and none is in flight; does not wait. */
  void prefetch() {
    lock.lock();
    try {
      if (available == 0 && !fetching && !closed) {
        startFetch();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Starts a refill on the executor (lock held). */
  private void startFetch() {
    fetching = true;
    try {
      executor.execute(this::fetch);
    } catch (RejectedExecutionException e) {
      fetching = false;
      failed(new GeneIdException(name + " is closed", e));
    }
  }

  private void fetch() {
    long[] ids;
    try {
      ids = source.fetch(batchSize);
    } catch (RuntimeException e) {
      GeneIdException failure = e instanceof GeneIdException g ? g
          : new GeneIdException(name + ": refill failed: " + e, e);
      lock.lock();
      try {
        fetching = false;
        failed(failure);
      } finally {
        lock.unlock();
      }
      return;
    }
    lock.lock();
    try {
      fetching = false;
      if (!closed && ids.length > 0) {
        chunks.addLast(ids);
        available += ids.length;
        lastFailure = null;
      }
      changed.signalAll();
      if (available <= lowWaterMark && !closed) {
        startFetch(); // a low-water mark above one batch: keep filling
      }
    } finally {
      lock.unlock();
    }
  }

  /** Records a failed refill and wakes the callers waiting for it (lock held). */
  private void failed(GeneIdException failure) {
    failures++;
    lastFailure = failure;
    lastFailureNanos = System.nanoTime();
    changed.signalAll();
  }

  /** Ids ready to be handed out. */
  int available() {
    lock.lock();
    try {
      return available;
    } finally {
      lock.unlock();
    }
  }

  /** Drops the ids left (they are a gap, never handed out) and fails the callers waiting. */
  void close() {
    lock.lock();
    try {
      closed = true;
      chunks.clear();
      available = 0;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
