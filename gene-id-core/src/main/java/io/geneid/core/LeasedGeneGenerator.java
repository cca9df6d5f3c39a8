package io.geneid.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A {@link GeneSnowflakeGenerator} whose worker id is leased from a {@link WorkerIdAssigner}, so processes that come
 * and go share one pool of worker ids without ever issuing the same id.
 *
 * <h2>Safety rules</h2>
 * <ul>
 *   <li><b>High-water mark.</b> A new holder of a worker id issues only timestamps after the previous holder's mark
 *       ({@link WorkerLease#previousHighWaterMark()}), whatever its own clock says.
 *   <li><b>Mark ahead of use.</b> Every renewal records a mark of {@code clock + TTL + maxBorrowMillis} in the store
 *       before ids up to it are issued, and the generator never issues above the mark the store returned. A process
 *       that dies therefore leaves a mark above every id it issued, and the next holder starts after it.
 *   <li><b>Fencing.</b> Each renewal extends a local deadline of {@code TTL} (less 5 %) from the moment the renewal
 *       was sent, measured with {@link System#nanoTime()}. Every id is checked against it after it is made: once the
 *       deadline passes (the store is down, the process was paused, a GC ran long), the generator issues nothing and
 *       throws {@link WorkerLeaseLostException} naming the worker id, when the lease lapsed and the last renewal
 *       error. A renewal that the store refuses (the id was taken over or forgotten) fences at once. In both cases
 *       the renewal thread re-acquires a worker id (or revives the lease, if nobody took it) and issuing resumes.
 *   <li><b>Clock steps back.</b> A step back larger than the {@link ClockBackwardsPolicy} waits for moves this
 *       generator to a fresh worker id (the old one is released with its mark) instead of failing the caller.
 *   <li><b>Graceful close</b> stops issuing, records the exact high-water mark and releases the lease, so the next
 *       holder can start at once.
 * </ul>
 *
 * <p>{@link Builder#build()} acquires the first lease synchronously (so exhaustion and an unreachable store are
 * start-up errors) and starts one daemon thread that renews at {@link Builder#renewInterval(Duration)} (a third of
 * the TTL by default). Close the generator when done; for generators shared by ShardingSphere, MyBatis-Plus and
 * Spring use {@link WorkerIdAssigners#sharedGenerator(java.util.Map)}, which keeps one per configuration in
 * {@link GeneIdRegistry} and releases it at JVM shutdown.
 *
 * <p>Cost per id over {@link GeneSnowflakeGenerator}: one {@link System#nanoTime()} and two volatile reads.
 */
public final class LeasedGeneGenerator implements GeneIdGenerator, AutoCloseable {

  private static final System.Logger LOG = System.getLogger(LeasedGeneGenerator.class.getName());

  /** How often one call may move to a fresh worker id because the clock stepped back, before it fails. */
  static final int MAX_SWITCHES = 3;

  private final WorkerIdAssigner assigner;
  private final GeneIdLayout layout;
  private final GeneClock clock;
  private final long maxBorrowMillis;
  private final ClockBackwardsPolicy clockBackwardsPolicy;
  private final Duration ttl;
  private final long ttlNanos;
  private final long deadlineNanos;
  private final long renewIntervalNanos;
  private final long retryIntervalNanos;
  private final ScheduledExecutorService renewer;
  private final Object lock = new Object();
  private final AtomicLong leasesAcquired = new AtomicLong();
  private final AtomicLong leasesLost = new AtomicLong();
  private final AtomicLong workerSwitches = new AtomicLong();
  private final AtomicLong renewalFailures = new AtomicLong();
  private final AtomicLong fencings = new AtomicLong();

  private volatile @Nullable Holding holding;
  private volatile @Nullable Throwable lastRenewalError;
  private volatile boolean closed;
  private volatile @Nullable String registryKey;
  /** The id figures of the worker ids given up, with the holding they were last paired with; see {@link #stats()}. */
  private volatile @Nullable Tally tally;

  /** One worker id held: its lease, its id engine and its fencing state. */
  private static final class Holding {
    final GeneSnowflakeGenerator ids;
    volatile WorkerLease lease;
    /** {@link System#nanoTime()} after which no id of this holding may be returned. */
    volatile long deadlineNanos;
    volatile long renewedAtMillis;
    volatile boolean revoked;
    volatile String revokedReason = "";
    volatile long revokedAtMillis;
    /** Whether {@link #fencings} already counts this holding's loss; reset by a successful renewal. */
    final AtomicBoolean lossCounted = new AtomicBoolean();

    Holding(WorkerLease lease, GeneSnowflakeGenerator ids) {
      this.lease = lease;
      this.ids = ids;
      this.deadlineNanos = System.nanoTime() - 1;
    }
  }

  /**
   * Running totals of the id figures of every worker id given up, and the holding whose figures come on top. One
   * immutable object, replaced under {@link #lock}, so {@link #stats()} never counts a holding twice or not at all.
   */
  private record Tally(long idsIssued, long clockStepBacks, long largestStepBackMillis, long clockWaits,
      Holding current) {

    Tally retire(Holding next) {
      GeneSnowflakeStats s = current.ids.stats();
      return new Tally(idsIssued + s.idsIssued(), clockStepBacks + s.clockStepBacks(),
          Math.max(largestStepBackMillis, s.largestClockStepBack().toMillis()), clockWaits + s.clockWaits(), next);
    }
  }

  /** A generator-side id call, so one fenced path serves every {@code nextId} variant. */
  @FunctionalInterface
  private interface IdCall {
    long issue(GeneSnowflakeGenerator ids);
  }

  private LeasedGeneGenerator(Builder b) {
    this.assigner = Objects.requireNonNull(b.assigner, "assigner");
    this.layout = b.layout;
    this.clock = b.clock;
    this.maxBorrowMillis = b.maxBorrowMillis;
    this.clockBackwardsPolicy = b.clockBackwardsPolicy;
    this.ttl = assigner.ttl();
    this.ttlNanos = ttl.toNanos();
    this.deadlineNanos = ttlNanos - ttlNanos / 20;
    Duration renew = b.renewInterval != null ? b.renewInterval : ttl.dividedBy(3);
    if (renew.compareTo(ttl) >= 0 || renew.toMillis() < 10) {
      throw new IllegalArgumentException("renewInterval must be in [10ms, " + ttl.toMillis()
          + "ms) (below the lease TTL) but was " + renew.toMillis() + "ms");
    }
    this.renewIntervalNanos = renew.toNanos();
    this.retryIntervalNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10), renewIntervalNanos / 4);
    String space = assigner.space();
    this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gene-id-lease-renewer[" + space + "]");
      t.setDaemon(true);
      return t;
    });
  }

  /** A builder; {@link Builder#assigner(WorkerIdAssigner)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  private LeasedGeneGenerator start() {
    try {
      synchronized (lock) {
        Holding first = acquireHolding();
        holding = first;
        tally = new Tally(0, 0, 0, 0, first);
      }
    } catch (RuntimeException e) {
      renewer.shutdownNow();
      assigner.close();
      throw e;
    }
    schedule(renewIntervalNanos);
    return this;
  }

  // ---------------------------------------------------------------- ids

  @Override
  public long nextId() {
    return issue(GeneSnowflakeGenerator::nextId);
  }

  @Override
  public long nextId(long gene) {
    if (gene < 0 || gene > layout.maxGene()) {
      throw new IllegalArgumentException("gene must be in [0, " + layout.maxGene() + "] but was " + gene);
    }
    return issue(ids -> ids.nextId(gene));
  }

  @Override
  public long nextIdFor(long parentKey) {
    return issue(ids -> ids.nextIdFor(parentKey));
  }

  @Override
  public long nextIdFor(String parentKey) {
    return issue(ids -> ids.nextIdFor(parentKey));
  }

  @Override
  public long nextIdForKey(Object parentKey) {
    long gene = layout.geneOfKey(parentKey);
    return issue(ids -> ids.nextId(gene));
  }

  @Override
  public long getGene(long id) {
    return id & layout.maxGene();
  }

  @Override
  public int geneBits() {
    return layout.geneBits();
  }

  private long issue(IdCall call) {
    boolean renewedForCeiling = false;
    for (int switches = 0, retries = 0; ; ) {
      Holding h = holding;
      if (h == null) {
        throw fenced(null, null);
      }
      long id;
      try {
        id = call.issue(h.ids);
      } catch (ClockMovedBackwardsException e) {
        if (replaced(h) && ++retries <= MAX_SWITCHES) {
          continue;
        }
        if (closed || h.revoked || lapsed(h)) {
          throw fenced(h, e);
        }
        if (++switches > MAX_SWITCHES) {
          throw e;
        }
        switchWorker(h, e);
        continue;
      } catch (GeneIdException e) {
        if (replaced(h) && ++retries <= MAX_SWITCHES) {
          continue;
        }
        if (closed || h.revoked || lapsed(h)) {
          throw fenced(h, e);
        }
        if (renewedForCeiling) {
          throw e;
        }
        // the clock outran the recorded mark (a wall clock stepped forward): record a higher one, then retry once
        renewedForCeiling = true;
        renewNow(h);
        continue;
      }
      // fencing: the id's timestamp was read before this check, so it was read while the lease was held
      if (h.revoked || System.nanoTime() - h.deadlineNanos >= 0) {
        if (replaced(h) && ++retries <= MAX_SWITCHES) {
          continue; // this worker id was given up while the call ran; the id is dropped, the new holding serves
        }
        throw fenced(h, null);
      }
      return id;
    }
  }

  /** Whether {@code h} was given up for a newer holding that can serve instead. */
  private boolean replaced(Holding h) {
    Holding now = holding;
    return !closed && now != null && now != h && !now.revoked;
  }

  private static boolean lapsed(Holding h) {
    return System.nanoTime() - h.deadlineNanos >= 0;
  }

  private GeneIdException fenced(@Nullable Holding h, @Nullable Throwable cause) {
    String space = assigner.space();
    if (closed) {
      return new GeneIdException("this LeasedGeneGenerator of space '" + space + "' is closed: it issues no ids");
    }
    Throwable last = lastRenewalError;
    if (h == null) {
      return new GeneIdException("no worker id of space '" + space + "' is held"
          + (last == null ? "" : "; last error: " + last), last);
    }
    long workerId = h.lease.workerId();
    String message;
    if (h.revoked) {
      message = "worker id " + workerId + " of space '" + space + "' issues no ids: its lease was lost at "
          + Instant.ofEpochMilli(h.revokedAtMillis) + " (" + h.revokedReason + "); a new worker id is being acquired"
          + (last == null ? "" : "; last renewal error: " + last);
    } else {
      long lapsedAt = System.currentTimeMillis() - (System.nanoTime() - h.deadlineNanos) / 1_000_000L;
      message = "worker id " + workerId + " of space '" + space + "' issues no ids: its lease lapsed at "
          + Instant.ofEpochMilli(lapsedAt) + " (last renewed at " + Instant.ofEpochMilli(h.renewedAtMillis)
          + ", TTL " + ttl.toMillis() + " ms), so another process may hold it now; last renewal error: "
          + (last == null ? "none (the renewal did not run in time: was the process paused?)" : last);
    }
    return new WorkerLeaseLostException(space, workerId, message, last != null ? last : cause);
  }

  // ---------------------------------------------------------------- leases

  /** Acquires a usable lease and records a first mark. Caller holds {@link #lock}. */
  private Holding acquireHolding() {
    List<WorkerLease> unusable = new ArrayList<>();
    long tolerable = maxBorrowMillis + clockBackwardsPolicy.maxWait().toMillis();
    try {
      for (int attempt = 0; attempt <= MAX_SWITCHES; attempt++) {
        WorkerLease lease;
        try {
          lease = assigner.acquire(layout.maxWorkerId(), Duration.ofMillis(maxBorrowMillis));
        } catch (WorkerIdExhaustedException e) {
          if (unusable.isEmpty()) {
            throw e;
          }
          break; // the only free ids have marks too far ahead: say so below
        }
        long previous = lease.previousHighWaterMark().toEpochMilli();
        long ahead = previous - clock.currentTimeMillis();
        if (ahead > tolerable) {
          if (lease.expiresAt().equals(Instant.MAX) && ahead <= tolerable + ttl.toMillis()) {
            // a static lease cannot move: its mark was recorded ahead by up to one TTL before a crash; wait it out
            awaitClock(previous - maxBorrowMillis, ttl.toMillis() + tolerable);
          } else {
            unusable.add(lease);
            continue;
          }
        }
        GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder()
            .layout(layout)
            .workerId(lease.workerId())
            .clock(clock)
            .maxBorrowMillis(maxBorrowMillis)
            .clockBackwardsPolicy(clockBackwardsPolicy)
            .highWaterMark(lease.previousHighWaterMark())
            .buildClaimed("a LeasedGeneGenerator of space '" + lease.space() + "' [" + assigner + "]", false);
        ids.ceiling(previous); // nothing may be issued before the first mark is recorded
        Holding h = new Holding(lease, ids);
        try {
          renewHolding(h);
        } catch (RuntimeException e) {
          ids.releaseClaim();
          releaseQuietly(lease, lease.previousHighWaterMark());
          throw e;
        }
        leasesAcquired.incrementAndGet();
        LOG.log(Level.INFO, () -> "leased worker id " + lease.workerId() + " of space '" + lease.space()
            + "' as " + lease.owner() + " (previous holder's mark " + lease.previousHighWaterMark() + ")");
        return h;
      }
      StringBuilder marks = new StringBuilder();
      for (WorkerLease u : unusable) {
        marks.append(marks.length() == 0 ? "" : ", ").append(u.workerId()).append(" (mark ")
            .append(u.previousHighWaterMark()).append(')');
      }
      throw new GeneIdException("the high-water marks of worker ids " + marks + " of space '" + assigner.space()
          + "' are more than " + tolerable + " ms ahead of this generator's clock ("
          + Instant.ofEpochMilli(clock.currentTimeMillis()) + "): this clock is behind the clocks of their previous "
          + "holders; fix the clock (NTP) or allow a longer wait with ClockBackwardsPolicy");
    } finally {
      for (WorkerLease u : unusable) {
        releaseQuietly(u, u.previousHighWaterMark());
      }
    }
  }

  private void awaitClock(long targetMillis, long maxMillis) {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
    while (clock.currentTimeMillis() < targetMillis && System.nanoTime() - until < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new GeneIdException("interrupted while waiting for the clock to pass a high-water mark");
      }
    }
  }

  /** Records a mark ahead of use and extends the local deadline. Caller holds {@link #lock}. */
  private void renewHolding(Holding h) {
    long sent = System.nanoTime();
    long sentWall = System.currentTimeMillis();
    long ahead = clock.currentTimeMillis() + ttl.toMillis() + maxBorrowMillis + 1;
    long mark = Math.max(ahead, h.ids.highWaterMark().toEpochMilli());
    WorkerLease renewed = assigner.renew(h.lease, Instant.ofEpochMilli(mark));
    h.ids.ceiling(renewed.highWaterMark().toEpochMilli()); // first the ceiling, then the deadline
    h.lease = renewed;
    h.renewedAtMillis = sentWall;
    h.deadlineNanos = sent + deadlineNanos;
    h.lossCounted.set(false); // a lease revived after a lapse can lapse again
  }

  private void renewNow(Holding h) {
    synchronized (lock) {
      if (holding == h && !h.revoked && !closed) {
        try {
          renewHolding(h);
        } catch (RuntimeException e) {
          renewalFailures.incrementAndGet();
          lastRenewalError = e;
        }
      }
    }
  }

  private void revoke(Holding h, String reason) {
    h.revokedReason = reason;
    h.revokedAtMillis = System.currentTimeMillis();
    h.revoked = true;
    h.ids.ceiling(Long.MIN_VALUE / 4); // stop the engine too; ids it makes now fail the fencing check anyway
    h.ids.releaseClaim();
  }

  private void switchWorker(Holding h, ClockMovedBackwardsException cause) {
    synchronized (lock) {
      if (closed || holding != h || h.revoked) {
        return; // closed, or someone else switched or re-acquired already: retry with the current holding
      }
      Holding next;
      try {
        next = acquireHolding(); // h is still leased, so the store hands out another worker id
      } catch (RuntimeException e) {
        e.addSuppressed(cause); // no fresh worker id: the caller learns both why it moved and why it could not
        throw e;
      }
      holding = next;
      revoke(h, "moved to worker id " + next.lease.workerId() + " after the clock moved back: "
          + cause.getMessage());
      retire(h, next);
      workerSwitches.incrementAndGet();
      // every id returned from h passed the fencing check before revoke(), so this mark covers all of them
      releaseQuietly(h.lease, h.ids.highWaterMark());
      LOG.log(Level.WARNING, () -> "worker id " + h.lease.workerId() + " of space '" + h.lease.space()
          + "' released after the clock moved back; now worker id " + next.lease.workerId() + ": "
          + cause.getMessage());
    }
  }

  private void releaseQuietly(WorkerLease lease, Instant mark) {
    try {
      assigner.release(lease, mark);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "could not release worker id " + lease.workerId() + " of space '" + lease.space()
          + "' (it expires by itself): " + e, e);
    }
  }

  private void schedule(long delayNanos) {
    try {
      renewer.schedule(this::tick, delayNanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed
    }
  }

  private void tick() {
    long delay = renewIntervalNanos;
    boolean failureCounted = false;
    try {
      synchronized (lock) {
        if (closed) {
          return;
        }
        Holding h = holding;
        if (h != null && !h.revoked && lapsed(h)) {
          countLoss(h); // the deadline passed before this renewal: the lease was lost, however briefly
        }
        if (h == null || h.revoked) {
          Holding next = acquireHolding();
          holding = next;
          retire(h, next);
        } else {
          try {
            renewHolding(h);
          } catch (WorkerLeaseLostException e) {
            revoke(h, e.getMessage());
            leasesLost.incrementAndGet();
            renewalFailures.incrementAndGet();
            failureCounted = true;
            countLoss(h);
            lastRenewalError = e;
            LOG.log(Level.WARNING, () -> "fenced: " + e.getMessage());
            Holding next = acquireHolding();
            holding = next;
            retire(h, next);
          }
        }
        lastRenewalError = null;
      }
    } catch (Throwable t) {
      if (!failureCounted) {
        renewalFailures.incrementAndGet();
      }
      lastRenewalError = t;
      delay = retryIntervalNanos;
      if (!closed) {
        LOG.log(Level.WARNING, "worker-id lease renewal in space '" + assigner.space() + "' failed: " + t, t);
      }
    } finally {
      if (!closed) {
        schedule(delay);
      }
    }
  }

  /**
   * Stops issuing, records the exact high-water mark, releases the lease and closes the assigner. Idempotent.
   * Store errors are logged, not thrown: an unreleased lease expires by itself after its TTL.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      renewer.shutdownNow();
      Holding h = holding;
      if (h != null && !h.revoked) {
        revoke(h, "closed");
        releaseQuietly(h.lease, h.ids.highWaterMark());
      }
      try {
        assigner.close();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "closing " + assigner + " failed: " + e, e);
      }
    }
    String key = registryKey;
    if (key != null) {
      GeneIdRegistry.removeShared(key, this);
    }
  }

  /** Counts the loss of {@code h}'s lease once, whoever sees it first (a snapshot or the renewal thread). */
  private void countLoss(Holding h) {
    if (h.lossCounted.compareAndSet(false, true)) {
      fencings.incrementAndGet();
    }
  }

  /** Adds the figures of {@code old}, given up for {@code next}, to the running totals. Caller holds the lock. */
  private void retire(@Nullable Holding old, Holding next) {
    Tally t = tally;
    if (t != null && t.current == old) {
      tally = t.retire(next);
    } else if (t != null) {
      tally = new Tally(t.idsIssued, t.clockStepBacks, t.largestStepBackMillis, t.clockWaits, next);
    }
  }

  void registeredAs(String key) {
    this.registryKey = key;
  }

  // ---------------------------------------------------------------- accessors

  /** The worker id held now (it changes after a lost lease or a clock step back). */
  public long workerId() {
    return currentHolding().lease.workerId();
  }

  /** The lease held now. */
  public WorkerLease lease() {
    return currentHolding().lease;
  }

  /** Whether ids can be issued right now (a lease is held, renewed in time, and not closed). */
  public boolean isIssuing() {
    Holding h = holding;
    return !closed && h != null && !h.revoked && !lapsed(h);
  }

  /** The latest timestamp the current worker id has used (see {@link GeneSnowflakeGenerator#highWaterMark()}). */
  public Instant highWaterMark() {
    return currentHolding().ids.highWaterMark();
  }

  /** The pool this generator leases from. */
  public String space() {
    return assigner.space();
  }

  public GeneIdLayout layout() {
    return layout;
  }

  /** The time source of id timestamps. */
  public GeneClock clock() {
    return clock;
  }

  public WorkerIdAssigner assigner() {
    return assigner;
  }

  /** How many leases this generator has acquired (1 after start; more after lost leases and clock steps). */
  public long leasesAcquired() {
    return leasesAcquired.get();
  }

  /** How many leases the store took away (found taken over or forgotten at renewal). */
  public long leasesLost() {
    return leasesLost.get();
  }

  /** How many times a clock step back moved this generator to a fresh worker id. */
  public long workerSwitches() {
    return workerSwitches.get();
  }

  /**
   * What this generator has done and how its lease stands: ids summed over every worker id it has held, time left
   * until it fences itself, failed renewals, lost leases, worker-id moves. Cheap enough to call on every metrics
   * scrape: it takes no lock and does not touch the store.
   */
  public LeasedGeneStats stats() {
    Tally t = Objects.requireNonNull(tally, "started");
    GeneSnowflakeStats current = t.current.ids.stats();
    GeneSnowflakeStats ids = new GeneSnowflakeStats(
        t.idsIssued + current.idsIssued(),
        current.borrowDebt(),
        t.clockStepBacks + current.clockStepBacks(),
        Duration.ofMillis(Math.max(t.largestStepBackMillis, current.largestClockStepBack().toMillis())),
        t.clockWaits + current.clockWaits());
    Holding h = holding;
    Duration remaining = Duration.ZERO;
    if (!closed && h != null && !h.revoked) {
      long left = h.deadlineNanos - System.nanoTime();
      if (left > 0) {
        remaining = Duration.ofNanos(left);
      } else {
        countLoss(h);
      }
    }
    Throwable last = lastRenewalError;
    return new LeasedGeneStats(ids, h == null ? -1 : h.lease.workerId(), remaining, ttl, renewalFailures.get(),
        fencings.get(), workerSwitches.get(), isIssuing(), last == null ? null : last.getMessage() != null ? last.getMessage() : last.toString());
  }

  /** The lease time to live of the assigner: how long ids may be issued after the last successful renewal. */
  public Duration ttl() {
    return ttl;
  }

  /** The error of the last failed renewal, cleared by the next success. */
  public @Nullable Throwable lastRenewalError() {
    return lastRenewalError;
  }

  private Holding currentHolding() {
    Holding h = holding;
    if (h == null) {
      throw fenced(null, null);
    }
    return h;
  }

  @Override
  public String toString() {
    Holding h = holding;
    return "LeasedGeneGenerator[space=" + assigner.space() + ", workerId=" + (h == null ? "none" : h.lease.workerId())
        + ", " + layout + ", ttl=" + ttl + ", assigner=" + assigner + "]";
  }

  /** Configuration of a {@link LeasedGeneGenerator}. */
  public static final class Builder {
    @Nullable WorkerIdAssigner assigner;
    GeneIdLayout layout = GeneIdLayout.defaults();
    GeneClock clock = GeneClock.system();
    long maxBorrowMillis = GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS;
    ClockBackwardsPolicy clockBackwardsPolicy = ClockBackwardsPolicy.DEFAULT;
    @Nullable Duration renewInterval;

    private Builder() {}

    /** Where worker ids come from. Required. The generator closes it when it is closed. */
    public Builder assigner(WorkerIdAssigner assigner) {
      this.assigner = Objects.requireNonNull(assigner, "assigner");
      return this;
    }

    /** The id layout. Default {@link GeneIdLayout#defaults()}. */
    public Builder layout(GeneIdLayout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /** The time source of id timestamps. Default {@link GeneClock#system()}. */
    public Builder clock(GeneClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** See {@link GeneSnowflakeGenerator.Builder#maxBorrowMillis(long)}. In [0, 60000]. Default 10. */
    public Builder maxBorrowMillis(long maxBorrowMillis) {
      GeneIdLayout.checkRange("maxBorrowMillis", maxBorrowMillis, 0, 60_000);
      this.maxBorrowMillis = maxBorrowMillis;
      return this;
    }

    /**
     * How long a caller waits for a clock that stepped back; past it the generator moves to a fresh worker id.
     * Default {@link ClockBackwardsPolicy#DEFAULT} (one second).
     */
    public Builder clockBackwardsPolicy(ClockBackwardsPolicy policy) {
      this.clockBackwardsPolicy = Objects.requireNonNull(policy, "clockBackwardsPolicy");
      return this;
    }

    /** How often the lease is renewed: in [10ms, TTL). Default a third of the assigner's TTL. */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = Objects.requireNonNull(renewInterval, "renewInterval");
      return this;
    }

    /**
     * Acquires a worker id (waiting up to the assigner's acquire timeout), records its first mark and starts the
     * renewal thread. The caller owns the generator and must {@link #close()} it.
     *
     * @throws WorkerIdExhaustedException if no worker id of the pool is free
     * @throws GeneIdException if the store cannot be reached
     * @throws IllegalArgumentException for a setting out of range
     */
    public LeasedGeneGenerator build() {
      return new LeasedGeneGenerator(this).start();
    }
  }
}
