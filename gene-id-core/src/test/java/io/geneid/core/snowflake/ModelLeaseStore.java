package io.geneid.core.snowflake;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneClock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * An in-memory lease store that follows the protocol of {@link WorkerIdAssigner}'s javadoc (random tokens, marks
 * never lowered, least recently used id first, every grant above max(recorded mark, store now + slack)), with the
 * faults a test needs: calls that hang until the store {@link #answer() answers} again, renewals that fail, and a
 * count of the leases each holder has at once. Hand out one {@link Holder} per simulated process.
 */
final class ModelLeaseStore {

  /** The store calls a test can make hang. */
  enum Op { ACQUIRE, RENEW, RELEASE, CLOSE }

  private record Rec(long token, String owner, long expiresNanos, long markMillis, long lastUsed) {}

  final String space;
  final Duration ttl;
  final long minWorkerId;
  final long maxWorkerId;
  private final GeneClock storeClock;
  private final LongSupplier nanos;
  private final Map<Long, Rec> records = new HashMap<>();
  private long useCounter;
  private final Set<Op> hanging = ConcurrentHashMap.newKeySet();
  private final Object hangMonitor = new Object();
  private long answers; // bumped by answer(): a hung call proceeds once the store answered after it started
  /** Every call, as {@code "<owner> <op> <worker id>"}, in order. */
  final List<String> calls = new CopyOnWriteArrayList<>();
  final AtomicInteger inFlight = new AtomicInteger();
  volatile @org.jspecify.annotations.Nullable RuntimeException renewFailure;
  /** Worker ids whose history the store cannot vouch for, since when (nanos): granted only after the wait below. */
  private final Map<Long, Long> unknownSince = new HashMap<>();
  /** How long an id of unknown history stays ungranted (one TTL plus a margin); 0: the rule is off. */
  volatile long unknownHistoryWaitNanos;
  /** The next this many calls take effect in the store, but their reply is lost. */
  final AtomicInteger repliesToLose = new AtomicInteger();
  /**
   * What the store's holders answer to {@link WorkerIdAssigner#vouchesForHistory()}: true for a store that notices
   * every loss it suffers (every fault of this store but {@link #rollBackSilently}); false lets the protocol wait.
   */
  volatile boolean vouches = true;
  /**
   * Run once, on the acquirer's thread, after a grant to the owner it is keyed by and before the grant is returned:
   * a holder that stops right after its grant (a GC pause, a slow reply), while the rest of the world moves on.
   */
  final Map<String, Runnable> afterGrant = new ConcurrentHashMap<>();
  /**
   * Run once, on the acquirer's thread, inside an acquisition of the owner it is keyed by and before the try that
   * grants: an assigner that waits for a free worker id (as {@code LeaseLoop} does, up to its acquire timeout) while
   * the rest of the world moves on. The grant's send time is taken after it.
   */
  final Map<String, Runnable> beforeGrant = new ConcurrentHashMap<>();
  /** How an acquisition waits between tries while every worker id is held: real time unless a test moves its own. */
  volatile java.util.function.LongConsumer pauseWhileBusy = ModelLeaseStore::sleepNanos;

  ModelLeaseStore(String space, long minWorkerId, long maxWorkerId, Duration ttl, GeneClock storeClock) {
    this(space, minWorkerId, maxWorkerId, ttl, storeClock, System::nanoTime);
  }

  ModelLeaseStore(String space, long minWorkerId, long maxWorkerId, Duration ttl, GeneClock storeClock,
      LongSupplier nanos) {
    this.space = space;
    this.minWorkerId = minWorkerId;
    this.maxWorkerId = maxWorkerId;
    this.ttl = ttl;
    this.storeClock = storeClock;
    this.nanos = nanos;
  }

  /** Calls of these kinds block (a silent store) until {@link #answer()}. */
  void hang(Op... ops) {
    hanging.addAll(List.of(ops));
  }

  /** The store answers again: hung calls proceed, new calls do not hang. */
  void answer() {
    synchronized (hangMonitor) {
      hanging.clear();
      answers++;
      hangMonitor.notifyAll();
    }
  }

  private void maybeHang(Op op) {
    if (!hanging.contains(op)) {
      return;
    }
    synchronized (hangMonitor) {
      long seen = answers;
      while (hanging.contains(op) && answers == seen) {
        try {
          hangMonitor.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new GeneIdException("interrupted while the model store was silent (" + op + ")");
        }
      }
    }
  }

  Holder holder(String owner, Duration acquireTimeout) {
    return new Holder(owner, acquireTimeout);
  }

  /** Worker ids whose live (unexpired) lease is held by {@code owner}. */
  synchronized Set<Long> heldBy(String owner) {
    Set<Long> held = new HashSet<>();
    long now = nanos.getAsLong();
    records.forEach((id, r) -> {
      if (r.owner.equals(owner) && r.token != 0 && now - r.expiresNanos < 0) {
        held.add(id);
      }
    });
    return held;
  }

  /** The recorded mark of a worker id (ms since 1970), 0 if none. */
  synchronized long markOf(long workerId) {
    Rec r = records.get(workerId);
    return r == null ? 0 : r.markMillis;
  }

  /** Hands {@code workerId} to {@code owner} behind its holder's back (another token), as another process would. */
  synchronized void takeOver(long workerId, String owner) {
    Rec r = records.get(workerId);
    long mark = r == null ? 0 : r.markMillis;
    records.put(workerId, new Rec(ThreadLocalRandom.current().nextLong() | 1, owner,
        nanos.getAsLong() + ttl.toNanos(), mark, ++useCounter));
  }

  /** The store forgets everything (a restart without persistence); it knows it did (every id: unknown history). */
  synchronized void forgetAll() {
    records.clear();
    markAllUnknown();
  }

  private void markAllUnknown() {
    long now = nanos.getAsLong();
    for (long id = minWorkerId; id <= maxWorkerId; id++) {
      unknownSince.put(id, now);
    }
  }

  /** The store loses one worker id's record (eviction, an operator's DEL). */
  synchronized void drop(long workerId) {
    records.remove(workerId);
    unknownSince.put(workerId, nanos.getAsLong());
  }

  /** A copy of the records, to {@link #rollBack(Object)} to later. */
  synchronized Object snapshot() {
    return new HashMap<>(records);
  }

  /**
   * The store comes back from an older snapshot and reveals it (a new run id): the marks of then, no live token, and
   * every worker id of unknown history.
   */
  @SuppressWarnings("unchecked")
  synchronized void rollBack(Object snapshot) {
    records.clear();
    ((Map<Long, Rec>) snapshot).forEach((id, r) -> records.put(id, new Rec(0, "", 0, r.markMillis, r.lastUsed)));
    markAllUnknown();
  }

  /**
   * The store comes back from an older snapshot and cannot tell (a database restored from a copy of its files, a
   * replica that missed writes promoted with the same identity): the records of then, tokens and expiries included,
   * and nothing marked unknown. A holder granted since the snapshot is unknown to the store until its next renewal
   * is refused.
   */
  @SuppressWarnings("unchecked")
  synchronized void rollBackSilently(Object snapshot) {
    records.clear();
    records.putAll((Map<Long, Rec>) snapshot);
  }

  private static void sleepNanos(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GeneIdException("interrupted while waiting for a free worker id");
    }
  }

  private void maybeLoseReply(Op op) {
    if (repliesToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new GeneIdException("the model store's reply to " + op + " was lost");
    }
  }

  /** One process's assigner over this store. */
  final class Holder implements WorkerIdAssigner {
    final String owner;
    private final Duration acquireTimeout;
    /** Most worker ids this holder had at once. */
    final AtomicInteger maxHeld = new AtomicInteger();
    final AtomicLong renewCalls = new AtomicLong();
    final AtomicLong acquireCalls = new AtomicLong();
    final AtomicLong releaseCalls = new AtomicLong();
    final List<Long> releasedMarks = new CopyOnWriteArrayList<>();

    Holder(String owner, Duration acquireTimeout) {
      this.owner = owner;
      this.acquireTimeout = acquireTimeout;
    }

    @Override
    public String space() {
      return space;
    }

    @Override
    public Duration ttl() {
      return ttl;
    }

    @Override
    public boolean vouchesForHistory() {
      return vouches;
    }

    private void enter(Op op, long workerId) {
      calls.add(owner + " " + op + " " + workerId);
      inFlight.incrementAndGet();
      try {
        maybeHang(op);
      } catch (RuntimeException e) {
        inFlight.decrementAndGet();
        throw e;
      }
    }

    @Override
    public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
      acquireCalls.incrementAndGet();
      enter(Op.ACQUIRE, -1);
      try {
        long end = nanos.getAsLong() + acquireTimeout.toNanos();
        Runnable wait = beforeGrant.remove(owner);
        if (wait != null) {
          wait.run();
        }
        for (;;) {
          long sent = nanos.getAsLong(); // as LeaseLoop: the send of the try that grants is the grant's
          WorkerLease lease = tryAcquire(layoutMaxWorkerId, borrowSlack);
          if (lease != null) {
            maxHeld.accumulateAndGet(heldBy(owner).size(), Math::max);
            maybeLoseReply(Op.ACQUIRE);
            Runnable pause = afterGrant.remove(owner);
            if (pause != null) {
              pause.run();
            }
            return lease.grantSentAt(sent);
          }
          long left = end - nanos.getAsLong();
          if (left <= 0) {
            throw new WorkerIdExhaustedException(space, minWorkerId, Math.min(maxWorkerId, layoutMaxWorkerId),
                holders(), "");
          }
          pauseWhileBusy.accept(Math.min(left, TimeUnit.MILLISECONDS.toNanos(5)));
        }
      } finally {
        inFlight.decrementAndGet();
      }
    }

    private WorkerLease tryAcquire(long layoutMaxWorkerId, Duration borrowSlack) {
      synchronized (ModelLeaseStore.this) {
        long now = nanos.getAsLong();
        long best = -1;
        long bestUsed = Long.MAX_VALUE;
        for (long id = minWorkerId; id <= Math.min(maxWorkerId, layoutMaxWorkerId); id++) {
          Rec r = records.get(id);
          Long since = unknownSince.get(id);
          boolean free = (r == null || r.token == 0 || now - r.expiresNanos >= 0)
              && (since == null || now - since >= unknownHistoryWaitNanos);
          long used = r == null ? 0 : r.lastUsed;
          if (free && used < bestUsed) {
            best = id;
            bestUsed = used;
          }
        }
        if (best < 0) {
          return null;
        }
        Rec old = records.get(best);
        long previous = Math.max(old == null ? 0 : old.markMillis, storeClock.currentTimeMillis()
            + borrowSlack.toMillis());
        long token = ThreadLocalRandom.current().nextLong() | 1;
        long expires = now + ttl.toNanos();
        records.put(best, new Rec(token, owner, expires, previous, ++useCounter));
        unknownSince.remove(best);
        return new WorkerLease(space, best, token, owner, Instant.ofEpochMilli(previous),
            Instant.ofEpochMilli(previous), Instant.ofEpochMilli(storeClock.currentTimeMillis() + ttl.toMillis()));
      }
    }

    private List<String> holders() {
      synchronized (ModelLeaseStore.this) {
        List<String> h = new ArrayList<>();
        records.forEach((id, r) -> h.add(id + " by " + r.owner));
        return h;
      }
    }

    @Override
    public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
      renewCalls.incrementAndGet();
      enter(Op.RENEW, lease.workerId());
      try {
        RuntimeException failure = renewFailure;
        if (failure != null) {
          throw failure;
        }
        synchronized (ModelLeaseStore.this) {
          Rec r = records.get(lease.workerId());
          if (r == null || r.token != lease.token()) {
            throw new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId()
                + " of space '" + space + "' is no longer leased under token " + lease.token(), null);
          }
          long mark = Math.max(r.markMillis, highWaterMark.toEpochMilli());
          records.put(lease.workerId(), new Rec(r.token, r.owner, nanos.getAsLong() + ttl.toNanos(), mark,
              r.lastUsed));
          maybeLoseReply(Op.RENEW);
          return lease.renewed(Instant.ofEpochMilli(mark),
              Instant.ofEpochMilli(storeClock.currentTimeMillis() + ttl.toMillis()));
        }
      } finally {
        inFlight.decrementAndGet();
      }
    }

    @Override
    public void release(WorkerLease lease, Instant highWaterMark) {
      releaseCalls.incrementAndGet();
      enter(Op.RELEASE, lease.workerId());
      try {
        synchronized (ModelLeaseStore.this) {
          Rec r = records.get(lease.workerId());
          if (r == null || r.token != lease.token()) {
            return;
          }
          releasedMarks.add(highWaterMark.toEpochMilli());
          // the exact mark of what the holder issued: it may be below the mark recorded ahead of use
          records.put(lease.workerId(), new Rec(0, "", 0, highWaterMark.toEpochMilli(), ++useCounter));
        }
      } finally {
        inFlight.decrementAndGet();
      }
    }

    @Override
    public void close() {
      enter(Op.CLOSE, -1);
      inFlight.decrementAndGet();
    }

    @Override
    public String toString() {
      return "ModelLeaseStore[" + space + "] as " + owner;
    }
  }
}
