package io.geneid.core.snowflake;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;

import io.geneid.core.internal.Batches;
import io.geneid.core.internal.Scopes;
import io.geneid.core.internal.Checks;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneSpread;
import io.geneid.core.GeneClock;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link GeneSnowflakeGenerator} whose worker id is leased from a {@link WorkerIdAssigner}, so processes that come
 * and go share one pool of worker ids without ever issuing the same id.
 *
 * <h2>Safety rules</h2>
 * <ul>
 *   <li><b>High-water mark.</b> A new holder of a worker id issues only timestamps after the previous holder's mark
 *       ({@link WorkerLease#previousHighWaterMark()}) and after this generator's own last mark for that worker id,
 *       if it held it before, whatever its own clock says.
 *   <li><b>Mark ahead of use.</b> Every renewal records a mark of {@code clock + TTL + maxBorrowMillis} in the store
 *       before ids up to it are issued, and the generator never issues above the mark the store returned. A process
 *       that dies therefore leaves a mark above every id it issued, and the next holder starts after it.
 *   <li><b>Fencing.</b> Each renewal extends a local deadline of {@code TTL} (less 5 %) from the moment the renewal
 *       was sent, measured with {@link System#nanoTime()}. Every id is checked against it after it is made: once the
 *       deadline passes, the generator issues nothing and throws {@link WorkerLeaseLostException}. A renewal that the
 *       store refuses (the token is not the one it holds) fences at once. Either way the keeper re-acquires a worker
 *       id (or revives the lease, if nobody took it) and issuing resumes.
 *   <li><b>A grant the store cannot vouch for waits out forgotten holders.</b> No grant may overlap anything a live
 *       holder could still issue, under any loss of acknowledged writes the store can suffer. Unless the assigner
 *       {@link WorkerIdAssigner#vouchesForHistory() vouches} for its history, a new lease issues only timestamps
 *       after its grant plus one TTL, {@code maxBorrowMillis} and {@link WorkerIdAssigner#HISTORY_MARGIN}, by when
 *       any holder the store forgot (restored from a copy, failed over to a replica that missed writes) has fenced
 *       itself; the lease is renewed meanwhile, and {@code build()} returns once ids can be issued.
 *   <li><b>One generator per worker id in a JVM.</b> Each worker id held is claimed in {@link GeneIdRegistry}; one
 *       that another generator of this JVM uses is given back and another is leased (a static assigner, which has no
 *       other, fails with a message naming both generators).
 *   <li><b>Graceful close</b> stops issuing, records the exact high-water mark and releases the lease, so the next
 *       holder can start at once.
 * </ul>
 *
 * <h2>Who does what</h2>
 * Issuing reads one published, immutable lease state, makes the id on that state's engine and reads the state again
 * to check the deadline: it takes no lock and makes no store call. A keeper thread per generator makes every store
 * call (first acquisition, renewals at {@link Builder#renewInterval(Duration)}, re-acquisition, release) and
 * publishes each change. Only {@link Builder#build()} waits for it without a short bound, for the first lease, so
 * that exhaustion and an unreachable store stay start-up errors; even that wait ends after
 * {@link Builder#startTimeout(Duration)}.
 *
 * <h2>Fault model: what a caller sees</h2>
 * <ul>
 *   <li><b>The store is down or silent</b> (refused connections, or packets dropped without a reset): renewals fail
 *       or hang on the keeper thread only. Ids are issued until the local deadline, then every call throws
 *       {@link WorkerLeaseLostException} at once, naming the worker id, when the lease lapsed, and the last renewal
 *       error or the store call the renewal has been stuck in, and for how long. When the store answers again the
 *       lease is renewed (or a worker id re-acquired) and issuing resumes without any action.
 *   <li><b>The store rolled back, failed over or forgot</b>: the holder's random token is unknown to it, the next
 *       renewal is refused, the generator fences at once and leases again; the grant starts above the store's mark,
 *       above store now plus {@code maxBorrowMillis}, and above this generator's own mark for that worker id.
 *   <li><b>The process paused past the TTL</b> (GC, SIGSTOP, a suspended VM): the first id checked after the pause
 *       fails the deadline; ids made before the pause were checked before it.
 *   <li><b>The clock steps back</b> further than the {@link ClockBackwardsPolicy} waits for: the engine waits the
 *       policy's time, then the caller hands the move to a fresh worker id to the keeper and waits for it at most
 *       {@link Builder#storeWait(Duration)}. It gets an id from the new worker id if the move came in time, else a
 *       {@link ClockMovedBackwardsException} (the reason the move failed, or that it is still under way, is added as
 *       suppressed). The current lease keeps being renewed meanwhile; for the instant of a move two worker ids are
 *       held, the old one is then released with its exact mark. With a store that does not
 *       {@link WorkerIdAssigner#vouchesForHistory() vouch} for its history there is no move: a fresh worker id would
 *       issue only one TTL + 2 s after its grant by the store's clock, later than this clock returns to its last id;
 *       callers get the exception until it does.
 *   <li><b>The clock steps forward</b> past the recorded mark: the caller asks the keeper for a renewal that records
 *       a higher mark, waits at most {@code storeWait}, and retries once.
 * </ul>
 * So an id call blocks at most for the engine's own waits (the clock-backwards policy, the borrowing bound) plus
 * {@code storeWait}; it throws {@link WorkerLeaseLostException} (fenced: retry later),
 * {@link ClockMovedBackwardsException}, or a {@link GeneIdException} once closed. {@link #close()} returns within
 * {@code storeWait} however silent the store (an unfinished release is abandoned, and the lease expires after its
 * TTL).
 *
 * <p>Logging ({@link System.Logger} {@code io.geneid.core.snowflake.LeasedGeneGenerator}): one line per change of state,
 * naming the space, the worker id and the store: leased, renewal failing (with its stack trace, once per outage),
 * working again, fenced, moved after a clock step, released at close; retries while failing are only counted
 * ({@link #stats()}).
 *
 * <p>Close the generator when done; for generators shared by ShardingSphere, MyBatis-Plus and Spring use
 * {@link io.geneid.core.lease.WorkerIdAssigners#sharedGenerator(java.util.Map)}, which keeps one per configuration in
 * {@link GeneIdRegistry}, hands each user a counted handle and releases the lease when the last handle is closed (or
 * at JVM shutdown).
 *
 * <p>Cost per id over {@link GeneSnowflakeGenerator}: one {@link System#nanoTime()} and two volatile reads.
 */
public final class LeasedGeneGenerator implements GeneIdGenerator, AutoCloseable {

  private static final System.Logger LOG = System.getLogger(LeasedGeneGenerator.class.getName());

  /** How often one call may retry on a newer holding (the worker id was replaced while it ran). */
  static final int MAX_RETRIES = 3;

  final WorkerIdAssigner assigner;
  /** Whether closing this generator closes the assigner: only one that gene-id built ({@link io.geneid.core.lease.WorkerIdAssigners}). */
  final boolean ownsAssigner;
  final GeneIdLayout layout;
  final GeneClock clock;
  final long maxBorrowMillis;
  final ClockBackwardsPolicy clockBackwardsPolicy;
  final Duration ttl;
  /** How long after a renewal was sent ids may be issued: the TTL less 5 %. */
  final long deadlineNanos;
  final long renewIntervalNanos;
  final long retryIntervalNanos;
  final long storeWaitNanos;
  final long startTimeoutNanos;
  final LongSupplier nanos;
  /** Parks the keeper for the given nanos while it waits out forgotten holders; tests move their clocks instead. */
  final LongConsumer sleep;
  final AtomicLong leasesAcquired = new AtomicLong();
  final AtomicLong leasesLost = new AtomicLong();
  final AtomicLong workerSwitches = new AtomicLong();
  final AtomicLong renewalFailures = new AtomicLong();
  final AtomicLong fencings = new AtomicLong();

  /** The one published lease state: written by the keeper (and by close), read by every id call. */
  private final AtomicReference<LeaseState> state = new AtomicReference<>(LeaseState.NONE);
  private final LeaseKeeper keeper;
  /** The genes of {@link #nextId()} outside a {@link GeneContext} scope. */
  private final GeneSpread spread;
  private volatile @Nullable String registryKey;

  private LeasedGeneGenerator(Builder b) {
    this.assigner = Objects.requireNonNull(b.assigner, "assigner");
    this.ownsAssigner = b.ownsAssigner;
    this.layout = b.layout;
    this.clock = b.clock;
    this.maxBorrowMillis = b.maxBorrowMillis;
    this.clockBackwardsPolicy = b.clockBackwardsPolicy;
    this.ttl = assigner.ttl();
    long ttlNanos = ttl.toNanos();
    this.deadlineNanos = ttlNanos - ttlNanos / 20;
    Duration renew = b.renewInterval != null ? b.renewInterval : ttl.dividedBy(3);
    if (renew.compareTo(ttl) >= 0 || renew.toMillis() < 10) {
      throw new InvalidSettingException("renewInterval", renew.toMillis() + "ms", "in [10ms, " + ttl.toMillis()
          + "ms) (below the lease TTL)");
    }
    this.renewIntervalNanos = renew.toNanos();
    this.retryIntervalNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10), renewIntervalNanos / 4);
    this.storeWaitNanos = b.storeWait.toNanos();
    this.startTimeoutNanos = (b.startTimeout != null ? b.startTimeout
        : ttl.multipliedBy(4).plusSeconds(10)).toNanos();
    this.nanos = b.nanos;
    this.sleep = b.sleep;
    this.spread = new GeneSpread(layout.geneBits());
    this.keeper = new LeaseKeeper(this, state, b.manualKeeper);
  }

  /** A builder; {@link Builder#assigner(WorkerIdAssigner)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  private LeasedGeneGenerator start() {
    CompletableFuture<Void> first = keeper.start();
    try {
      first.get(startTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      try {
        if (ownsAssigner) {
          assigner.close(); // the keeper has stopped: do not leak the store connection
        }
      } catch (RuntimeException closing) {
        e.getCause().addSuppressed(closing);
      }
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r; // the start-up error as the store or the claim raised it
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new GeneIdException("leasing a worker id of space '" + assigner.space() + "' failed: " + cause, cause);
    } catch (TimeoutException e) {
      state.updateAndGet(LeaseState::closedState); // a lease that comes later is given back by the keeper
      keeper.requestClose();
      throw new GeneIdException("no worker id of space '" + assigner.space() + "' was leased within "
          + TimeUnit.NANOSECONDS.toMillis(startTimeoutNanos) + " ms: " + assigner + " did not answer in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      state.updateAndGet(LeaseState::closedState);
      keeper.requestClose();
      throw new GeneIdException("interrupted while leasing a worker id of space '" + assigner.space() + "'");
    }
    return this;
  }

  // ---------------------------------------------------------------- ids

  /**
   * An id for a root row (its gene from this generator's {@link GeneSpread}), or for the parent key of the innermost
   * {@link GeneContext} scope of this thread. The gene is worked out once, before any retry, and a scope's key is
   * taken only when the id is returned: a failed call takes none.
   */
  @Override
  public long nextId() {
    Object parentKey = Scopes.peek();
    if (parentKey == null) {
      return issue((int) spread.nextGene());
    }
    long id = issue((int) layout.geneOfKey(parentKey));
    Scopes.take();
    return id;
  }

  @Override
  public long nextId(long gene) {
    if (gene < 0 || gene > layout.maxGene()) {
      throw new IllegalArgumentException("gene must be in [0, " + layout.maxGene() + "] but was " + gene);
    }
    return issue((int) gene);
  }

  @Override
  public int geneBits() {
    return layout.geneBits();
  }

  /**
   * {@code n} ids as {@code n} calls of {@link #nextId()} would make them, each gene's ids reserved as runs of its
   * sequence ({@link GeneIdGenerator#nextIds(int)}), checked against the lease once, after the last is made. A scope's
   * keys are taken only when the ids are returned.
   */
  @Override
  public long[] nextIds(int n) {
    Batches.checkCount(n);
    boolean scoped = Scopes.peek() != null;
    long[] ids = new long[n];
    issue(-1, Batches.genes(n, layout::geneOfKey, spread::nextGene), ids);
    if (scoped) {
      Scopes.take(n);
    }
    return ids;
  }

  @Override
  public long[] nextIdsFor(long parentKey, int n) {
    Batches.checkCount(n);
    long[] ids = new long[n];
    issue(-1, Batches.same((int) layout.geneOf(parentKey), n), ids);
    return ids;
  }

  private long issue(int gene) {
    return issue(gene, null, null);
  }

  /**
   * One id of {@code gene}, or, with {@code genes}, one id per entry of it written to {@code batch} (returning 0): made
   * on the current holding's engine, then checked against the lease; retried on a newer holding, dropped (a gap)
   * when the holding was replaced meanwhile.
   */
  private long issue(int gene, int @Nullable [] genes, long @Nullable [] batch) {
    boolean renewedForCeiling = false;
    boolean switched = false;
    for (int retries = 0; ; ) {
      LeaseState s = state.get();
      LeaseState.Holding h = s.holding();
      if (h == null || s.revokedReason() != null || s.closed()) {
        throw fenced(s, null);
      }
      long id;
      try {
        if (genes == null) {
          id = h.engine.nextId(gene);
        } else {
          long[] made = Batches.byGene(genes, h.engine::issueRun);
          System.arraycopy(made, 0, Objects.requireNonNull(batch), 0, made.length);
          id = 0L;
        }
      } catch (ClockMovedBackwardsException e) {
        LeaseState now = state.get();
        if (replaced(now, h) && ++retries <= MAX_RETRIES) {
          continue;
        }
        if (!now.live(h) || lapsed(now)) {
          throw fenced(now, e);
        }
        if (switched) {
          throw e;
        }
        switched = true;
        awaitSwitch(h, e);
        continue;
      } catch (GeneIdException e) {
        LeaseState now = state.get();
        if (replaced(now, h) && ++retries <= MAX_RETRIES) {
          continue;
        }
        if (!now.live(h) || lapsed(now)) {
          throw fenced(now, e);
        }
        if (renewedForCeiling) {
          throw e;
        }
        // the clock outran the recorded mark (a wall clock stepped forward): have a higher one recorded, then retry
        renewedForCeiling = true;
        awaitRenewal();
        continue;
      }
      // fencing: the id's timestamp was read before this check, so it was read while the lease was held
      LeaseState after = state.get();
      if (after.holding() != h || after.revokedReason() != null || after.closed() || lapsed(after)) {
        if (replaced(after, h) && ++retries <= MAX_RETRIES) {
          continue; // this worker id was given up while the call ran; the id is dropped, the new holding serves
        }
        throw fenced(after, null);
      }
      return id;
    }
  }

  /** Whether {@code h} was given up for a newer holding that can serve instead. */
  private static boolean replaced(LeaseState now, LeaseState.Holding h) {
    return !now.closed() && now.holding() != null && now.holding() != h && now.revokedReason() == null;
  }

  private boolean lapsed(LeaseState s) {
    return nanos.getAsLong() - s.deadlineNanos() >= 0;
  }

  /** Hands the move to a fresh worker id to the keeper and waits for it at most {@code storeWait}. */
  private void awaitSwitch(LeaseState.Holding h, ClockMovedBackwardsException e) {
    CompletableFuture<LeaseState.Holding> moved = keeper.requestSwitch(h, e);
    try {
      moved.get(storeWaitNanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException failed) {
      e.addSuppressed(failed.getCause()); // no fresh worker id: the caller learns both why it moved and why it could not
      throw e;
    } catch (TimeoutException late) {
      e.addSuppressed(new GeneIdException("no fresh worker id of space '" + assigner.space() + "' came within "
          + TimeUnit.NANOSECONDS.toMillis(storeWaitNanos) + " ms (storeWait); the move goes on in the background"));
      throw e;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw e;
    }
  }

  /** Asks the keeper for a renewal now and waits for it at most {@code storeWait}. */
  private void awaitRenewal() {
    try {
      keeper.renewSoon().get(storeWaitNanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // the retry fails with the engine's own message
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private GeneIdException fenced(LeaseState s, @Nullable Throwable cause) {
    String space = assigner.space();
    if (s.closed()) {
      return new GeneIdException("this LeasedGeneGenerator of space '" + space + "' is closed: it issues no ids");
    }
    Throwable last = keeper.lastError();
    LeaseState.Holding h = s.holding();
    if (h == null) {
      return new GeneIdException("no worker id of space '" + space + "' is held"
          + (last == null ? "" : "; last error: " + last), last);
    }
    keeper.countLoss(s);
    String message;
    if (s.revokedReason() != null) {
      message = "worker id " + h.workerId + " of space '" + space + "' issues no ids: its lease was lost at "
          + Instant.ofEpochMilli(s.revokedAtMillis()) + " (" + s.revokedReason() + "); a new worker id is being "
          + "acquired" + (last == null ? "" : "; last renewal error: " + last);
    } else {
      message = "worker id " + h.workerId + " of space '" + space + "' issues no ids: " + keeper.lapse(s);
    }
    return new WorkerLeaseLostException(space, h.workerId, message, last != null ? last : cause);
  }

  /**
   * Stops issuing at once, then has the keeper record the exact high-water mark, release the lease and close the
   * assigner, waiting for it at most {@link Builder#storeWait(Duration)}: a release the store does not answer in
   * time is abandoned (logged once; the lease expires by itself after its TTL). Idempotent; never throws for the
   * store.
   */
  @Override
  public void close() {
    LeaseState before = state.getAndUpdate(LeaseState::closedState);
    if (before.closed()) {
      return;
    }
    LeaseState.Holding h = before.holding();
    if (h != null) {
      h.stop();
    }
    try {
      keeper.requestClose().get(storeWaitNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.log(Level.WARNING, () -> "closing the LeasedGeneGenerator of space '" + assigner.space() + "': the release"
          + (h == null ? "" : " of worker id " + h.workerId) + " at " + assigner + " did not finish within "
          + TimeUnit.NANOSECONDS.toMillis(storeWaitNanos) + " ms; abandoned (the lease expires by itself after its "
          + "TTL of " + ttl.toMillis() + " ms)");
    } catch (ExecutionException e) {
      // the keeper logged it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (h != null) {
      // the generator issues nothing more: the worker id may be used elsewhere in this JVM, after this mark
      h.claim.close(h.engine.highWaterMark().toEpochMilli());
    }
    String key = registryKey;
    if (key != null) {
      GeneIdRegistry.removeShared(key, this);
    }
  }

  /** One keeper step on this thread, for a generator built with a manual keeper (model tests). */
  void tick() {
    keeper.tick();
  }

  void registeredAs(String key) {
    this.registryKey = key;
  }

  // ---------------------------------------------------------------- accessors

  /**
   * The worker id held now (it changes after a lost lease or a clock step back), or -1 while none is held (fenced
   * before a new lease, or closed), as {@link LeasedGeneStats#workerId()}.
   */
  public long workerId() {
    LeaseState.Holding h = state.get().holding();
    return h == null ? -1 : h.workerId;
  }

  /** The lease held now, as the store last answered for it; empty while none is held (or once closed). */
  public Optional<WorkerLease> lease() {
    return Optional.ofNullable(state.get().lease());
  }

  /**
   * Waits until ids can be issued ({@link #isIssuing()}), at most {@code timeout}: after a {@link
   * WorkerLeaseLostException} the keeper renews or leases again by itself once the store answers, and this is the way
   * to wait for it instead of retrying in a loop.
   *
   * @return whether ids can be issued now; false after the timeout, once closed, or if the thread is interrupted
   *     (its interrupt status stays set)
   */
  public boolean awaitIssuing(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!isIssuing()) {
      if (state.get().closed() || System.nanoTime() - deadline >= 0 || Thread.currentThread().isInterrupted()) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    return true;
  }

  /** Whether ids can be issued right now (a lease is held, renewed in time, and not closed). */
  public boolean isIssuing() {
    LeaseState s = state.get();
    return !s.closed() && s.holding() != null && s.revokedReason() == null && !lapsed(s);
  }

  /** The latest timestamp the current worker id has used (see {@link GeneSnowflakeGenerator#highWaterMark()}). */
  public Instant highWaterMark() {
    return currentHolding().engine.highWaterMark();
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
   * scrape: it reads the published lease state and the engine's counters, takes no lock and does not touch the
   * store.
   */
  public LeasedGeneStats stats() {
    LeaseState s = state.get();
    LeaseState.Holding h = s.holding();
    LeaseState.Totals t = s.retired();
    GeneSnowflakeStats ids;
    if (h == null) {
      ids = new GeneSnowflakeStats(t.idsIssued(), Duration.ZERO, t.clockStepBacks(),
          Duration.ofMillis(t.largestStepBackMillis()), t.clockWaits());
    } else {
      GeneSnowflakeStats current = h.engine.stats();
      ids = new GeneSnowflakeStats(t.idsIssued() + current.idsIssued(), current.borrowDebt(),
          t.clockStepBacks() + current.clockStepBacks(),
          Duration.ofMillis(Math.max(t.largestStepBackMillis(), current.largestClockStepBack().toMillis())),
          t.clockWaits() + current.clockWaits());
    }
    Duration remaining = Duration.ZERO;
    if (!s.closed() && h != null && s.revokedReason() == null) {
      long left = s.deadlineNanos() - nanos.getAsLong();
      if (left > 0) {
        remaining = Duration.ofNanos(left);
      } else {
        keeper.countLoss(s);
      }
    }
    Throwable last = keeper.lastError();
    boolean issuing = !s.closed() && h != null && s.revokedReason() == null && !remaining.isZero();
    return new LeasedGeneStats(ids, h == null ? -1 : h.workerId, remaining, ttl, renewalFailures.get(),
        fencings.get(), workerSwitches.get(), issuing,
        last == null ? null : last.getMessage() != null ? last.getMessage() : last.toString());
  }

  /** The lease time to live of the assigner: how long ids may be issued after the last successful renewal. */
  public Duration ttl() {
    return ttl;
  }

  /** The error of the last failed renewal, cleared by the next success. */
  public @Nullable Throwable lastRenewalError() {
    return keeper.lastError();
  }

  private LeaseState.Holding currentHolding() {
    LeaseState s = state.get();
    if (s.holding() == null) {
      throw fenced(s, null);
    }
    return s.holding();
  }

  @Override
  public String toString() {
    LeaseState.Holding h = state.get().holding();
    return "LeasedGeneGenerator[space=" + assigner.space() + ", workerId=" + (h == null ? "none" : h.workerId)
        + ", " + layout + ", ttl=" + ttl + ", assigner=" + assigner + "]";
  }

  /** Configuration of a {@link LeasedGeneGenerator}. */
  public static final class Builder {
    /** Default {@link #storeWait(Duration)}. */
    public static final Duration DEFAULT_STORE_WAIT = Duration.ofSeconds(2);

    @Nullable WorkerIdAssigner assigner;
    GeneIdLayout layout = GeneIdLayout.defaults();
    GeneClock clock = GeneClock.system();
    long maxBorrowMillis = GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS;
    ClockBackwardsPolicy clockBackwardsPolicy = ClockBackwardsPolicy.DEFAULT;
    @Nullable Duration renewInterval;
    Duration storeWait = DEFAULT_STORE_WAIT;
    @Nullable Duration startTimeout;
    LongSupplier nanos = System::nanoTime;
    LongConsumer sleep = LockSupport::parkNanos;
    boolean manualKeeper;
    boolean ownsAssigner;

    private Builder() {}

    /**
     * Where worker ids come from. Required. The generator releases its lease at {@link #close()} but does not close
     * the assigner: whoever builds a store client closes it, so close the assigner after the generator (a failed
     * {@link #build()} leaves it open, ready for another try). Generators that {@link io.geneid.core.lease.WorkerIdAssigners} builds from
     * properties own the assigners it creates for them and close them.
     */
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
      Checks.range("maxBorrowMillis", maxBorrowMillis, 0, 60_000);
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
     * The longest a caller waits for a store call the keeper makes for it: {@link LeasedGeneGenerator#close()} for
     * the release, an id call for the move to a fresh worker id after a clock step back or for a renewal that
     * records a higher mark. In [0, 1 min]. Default 2 s.
     */
    public Builder storeWait(Duration storeWait) {
      Objects.requireNonNull(storeWait, "storeWait");
      Checks.range("storeWait (ms)", storeWait.toMillis(), 0, 60_000);
      this.storeWait = storeWait;
      return this;
    }

    /**
     * How long {@link #build()} waits for the first lease, however silent the store: set it above the assigner's
     * acquire timeout. In [1 ms, 1 h]. Default four TTLs plus 10 s (the assigners' default acquire timeout is two).
     */
    public Builder startTimeout(Duration startTimeout) {
      Objects.requireNonNull(startTimeout, "startTimeout");
      Checks.range("startTimeout (ms)", startTimeout.toMillis(), 1, 3_600_000);
      this.startTimeout = startTimeout;
      return this;
    }

    /** The generator closes the assigner when it is closed or cannot start: gene-id built the assigner for it. */
    Builder ownAssigner() {
      this.ownsAssigner = true;
      return this;
    }

    /** No keeper thread: the first lease is acquired by build(), every later step by {@link #tick()}. */
    Builder manualKeeper() {
      this.manualKeeper = true;
      return this;
    }

    /** The monotonic time of fencing deadlines; tests drive it by hand. */
    Builder nanoTime(LongSupplier nanos) {
      this.nanos = Objects.requireNonNull(nanos, "nanos");
      return this;
    }

    /** How the keeper sleeps while it waits out holders the store may have forgotten; tests move time instead. */
    Builder sleep(LongConsumer sleep) {
      this.sleep = Objects.requireNonNull(sleep, "sleep");
      return this;
    }

    /**
     * Acquires a worker id (waiting up to the assigner's acquire timeout, at most {@link #startTimeout(Duration)}),
     * records its first mark and starts the keeper thread. The caller owns the generator and must {@link #close()}
     * it.
     *
     * @throws WorkerIdExhaustedException if no worker id of the pool is free
     * @throws GeneIdException if the store cannot be reached
     * @throws IllegalArgumentException for a setting out of range
     */
    public LeasedGeneGenerator build() {
      layout.checkUsableAt(Instant.ofEpochMilli(clock.currentTimeMillis()));
      return new LeasedGeneGenerator(this).start();
    }
  }
}
