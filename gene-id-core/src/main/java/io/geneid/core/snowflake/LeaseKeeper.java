package io.geneid.core.snowflake;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;

import io.geneid.core.internal.WorkerIdClaims;
import io.geneid.core.GeneIdException;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Does every store call of one {@link LeasedGeneGenerator} on its own daemon thread, and publishes what the
 * generator may do as an immutable {@link LeaseState} through one {@link AtomicReference}: the first acquisition,
 * renewals, the re-acquisition after a lost lease, the release at close. A move to a fresh worker id after a clock
 * step back runs on a second, short-lived thread, so that the current lease keeps being renewed while the store
 * looks for a free id. No lock a caller takes is ever held across a store call; callers wait for this class only
 * with a bound ({@link LeasedGeneGenerator.Builder#storeWait(Duration)}), except {@code build()} for the first lease.
 *
 * <p>Logs one line per change of state (leased, renewal failing with the reason and its stack trace, working again,
 * fenced, moved, released), never one per retry.
 */
final class LeaseKeeper implements Runnable {

  private static final System.Logger LOG = System.getLogger(LeasedGeneGenerator.class.getName());

  /** How many acquisitions one attempt at a lease may make (ids with marks too far ahead, ids claimed here). */
  static final int MAX_ATTEMPTS = 4;

  /** A store call in flight on the keeper thread, for the fencing message. */
  record StoreCall(String what, long startedNanos) {}

  /** A lease granted, claimed and given its first mark. */
  private record Acquired(LeaseState.Holding holding, WorkerLease lease, long sentNanos, long sentWallMillis) {}

  private final LeasedGeneGenerator g;
  /** Driven by {@link #tick()} on the caller's thread (model tests), not by a thread of its own. */
  private final boolean manual;
  private final WorkerIdAssigner assigner;
  private final boolean ownsAssigner;
  private final AtomicReference<LeaseState> state;
  private final String claimant;
  private final Thread thread;
  private final Object signal = new Object();
  private boolean signalled;
  private final CompletableFuture<Void> started = new CompletableFuture<>();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final AtomicLong generations = new AtomicLong();
  private final AtomicLong lossCountedFor = new AtomicLong(-1);
  /** This generator's own last high-water mark per worker id it gave up (a worker id got back starts above it). */
  private final Map<Long, Long> ownMarks = new ConcurrentHashMap<>();

  /** How often the assigner said its leases are in doubt ({@link WorkerIdAssigner#onLeaseDoubt}). */
  private final AtomicLong doubts = new AtomicLong();
  private volatile Runnable unsubscribe = () -> {};
  private volatile @Nullable StoreCall inFlight;
  private volatile @Nullable Throwable lastError;
  private volatile boolean renewRequested;
  private volatile CompletableFuture<Void> nextRenewal = new CompletableFuture<>();

  // the keeper thread's own bookkeeping
  private long nextRenewalNanos;
  /** The fencing deadline the last grant or renewal of the current holding gave, a doubt aside. */
  private volatile long heldUntilNanos; // also set by a move to a fresh worker id, on the mover's thread
  private long failingSinceNanos;
  private long failedAttempts;

  // the move to a fresh worker id
  private final Object switchLock = new Object();
  private @Nullable Switch pendingSwitch;
  private @Nullable Switch failedSwitch;
  private @Nullable ExecutorService mover;

  private final class Switch {
    final LeaseState.Holding from;
    final ClockMovedBackwardsException cause;
    final CompletableFuture<LeaseState.Holding> done = new CompletableFuture<>();
    long failedAtNanos;

    Switch(LeaseState.Holding from, ClockMovedBackwardsException cause) {
      this.from = from;
      this.cause = cause;
    }
  }

  LeaseKeeper(LeasedGeneGenerator g, AtomicReference<LeaseState> state, boolean manual) {
    this.manual = manual;
    this.g = g;
    this.assigner = g.assigner;
    this.ownsAssigner = g.ownsAssigner;
    this.state = state;
    this.claimant = "LeasedGeneGenerator of space '" + assigner.space() + "' from " + assigner;
    this.thread = new Thread(this, "gene-id-lease-keeper[" + assigner.space() + "]");
    thread.setDaemon(true);
  }

  private String where(long workerId) {
    return "worker id " + workerId + " of space '" + assigner.space() + "' at " + assigner.store();
  }

  // ------------------------------------------------------------------------------------------ start

  /** Starts the thread; it acquires the first lease. The future completes when it is published (or failed). */
  CompletableFuture<Void> start() {
    unsubscribe = assigner.onLeaseDoubt(this::doubt);
    if (manual) {
      first();
    } else {
      thread.start();
    }
    return started;
  }

  /** One step on the caller's thread, for a keeper built to be driven by hand. */
  void tick() {
    LeaseState s = state.get();
    if (s.closed()) {
      if (!closed.isDone()) {
        finishClose(s);
      }
      return;
    }
    step(s);
  }

  @Override
  public void run() {
    if (!first()) {
      return;
    }
    for (;;) {
      LeaseState s = state.get();
      if (s.closed()) {
        finishClose(s);
        return;
      }
      long delay;
      try {
        delay = step(s);
      } catch (Throwable t) { // a bug: keep the keeper alive, say it once per streak
        failure("keeping the lease of space '" + assigner.space() + "' at " + assigner + " failed", t);
        delay = g.retryIntervalNanos;
      }
      await(delay);
    }
  }

  /** Acquires and publishes the first lease; false if the keeper has nothing more to do. */
  private boolean first() {
    try {
      long doubted = doubts.get();
      Acquired first = acquire();
      LeaseState before = state.getAndUpdate(s -> s.closed() ? s
          : s.replacedBy(first.holding(), first.lease(), first.sentNanos() + g.deadlineNanos, first.sentWallMillis(),
              generations.incrementAndGet()));
      if (before.closed()) { // build() gave up waiting: give it back
        giveUp(first.holding(), first.lease(), "not needed: the generator was closed before its first lease came");
        unsubscribe.run();
        closeAssigner();
        closed.complete(null);
        return false;
      }
      nextRenewalNanos = first.sentNanos() + g.renewIntervalNanos;
      heldUntilNanos = first.sentNanos() + g.deadlineNanos;
      recheckDoubt(doubted);
      started.complete(null);
      return true;
    } catch (Throwable t) {
      unsubscribe.run();
      if (state.get().closed()) {
        closeAssigner(); // build() gave up waiting: nobody else closes it
      }
      started.completeExceptionally(t);
      closed.complete(null);
      return false;
    }
  }

  /** One step of the keeper: re-acquire, or renew when due. Returns how long to wait for the next. */
  private long step(LeaseState s) {
    long now = g.nanos.getAsLong();
    LeaseState.Holding h = s.holding();
    if (h == null || s.revokedReason() != null) {
      return reacquire(s);
    }
    if (now - s.deadlineNanos() >= 0) {
      countLoss(s); // the deadline passed before this renewal: the lease was lost, however briefly
    }
    if (renewRequested || now - nextRenewalNanos >= 0 || s.deadlineNanos() - now < g.renewIntervalNanos / 2) {
      renewRequested = false;
      renew(s, h);
      now = g.nanos.getAsLong();
    }
    return Math.max(TimeUnit.MILLISECONDS.toNanos(1), nextRenewalNanos - now);
  }

  private void await(long nanos) {
    synchronized (signal) {
      long end = System.nanoTime() + nanos;
      while (!signalled) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(signal, left);
        } catch (InterruptedException e) {
          break; // close() may interrupt a keeper stuck in a call; the loop looks at the state again
        }
      }
      signalled = false;
    }
  }

  private void wake() {
    synchronized (signal) {
      signalled = true;
      signal.notifyAll();
    }
  }

  // ------------------------------------------------------------------------------------------ renewals

  private void renew(LeaseState s, LeaseState.Holding h) {
    WorkerLease lease = s.lease();
    long doubted = doubts.get();
    long sent = g.nanos.getAsLong();
    if (sent - heldUntilNanos >= 0 && forgottenHoldersFloor(lease) != Long.MIN_VALUE) {
      // The lease lapsed. A store that cannot vouch for its history may answer "still yours" from data restored
      // from before another process was granted this worker id (that one is still issuing): reviving the lease would
      // be a grant, so it is one: given back, and the next lease waits out forgotten holders.
      revoke(h, "its lease lapsed at " + Instant.ofEpochMilli(s.renewedAtMillis() + g.deadlineNanos / 1_000_000)
          + " and " + assigner.store() + " cannot vouch that nobody was granted it meanwhile: leasing again");
      releaseQuietly(lease, h.engine.highWaterMark());
      nextRenewalNanos = sent; // re-acquire at once
      finishRenewal();
      return;
    }
    long sentWall = System.currentTimeMillis();
    long ahead = g.clock.currentTimeMillis() + g.ttl.toMillis() + g.maxBorrowMillis + 1;
    long mark = Math.max(ahead, h.engine.highWaterMark().toEpochMilli());
    WorkerLease renewed;
    try {
      renewed = call("renew of worker id " + h.workerId + " at " + assigner,
          () -> assigner.renew(lease, Instant.ofEpochMilli(mark)));
    } catch (WorkerLeaseLostException e) {
      g.renewalFailures.incrementAndGet();
      lastError = e;
      LeaseState now = state.get();
      if (now.live(h)) {
        revoke(h, e.getMessage()); // first fenced, then counted: a reader of the count sees no issuing on it
        g.leasesLost.incrementAndGet();
      }
      nextRenewalNanos = g.nanos.getAsLong(); // re-acquire at once
      finishRenewal();
      return;
    } catch (RuntimeException e) {
      g.renewalFailures.incrementAndGet();
      lastError = e;
      failedAttempts++;
      if (failingSinceNanos == 0) {
        failingSinceNanos = sent | 1;
        LeaseState now = state.get();
        long left = Math.max(0, now.deadlineNanos() - g.nanos.getAsLong()) / 1_000_000;
        LOG.log(Level.WARNING, "renewing " + where(h.workerId) + " failed: " + e + "; retrying every "
            + g.retryIntervalNanos / 1_000_000 + " ms, ids stop in " + left + " ms unless a renewal succeeds", e);
      }
      LeaseState now = state.get();
      if (now.holding() == h && g.nanos.getAsLong() - now.deadlineNanos() >= 0) {
        countLoss(now);
      }
      nextRenewalNanos = g.nanos.getAsLong() + g.retryIntervalNanos;
      finishRenewal();
      return;
    }
    h.engine.ceiling(renewed.highWaterMark().toEpochMilli()); // first the ceiling, then the deadline
    boolean wasFenced = lossCountedFor.get() >= s.generation();
    // a renewal that took longer than the TTL leaves the lease lapsed: same generation (the loss counts once), and
    // the next renewal follows at once
    boolean inTime = sent + g.deadlineNanos - g.nanos.getAsLong() > 0;
    long generation = inTime ? generations.incrementAndGet() : s.generation();
    // a doubt that came while the renewal ran leaves the lease lapsed: only a renewal sent after it verifies it
    LeaseState after = state.updateAndGet(cur -> cur.live(h) && doubts.get() == doubted
        ? cur.renewed(renewed, sent + g.deadlineNanos, sentWall, generation) : cur);
    if (doubts.get() != doubted) {
      nextRenewalNanos = g.nanos.getAsLong() + g.retryIntervalNanos;
      renewRequested = true;
      finishRenewal();
      return;
    }
    nextRenewalNanos = sent + g.renewIntervalNanos;
    heldUntilNanos = sent + g.deadlineNanos;
    lastError = null;
    if (!inTime) {
      renewRequested = true;
      finishRenewal();
      return;
    }
    if ((failingSinceNanos != 0 || wasFenced) && after.holding() == h) {
      long failedFor = (g.nanos.getAsLong() - (failingSinceNanos != 0 ? failingSinceNanos : sent)) / 1_000_000;
      long attempts = failedAttempts;
      LOG.log(Level.INFO, () -> "renewing " + where(h.workerId) + " works again after "
          + (attempts > 0 ? attempts + " failed attempts over " + failedFor + " ms" : "a store call that took "
          + failedFor + " ms") + "; ids are issued again");
    }
    failingSinceNanos = 0;
    failedAttempts = 0;
    finishRenewal();
  }

  /**
   * The assigner says the leases it granted may no longer be held (a ZooKeeper session suspended or lost): the
   * current holding lapses now, and issues again only after a renewal sent from now on succeeds.
   */
  private void doubt(String reason) {
    doubts.incrementAndGet(); // first counted, then lapsed: a renewal in flight sees the count and publishes nothing
    lastError = new GeneIdException("the lease store reports the lease in doubt until a renewal verifies it: "
        + reason);
    lapseForDoubt(); // logs "fenced" once, with the reason
    renewRequested = true;
    wake();
  }

  private void lapseForDoubt() {
    long now = g.nanos.getAsLong();
    LeaseState after = state.updateAndGet(cur -> cur.holding() != null && !cur.closed() && cur.revokedReason() == null
        ? cur.doubted(now) : cur);
    countLoss(after);
  }

  /** A lease published after a doubt that came while it was acquired lapses at once. */
  private void recheckDoubt(long doubtsBefore) {
    if (doubts.get() != doubtsBefore) {
      lapseForDoubt();
      renewRequested = true;
    }
  }

  private void finishRenewal() {
    CompletableFuture<Void> done = nextRenewal;
    nextRenewal = new CompletableFuture<>();
    done.complete(null);
  }

  /** Asks for a renewal now (the clock outran the recorded mark); completes after the next renewal attempt. */
  CompletableFuture<Void> renewSoon() {
    CompletableFuture<Void> f = nextRenewal;
    renewRequested = true;
    wake();
    return f;
  }

  private void revoke(LeaseState.Holding h, String reason) {
    LeaseState before = state.getAndUpdate(cur -> cur.live(h) ? cur.revoked(reason) : cur);
    if (!before.live(h)) {
      return;
    }
    h.stop();
    ownMarks.merge(h.workerId, h.engine.highWaterMark().toEpochMilli(), Math::max);
    h.claim.close(h.engine.highWaterMark().toEpochMilli());
    countLoss(state.get());
  }

  /**
   * Counts the loss of the lease of {@code s} once per generation, whoever sees it first (the keeper, an id call, a
   * stats snapshot), and says it once.
   */
  void countLoss(LeaseState s) {
    long generation = s.generation();
    long counted = lossCountedFor.get();
    if (counted >= generation || !lossCountedFor.compareAndSet(counted, generation) || s.holding() == null) {
      return;
    }
    g.fencings.incrementAndGet();
    String why = s.revokedReason() != null ? "the store no longer holds its lease: " + s.revokedReason()
        : lapse(s);
    LOG.log(Level.WARNING, where(s.holding().workerId) + " is fenced: " + why);
  }

  /** Why the lease of {@code s} lapsed, for the fencing message and log. */
  String lapse(LeaseState s) {
    long lapsedAt = System.currentTimeMillis() - (g.nanos.getAsLong() - s.deadlineNanos()) / 1_000_000L;
    return "its lease lapsed at " + Instant.ofEpochMilli(lapsedAt) + " (last renewed at "
        + Instant.ofEpochMilli(s.renewedAtMillis()) + ", TTL " + g.ttl.toMillis()
        + " ms), so another process may hold it now; last renewal error: " + lapseCause();
  }

  private String lapseCause() {
    Throwable last = lastError;
    StoreCall c = inFlight;
    String stuck = c == null ? null : "the renewal has been stuck in a store call (" + c.what() + ") for "
        + (g.nanos.getAsLong() - c.startedNanos()) / 1_000_000 + " ms";
    if (last != null) {
      return last + (stuck == null ? "" : "; " + stuck);
    }
    return stuck != null ? "none: " + stuck : "none (the renewal did not run in time: was the process paused?)";
  }

  @Nullable Throwable lastError() {
    return lastError;
  }

  private <T> T call(String what, Supplier<T> storeCall) {
    inFlight = new StoreCall(what, g.nanos.getAsLong());
    try {
      return storeCall.get();
    } finally {
      inFlight = null;
    }
  }

  // ------------------------------------------------------------------------------------------ acquisitions

  private long reacquire(LeaseState s) {
    try {
      long doubted = doubts.get();
      Acquired next = acquire();
      long generation = generations.incrementAndGet();
      LeaseState before = state.getAndUpdate(cur -> cur.closed() || cur.holding() != s.holding() ? cur
          : cur.replacedBy(next.holding(), next.lease(), next.sentNanos() + g.deadlineNanos, next.sentWallMillis(),
              generation));
      if (before.closed() || before.holding() != s.holding()) {
        giveUp(next.holding(), next.lease(), "not needed: the generator was closed");
        return g.retryIntervalNanos;
      }
      lastError = null;
      failingSinceNanos = 0;
      failedAttempts = 0;
      nextRenewalNanos = next.sentNanos() + g.renewIntervalNanos;
      heldUntilNanos = next.sentNanos() + g.deadlineNanos;
      recheckDoubt(doubted);
      return Math.max(TimeUnit.MILLISECONDS.toNanos(1), nextRenewalNanos - g.nanos.getAsLong());
    } catch (RuntimeException e) {
      g.renewalFailures.incrementAndGet();
      lastError = e;
      failure("leasing a worker id of space '" + assigner.space() + "' at " + assigner + " failed", e);
      return g.retryIntervalNanos;
    }
  }

  /** Logs the first failure of a streak with its stack trace; later ones of the same streak are counted only. */
  private void failure(String what, Throwable t) {
    failedAttempts++;
    if (failingSinceNanos == 0) {
      failingSinceNanos = g.nanos.getAsLong() | 1;
      LOG.log(Level.WARNING, what + ": " + t + "; retrying every " + g.retryIntervalNanos / 1_000_000
          + " ms, no ids are issued meanwhile", t);
    }
  }

  /**
   * Leases a usable worker id: claimed in this JVM, its mark (the store's and this generator's own) not too far ahead
   * of the clock, and a first mark recorded ahead of use. Holds at most one lease besides the current holding: an
   * unusable one goes back at once.
   */
  private Acquired acquire() {
    Map<Long, Instant> unusable = new LinkedHashMap<>();
    IllegalStateException refused = null;
    LeaseLapsedException lapsed = null;
    long tolerable = g.maxBorrowMillis + g.clockBackwardsPolicy.maxWait().toMillis();
    Duration slack = Duration.ofMillis(g.maxBorrowMillis);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      WorkerLease lease;
      long askedNanos = g.nanos.getAsLong();
      try {
        lease = call("acquire at " + assigner, () -> assigner.acquire(g.layout.maxWorkerId(), slack));
      } catch (WorkerIdExhaustedException e) {
        if (unusable.isEmpty() && refused == null) {
          throw e;
        }
        break; // the only free ids are unusable: say why below
      }
      long grantedNanos = grantSent(lease, askedNanos, g.nanos.getAsLong());
      WorkerIdClaims.Claim claim;
      try {
        claim = WorkerIdClaims.claim(g.layout.epoch(), lease.workerId(), claimant);
      } catch (IllegalStateException e) {
        releaseQuietly(lease, lease.previousHighWaterMark());
        if (lease.expiresAt().equals(Instant.MAX)) {
          throw e; // a static assigner can give no other worker id
        }
        refused = e;
        continue;
      }
      long own = ownMarks.getOrDefault(lease.workerId(), 0L);
      long previous = Math.max(lease.previousHighWaterMark().toEpochMilli(), own);
      long clockNow = g.clock.currentTimeMillis();
      long ahead = previous - clockNow;
      long forgotten = forgottenHoldersFloor(lease);
      if (forgotten > previous && ahead <= tolerable) {
        if (forgotten - clockNow > tolerable + forgottenHoldersWait()) {
          ahead = forgotten - clockNow; // this clock is far behind the store's: refused below as for a mark
        } else {
          previous = forgotten;
        }
      }
      if (ahead > tolerable) {
        if (lease.expiresAt().equals(Instant.MAX) && ahead <= tolerable + g.ttl.toMillis()) {
          // a static lease cannot move: its mark was recorded ahead by up to one TTL before a crash; wait it out
          awaitClock(previous - g.maxBorrowMillis, g.ttl.toMillis() + tolerable);
        } else {
          claim.close();
          releaseQuietly(lease, lease.previousHighWaterMark());
          unusable.put(lease.workerId(), Instant.ofEpochMilli(previous));
          continue;
        }
      }
      GeneSnowflakeGenerator engine = GeneSnowflakeGenerator.builder()
          .layout(g.layout)
          .workerId(lease.workerId())
          .clock(g.clock)
          .maxBorrowMillis(g.maxBorrowMillis)
          .clockBackwardsPolicy(g.clockBackwardsPolicy)
          .highWaterMark(Instant.ofEpochMilli(previous))
          .buildUnshared();
      engine.ceiling(previous); // nothing may be issued before the first mark is recorded
      LeaseState.Holding h = new LeaseState.Holding(lease.workerId(), engine, claim);
      long sent = g.nanos.getAsLong();
      long sentWall = System.currentTimeMillis();
      long mark = Math.max(g.clock.currentTimeMillis() + g.ttl.toMillis() + g.maxBorrowMillis + 1, previous);
      if (lapsedBeforeRenewal(lease, grantedNanos, sent)) {
        // Paused between the grant and its first renewal past the TTL (a GC pause, a slow reply): a store that
        // cannot vouch for its history may have granted the worker id to another process meanwhile and then come
        // back from a copy that still holds this grant, so "renewed" would not mean "nobody else has it". The same
        // rule as a lapsed lease in renew(): a new grant, with its wait.
        lapsed = lapsed(lease, grantedNanos, sent);
        claim.close();
        releaseQuietly(lease, lease.previousHighWaterMark());
        continue;
      }
      WorkerLease renewed;
      try {
        renewed = call("renew of worker id " + lease.workerId() + " at " + assigner,
            () -> assigner.renew(lease, Instant.ofEpochMilli(mark)));
      } catch (RuntimeException e) {
        claim.close();
        releaseQuietly(lease, lease.previousHighWaterMark());
        throw e;
      }
      engine.ceiling(renewed.highWaterMark().toEpochMilli());
      long first = previous;
      boolean waits = first == forgotten;
      LOG.log(Level.INFO, () -> "leased " + where(lease.workerId()) + " as " + lease.owner()
          + " (previous holder's mark " + lease.previousHighWaterMark()
          + (own > 0 ? ", this generator's own last mark " + Instant.ofEpochMilli(own) : "") + ")"
          + (waits ? "; ids start after " + Instant.ofEpochMilli(first) + ", in "
              + Math.max(0, first - g.maxBorrowMillis - g.clock.currentTimeMillis()) + " ms: the store"
              + " cannot vouch that it kept every write (a restore, a failover to a replica that missed writes), so"
              + " this waits one TTL + max-borrow-millis + " + WorkerIdAssigner.HISTORY_MARGIN.toMillis()
              + " ms from the grant, when any holder it may have forgotten has fenced itself" : ""));
      Acquired acquired = new Acquired(h, renewed, sent, sentWall);
      try {
        if (waits) {
          acquired = awaitIssuable(acquired, first - g.maxBorrowMillis + 1);
        }
      } catch (WorkerLeaseLostException e) {
        claim.close();
        lastError = e;
        continue; // taken over while waiting: lease another
      } catch (LeaseLapsedException e) {
        lapsed = e; // paused past the TTL while waiting: given back, lease again
        claim.close();
        releaseQuietly(e.lease, lease.previousHighWaterMark());
        continue;
      } catch (RuntimeException e) {
        claim.close();
        releaseQuietly(acquired.lease(), lease.previousHighWaterMark());
        throw e;
      }
      g.leasesAcquired.incrementAndGet();
      return acquired;
    }
    if (unusable.isEmpty() && refused != null) {
      throw refused;
    }
    if (unusable.isEmpty() && lapsed != null) {
      throw lapsed;
    }
    StringBuilder marks = new StringBuilder();
    unusable.forEach((id, mark) -> marks.append(marks.length() == 0 ? "" : ", ").append(id).append(" (mark ")
        .append(mark).append(')'));
    throw new GeneIdException("the high-water marks of worker ids " + marks + " of space '" + assigner.space()
        + "' are more than " + tolerable + " ms ahead of this generator's clock ("
        + Instant.ofEpochMilli(g.clock.currentTimeMillis()) + "): this clock is behind the clocks of their previous "
        + "holders; fix the clock (NTP) or allow a longer wait with ClockBackwardsPolicy");
  }

  /**
   * When the TTL of {@code lease} began at the earliest, on this generator's nano clock: the send of the store call
   * that granted it, as its assigner tells ({@link WorkerLease#grantSentNanos()}; a store-backed assigner waits for a
   * free worker id, up to its acquire timeout, before that call), or when this generator asked ({@code askedNanos}) if
   * the assigner does not tell or tells a time after the answer (a stamp that cannot be the grant's send). A stamp
   * before the ask is kept (an assigner that hands out a lease granted ahead of the call: a warm spare, a grant
   * adopted from a call that timed out): it is the earlier of the two, and the worst an odd stamp (another clock) can
   * cause is a lapse that did not happen, never one counted late. Never later than the grant's send, so a pause
   * between the grant and its first renewal is still measured in full.
   */
  static long grantSent(WorkerLease lease, long askedNanos, long answeredNanos) {
    long sent = lease.grantSentNanos();
    boolean usable = sent != WorkerLease.GRANT_SENT_UNKNOWN && answeredNanos - sent >= 0;
    return usable ? sent : askedNanos; // before the ask: sent = min(sent, asked); inside the call: the send itself
  }

  /**
   * The first id timestamp a new lease may issue if the store cannot vouch that it kept every acknowledged write
   * ({@link WorkerIdAssigner#vouchesForHistory()}): past the grant ({@code expiresAt - TTL}, store time) plus one TTL,
   * the borrowing bound and {@link WorkerIdAssigner#HISTORY_MARGIN}. Any holder the store forgot renewed last before
   * the grant and stopped issuing one TTL after that at the latest. {@link Long#MIN_VALUE} if the store vouches or the
   * lease never expires (a static worker id has no other holder).
   */
  private long forgottenHoldersFloor(WorkerLease lease) {
    if (assigner.vouchesForHistory() || lease.expiresAt().equals(Instant.MAX)) {
      return Long.MIN_VALUE;
    }
    return lease.expiresAt().toEpochMilli() + g.maxBorrowMillis + WorkerIdAssigner.HISTORY_MARGIN.toMillis();
  }

  /**
   * Whether a renewal of {@code lease} sent at {@code sentNanos} would revive a lease that lapsed: the previous grant
   * or renewal was sent at {@code previousSentNanos}, and this one goes out after that one's fencing deadline, from a
   * store that cannot vouch for its history. Such a renewal may succeed against a store restored from a copy after it
   * granted the worker id to someone else, so it must be treated as a grant ("a lease that lapsed and is renewed is a
   * new grant"): the first renewal after a grant as well as the renewals of the loop.
   */
  private boolean lapsedBeforeRenewal(WorkerLease lease, long previousSentNanos, long sentNanos) {
    return sentNanos - (previousSentNanos + g.deadlineNanos) >= 0 && forgottenHoldersFloor(lease) != Long.MIN_VALUE;
  }

  private LeaseLapsedException lapsed(WorkerLease lease, long previousSentNanos, long sentNanos) {
    LeaseLapsedException e = new LeaseLapsedException(lease, where(lease.workerId()) + " lapsed before it could be"
        + " renewed: the renewal was due within " + g.deadlineNanos / 1_000_000 + " ms of the previous store call but"
        + " went out " + (sentNanos - previousSentNanos) / 1_000_000 + " ms after it (a paused process, a slow store"
        + " call), and " + assigner.store() + " cannot vouch that nobody was granted it meanwhile: given back and"
        + " leased again, with the wait for forgotten holders");
    LOG.log(Level.WARNING, e.getMessage());
    lastError = e;
    return e;
  }

  /** A lease whose next renewal would come after its deadline, from a store that cannot vouch: lease again. */
  private static final class LeaseLapsedException extends GeneIdException {
    private static final long serialVersionUID = 1L;
    final transient WorkerLease lease;

    LeaseLapsedException(WorkerLease lease, String message) {
      super(message);
      this.lease = lease;
    }
  }

  /** How far ahead of the clock {@link #forgottenHoldersFloor} may lie, the skew margin aside. */
  private long forgottenHoldersWait() {
    return g.ttl.toMillis() + g.maxBorrowMillis + WorkerIdAssigner.HISTORY_MARGIN.toMillis();
  }

  /**
   * Holds a new lease, renewing it every renew interval, until this generator's clock reaches {@code usableAtMillis}
   * (when its engine can issue the lease's first timestamp within its borrowing bound). Returns the lease as last
   * renewed.
   *
   * @throws WorkerLeaseLostException if a renewal found the lease taken over
   * @throws GeneIdException if the generator was closed or the keeper interrupted meanwhile, or renewals failed until
   *     the lease's deadline
   */
  private Acquired awaitIssuable(Acquired a, long usableAtMillis) {
    LeaseState.Holding h = a.holding();
    WorkerLease lease = a.lease();
    long sent = a.sentNanos();
    long sentWall = a.sentWallMillis();
    long retryAt = sent + g.renewIntervalNanos;
    for (long left = usableAtMillis - g.clock.currentTimeMillis(); left > 0;
        left = usableAtMillis - g.clock.currentTimeMillis()) {
      if (state.get().closed() || Thread.currentThread().isInterrupted()) {
        throw new GeneIdException("closed while " + where(h.workerId) + " waited for holders the store may have "
            + "forgotten to fence themselves");
      }
      long now = g.nanos.getAsLong();
      if (now - retryAt >= 0) {
        if (lapsedBeforeRenewal(lease, sent, now)) {
          throw lapsed(lease, sent, now);
        }
        long s = now;
        long sw = System.currentTimeMillis();
        long mark = Math.max(g.clock.currentTimeMillis() + g.ttl.toMillis() + g.maxBorrowMillis + 1,
            h.engine.highWaterMark().toEpochMilli());
        WorkerLease held = lease;
        try {
          lease = call("renew of worker id " + h.workerId + " at " + assigner,
              () -> assigner.renew(held, Instant.ofEpochMilli(mark)));
          h.engine.ceiling(lease.highWaterMark().toEpochMilli());
          sent = s;
          sentWall = sw;
          retryAt = s + g.renewIntervalNanos;
        } catch (WorkerLeaseLostException e) {
          throw e;
        } catch (RuntimeException e) {
          if (g.nanos.getAsLong() - (sent + g.deadlineNanos) >= 0) {
            throw e;
          }
          lastError = e;
          retryAt = g.nanos.getAsLong() + g.retryIntervalNanos;
        }
        continue;
      }
      g.sleep.accept(Math.max(1, Math.min(TimeUnit.MILLISECONDS.toNanos(left), retryAt - now)));
    }
    return new Acquired(h, lease, sent, sentWall);
  }

  private void awaitClock(long targetMillis, long maxMillis) {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
    while (g.clock.currentTimeMillis() < targetMillis && System.nanoTime() - until < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new GeneIdException("interrupted while waiting for the clock to pass a high-water mark");
      }
    }
  }

  /** Gives a holding back: stops it, records this generator's mark, releases the lease with it, drops the claim. */
  private void giveUp(LeaseState.Holding h, WorkerLease lease, String why) {
    h.stop();
    Instant mark = h.engine.highWaterMark();
    ownMarks.merge(h.workerId, mark.toEpochMilli(), Math::max);
    if (releaseQuietly(lease, mark)) {
      LOG.log(Level.INFO, () -> "released " + where(h.workerId) + " with mark " + mark + " (" + why + ")");
    }
    h.claim.close(h.engine.highWaterMark().toEpochMilli());
  }

  /** Releases {@code lease} with {@code mark}; false (logged) if the store did not take it. */
  private boolean releaseQuietly(WorkerLease lease, Instant mark) {
    try {
      call("release of worker id " + lease.workerId() + " at " + assigner.store(), () -> {
        assigner.release(lease, mark);
        return null;
      });
      return true;
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "could not release " + where(lease.workerId()) + " (it expires by itself): " + e, e);
      return false;
    }
  }

  // ------------------------------------------------------------------------------------------ worker switch

  /**
   * Asks for a move from {@code from} to a fresh worker id (the clock stepped back past what the policy waits for).
   * One move at a time; a move that failed is not tried again for a retry interval.
   */
  CompletableFuture<LeaseState.Holding> requestSwitch(LeaseState.Holding from, ClockMovedBackwardsException cause) {
    if (!assigner.vouchesForHistory()) {
      // A fresh worker id issues only after its grant + TTL + borrow + margin in the store's time, which this clock,
      // now behind, reaches later than it reaches its own last id: moving never helps.
      return CompletableFuture.failedFuture(new GeneIdException(assigner.store() + " cannot vouch for its history,"
          + " so a fresh worker id would issue only " + forgottenHoldersWait() + " ms after its grant by the store's"
          + " clock, later than this clock returns to the last id of " + where(from.workerId) + "; ids resume there"
          + " when it does"));
    }
    synchronized (switchLock) {
      Switch p = pendingSwitch;
      if (p != null && p.from == from) {
        return p.done;
      }
      Switch f = failedSwitch;
      if (f != null && f.from == from && g.nanos.getAsLong() - f.failedAtNanos < Math.max(g.retryIntervalNanos,
          TimeUnit.MILLISECONDS.toNanos(500))) {
        return f.done;
      }
      if (p != null) {
        return p.done; // a move from an older holding is still under way
      }
      Switch sw = new Switch(from, cause);
      pendingSwitch = sw;
      if (manual) {
        runSwitch(sw);
        return sw.done;
      }
      if (mover == null) {
        ThreadPoolExecutor e = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "gene-id-lease-mover[" + assigner.space() + "]");
          t.setDaemon(true);
          return t;
        });
        mover = e;
      }
      mover.execute(() -> runSwitch(sw));
      return sw.done;
    }
  }

  private void runSwitch(Switch sw) {
    LeaseState.Holding from = sw.from;
    try {
      if (!state.get().live(from)) {
        throw new GeneIdException("worker id " + from.workerId + " was given up meanwhile");
      }
      long doubted = doubts.get();
      Acquired next = acquire(); // `from` is still leased, so the store hands out another worker id
      long generation = generations.incrementAndGet();
      LeaseState before = state.getAndUpdate(cur -> cur.live(from)
          ? cur.replacedBy(next.holding(), next.lease(), next.sentNanos() + g.deadlineNanos, next.sentWallMillis(),
              generation) : cur);
      if (!before.live(from)) {
        giveUp(next.holding(), next.lease(), "not needed: worker id " + from.workerId + " was given up meanwhile");
        throw new GeneIdException("worker id " + from.workerId + " was given up meanwhile");
      }
      heldUntilNanos = next.sentNanos() + g.deadlineNanos;
      recheckDoubt(doubted);
      g.workerSwitches.incrementAndGet();
      // every id returned from `from` passed the fencing check before the new state was published, so the mark
      // read after it covers all of them
      WorkerLease old = before.lease();
      if (old != null) {
        giveUp(from, old, "moved to worker id " + next.holding().workerId + " after the clock moved back: "
            + sw.cause.getMessage());
      }
      LOG.log(Level.WARNING, () -> where(from.workerId) + " given up after the clock moved back; now worker id "
          + next.holding().workerId + ": " + sw.cause.getMessage());
      sw.done.complete(next.holding());
    } catch (Throwable t) {
      sw.failedAtNanos = g.nanos.getAsLong();
      boolean again;
      synchronized (switchLock) {
        again = failedSwitch != null && failedSwitch.from == from;
        failedSwitch = sw;
      }
      if (!again) { // said once per worker id; later attempts fail the callers with the reason
        LOG.log(Level.WARNING, () -> "moving off " + where(from.workerId) + " after the clock moved back failed; it "
            + "stays held and renewed, callers get ClockMovedBackwardsException until the clock catches up or a "
            + "move succeeds: " + t);
      }
      sw.done.completeExceptionally(t);
    } finally {
      synchronized (switchLock) {
        if (pendingSwitch == sw) {
          pendingSwitch = null;
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------------ close

  /** Asks the keeper to release the lease and close the assigner; the future completes when it has. */
  CompletableFuture<Void> requestClose() {
    if (manual) {
      tick();
    }
    wake();
    return closed;
  }

  private void finishClose(LeaseState s) {
    unsubscribe.run();
    try {
      LeaseState.Holding h = s.holding();
      if (h != null) {
        h.stop();
        Instant mark = h.engine.highWaterMark();
        ownMarks.merge(h.workerId, mark.toEpochMilli(), Math::max);
        WorkerLease lease = s.lease();
        if (s.revokedReason() == null && lease != null && releaseQuietly(lease, mark)) {
          LOG.log(Level.INFO, () -> "released " + where(h.workerId) + " with mark " + mark);
        }
        h.claim.close(h.engine.highWaterMark().toEpochMilli());
      }
      closeAssigner();
    } finally {
      synchronized (switchLock) {
        if (mover != null) {
          mover.shutdown();
        }
      }
      closed.complete(null);
    }
  }

  private void closeAssigner() {
    if (!ownsAssigner) {
      return; // the caller built it and closes it
    }
    try {
      call("close of " + assigner, () -> {
        assigner.close();
        return null;
      });
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "closing " + assigner + " failed: " + e, e);
    }
  }
}
