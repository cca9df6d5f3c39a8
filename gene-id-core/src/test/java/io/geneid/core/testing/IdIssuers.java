package io.geneid.core.testing;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerLeaseLostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads that issue ids from several leased generators at once into one map, so a fault test can break a store in
 * the middle and count what matters: ids, duplicates (an id two generators returned), fencings, and when each
 * generator issued its first id after the fault. Shared through core's test-jar.
 */
public final class IdIssuers implements AutoCloseable {

  /** Every id returned, with the name of the generator that returned it first. */
  private final Map<Long, String> ids = new ConcurrentHashMap<>();
  private final AtomicLong duplicates = new AtomicLong();
  private final List<Issuer> issuers = new ArrayList<>();
  private volatile long faultNanos = Long.MAX_VALUE;

  /** One generator's issuing thread and figures. */
  public final class Issuer {
    public final String name;
    public final LeasedGeneGenerator generator;
    final Thread thread;
    volatile boolean stop;
    public final AtomicLong issued = new AtomicLong();
    public final AtomicLong refused = new AtomicLong();
    /** Whether a call was refused after {@link #fault()}. */
    volatile boolean refusedSinceFault;
    /** Nano time of the first id returned after a refusal that followed {@link #fault()}; 0 until then. */
    public volatile long firstAfterFaultNanos;

    Issuer(String name, LeasedGeneGenerator generator) {
      this.name = name;
      this.generator = generator;
      this.thread = new Thread(this::run, "issuer-" + name);
      thread.setDaemon(true);
    }

    private void run() {
      while (!stop) {
        long id;
        try {
          id = generator.nextId();
        } catch (WorkerLeaseLostException e) {
          refusedAfter();
          continue;
        } catch (RuntimeException e) { // closed, or no worker id held yet
          refusedAfter();
          continue;
        }
        if (refusedSinceFault && firstAfterFaultNanos == 0) {
          firstAfterFaultNanos = System.nanoTime();
        }
        if (ids.putIfAbsent(id, name) != null) {
          duplicates.incrementAndGet();
        }
        issued.incrementAndGet();
        if ((issued.get() & 63) == 0) {
          LockSupport.parkNanos(50_000); // leave the cores to the store and the keepers
        }
      }
    }

    private void refusedAfter() {
      refused.incrementAndGet();
      if (System.nanoTime() - faultNanos > 0) {
        refusedSinceFault = true;
      }
      LockSupport.parkNanos(200_000);
    }

    /**
     * Milliseconds from the fault to this issuer's first id once it had stopped issuing after it; -1 if it never
     * stopped, or never issued again.
     */
    public long millisToFirstIdAfterFault() {
      long first = firstAfterFaultNanos;
      return first == 0 ? -1 : (first - faultNanos) / 1_000_000;
    }

    /** Stops this issuer's thread (its generator stays open). */
    public void stop() {
      stop = true;
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Starts a thread issuing ids from {@code generator}. */
  public Issuer start(String name, LeasedGeneGenerator generator) {
    Issuer i = new Issuer(name, generator);
    issuers.add(i);
    i.thread.start();
    return i;
  }

  /** Marks now as the moment of the fault. */
  public void fault() {
    faultNanos = System.nanoTime();
  }

  public long ids() {
    return ids.size();
  }

  public long duplicates() {
    return duplicates.get();
  }

  /** A line for the test log: ids, duplicates, and per generator its ids, fencings, leases lost and recovery time. */
  public String report(String what) {
    StringBuilder b = new StringBuilder(what).append(": ids=").append(ids()).append(", duplicates=")
        .append(duplicates());
    for (Issuer i : issuers) {
      b.append("; ").append(i.name).append(": ids=").append(i.issued.get()).append(", fencings=")
          .append(i.generator.stats().fencings()).append(", leasesLost=").append(i.generator.leasesLost())
          .append(", refusedCalls=").append(i.refused.get())
          .append(", msFromFaultToFirstIdAgain=").append(i.millisToFirstIdAfterFault());
    }
    return b.toString();
  }

  /** Stops every issuing thread. */
  @Override
  public void close() {
    for (Issuer i : issuers) {
      i.stop();
    }
  }
}
