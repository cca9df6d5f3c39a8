package io.geneid.core.segment;

import io.geneid.core.GeneIdException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An in-process {@link SegmentStore} for the generator's unit tests: a counter per tag, the steps asked for, and
 * switches to fail, to block or to reset a counter. The real stores are tested against real services in gene-id-jdbc and
 * gene-id-redis.
 */
final class SegmentTestStore implements SegmentStore {
  private final long initialMax;
  private final Map<String, Long> maxByTag = new HashMap<>();
  private final List<Long> steps = new ArrayList<>();
  private volatile RuntimeException failure;
  private volatile CountDownLatch gate;
  private volatile CountDownLatch answerGate;
  private int calls;
  private int failEveryOther;

  SegmentTestStore() {
    this(0);
  }

  SegmentTestStore(long initialMax) {
    this.initialMax = initialMax;
  }

  @Override
  public Segment nextSegment(String bizTag, long step) {
    CountDownLatch before;
    synchronized (this) {
      before = claimGate;
      claimGate = null;
    }
    if (before != null) { // this call waits before it claims anything (a request stuck on its way to the store)
      blockedBeforeClaim = true;
      try {
        before.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    CountDownLatch g = gate;
    if (g != null) {
      try {
        if (!g.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("test gate never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    CountDownLatch delay;
    synchronized (this) {
      steps.add(step);
      calls++;
      RuntimeException f = failure;
      if (f != null) {
        throw f;
      }
      long max = maxByTag.getOrDefault(bizTag, initialMax) + step;
      maxByTag.put(bizTag, max);
      if (failEveryOther > 0 && calls % 2 == 0) {
        failEveryOther--; // the counter moved but the answer was lost: the range must become a gap
        throw new GeneIdException("test store lost the answer to call " + calls);
      }
      delay = answerGate;
      if (delay == null) {
        return new Segment(max - step + 1, max);
      }
      answerGate = null;
      heldBack = new Segment(max - step + 1, max);
    }
    // the counter moved; the answer hangs (a silent connection) until the test lets it through
    try {
      delay.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return heldBack;
  }

  private volatile Segment heldBack;
  private CountDownLatch claimGate;
  private volatile boolean blockedBeforeClaim;

  /** The next call waits for {@code release} before it claims its range; later calls go ahead. */
  synchronized void holdNextRequest(CountDownLatch release) {
    this.claimGate = release;
  }

  /** Whether the call held by {@link #holdNextRequest} is waiting (or was). */
  boolean requestHeld() {
    return blockedBeforeClaim;
  }

  /**
   * The next call claims its range and then does not return until {@code release} opens (a store call on a
   * connection that went silent); later calls answer at once.
   */
  void holdNextAnswer(CountDownLatch release) {
    this.answerGate = release;
  }

  /** The range claimed by the call held back by {@link #holdNextAnswer}, once it was claimed. */
  Segment heldBack() {
    return heldBack;
  }

  void failWith(RuntimeException failure) {
    this.failure = failure;
  }

  void recover() {
    this.failure = null;
  }

  synchronized void failEveryOtherCall(int times) {
    this.failEveryOther = times;
  }

  /** Sets the counter of {@code tag}, e.g. back to 0 as a Redis without persistence does on restart. */
  synchronized void reset(String tag, long newMax) {
    maxByTag.put(tag, newMax);
  }

  void block(CountDownLatch gate) {
    this.gate = gate;
  }

  synchronized List<Long> steps() {
    return List.copyOf(steps);
  }

  synchronized long max(String tag) {
    return maxByTag.getOrDefault(tag, initialMax);
  }

  @Override
  public String toString() {
    return "SegmentTestStore";
  }
}
