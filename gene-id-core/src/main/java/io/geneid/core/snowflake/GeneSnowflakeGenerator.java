package io.geneid.core.snowflake;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.GeneClock;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.internal.Batches;
import io.geneid.core.internal.Checks;
import io.geneid.core.internal.Scopes;
import io.geneid.core.internal.WorkerIdClaims;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneSpread;
import io.geneid.core.lease.StaticWorkerIdAssigner;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A Snowflake generator whose ids carry a gene in their lowest bits, with one sequence per gene.
 *
 * <pre>
 *  63 | 62 ........... T bits | W bits    | S bits   | G bits (lowest)
 *   0 | ms since epoch        | worker id | sequence | gene
 * </pre>
 *
 * <h2>Per-gene state</h2>
 * Each gene owns a packed {@code (millisecond << S) | sequence} word advanced by compare-and-set, so genes never
 * compete for sequence space or for a lock: one worker issues up to {@code 2^S} ids per millisecond per gene and
 * {@code 2^(S+G)} over all genes. The words of neighbouring genes sit on separate cache lines.
 *
 * <h2>Borrowed milliseconds</h2>
 * When a gene's sequence is used up inside a millisecond, the gene moves on to the next millisecond at once
 * (it borrows future time) instead of spinning. A gene never runs more than {@code maxBorrowMillis} ahead of the
 * clock: past that bound the caller waits for the clock. Bounded borrowing keeps ids close to real time, which is
 * what makes a restart safe.
 *
 * <h2>Clock</h2>
 * The default clock ({@link GeneClock#system()}) does not go backwards inside a process. If a clock does step
 * back, each gene keeps counting from the last (millisecond, sequence) it issued, so no id is ever repeated: steps
 * of up to {@code maxBorrowMillis} are absorbed like borrowing; larger ones follow the {@link ClockBackwardsPolicy}
 * (wait, then {@link ClockMovedBackwardsException}).
 *
 * <p>With {@link GeneClock#system()} an id of a millisecond already under way is issued without reading the clock:
 * the generator takes a reading that a daemon thread ({@code gene-id-clock}) refreshes about once a millisecond
 * while ids are issued, and reads the clock itself only to borrow, to wait or when that reading would not do. Such a
 * reading is never ahead of the clock, so the bounds above hold as they are; ids of a gene entering a new
 * millisecond may carry a timestamp up to about a millisecond earlier than the moment they were issued.
 *
 * <h2>One per worker id</h2>
 * Two generators with the same worker id and epoch in one JVM would issue the same ids. {@link Builder#build()}
 * therefore returns the JVM-wide instance for its (layout, worker id) from {@link GeneIdRegistry}, creating it on
 * first use and claiming its (epoch, worker id) for the JVM's life; ShardingSphere's key generator, the MyBatis-Plus
 * generator and a Spring bean with the same settings all end up sharing one, and any other claimant of that worker id
 * in the JVM (a leased generator, a build with another layout of the same epoch, a second class loader) is refused.
 *
 * <h2>Restart</h2>
 * A generator built without a {@link Builder#highWaterMark(Instant) high-water mark} issues only timestamps after
 * {@code its clock at build + maxBorrowMillis}: an earlier run of the same worker id ended before this one began, and
 * bounded borrowing kept it at most {@code maxBorrowMillis} ahead of its clock, so no id of it can come back, however
 * fast the restart. The cost is one start-up borrow: the first ids carry timestamps up to {@code maxBorrowMillis}
 * ahead, and the generator issues at the clock's pace until it has caught up. This assumes the clock did not step
 * back between the runs; a mark kept outside the process ({@link StaticWorkerIdAssigner}'s mark file, a lease store)
 * covers that too.
 *
 * <h2>Threads</h2>
 * Every id, on every path, is one compare-and-set that moves its gene's word from the state it read to the next
 * (millisecond, sequence); the word only grows, so two calls never take the same pair, whatever the threads, and no
 * thread keeps sequence numbers of its own. The same compare-and-set orders the ids of a gene across threads: an id
 * made after another id of its gene was seen (after it in the Java memory model's happens-before order) is larger.
 * What a thread keeps for itself is only its walk over the genes of {@link #nextId()} (see {@link GeneSpread}: threads
 * issuing fast take lanes of disjoint genes, so that they do not write each other's gene words); an id costs no
 * allocation and no call through an interface but the clock's on the slower paths.
 *
 * <p>Ids of one gene strictly increase. Ids are positive.
 */
public final class GeneSnowflakeGenerator implements GeneIdGenerator {

  /** Longest time a caller waits for a clock that does not advance before giving up. */
  static final long STALL_LIMIT_NANOS = Duration.ofSeconds(10).toNanos();

  /** One gene word per 128 bytes (two cache lines) while that costs at most 512 KiB. */
  private static final int PADDED_STRIDE_SHIFT = 4;
  private static final int MAX_PADDED_GENE_BITS = 12;
  /**
   * Above {@link #MAX_PADDED_GENE_BITS}: two words per gene, the state and its count. The word after each state
   * counts the ids of the gene's finished milliseconds (see {@link #stats()}).
   */
  private static final int MIN_STRIDE_SHIFT = 1;

  private final GeneIdLayout layout;
  private final long workerId;
  private final GeneClock clock;
  private final long maxBorrowMillis;
  private final ClockBackwardsPolicy clockBackwardsPolicy;

  // layout constants, copied for the hot path
  private final long epochMillis;
  private final int sequenceBits;
  private final long sequenceMask;
  private final int geneBits;
  private final long maxGene;
  private final int timestampShift;
  private final long workerPart;
  private final long maxTimestamp;

  private final int strideShift;
  /** Per gene: (ms since epoch << S) | last sequence issued in that ms. */
  private final AtomicLongArray states;
  /** The genes of {@link #nextId()} without a scope. */
  private final GeneSpread spread;

  /**
   * Ids may not be issued with a timestamp (ms since epoch) above this: the last one the layout's timestamp field
   * holds, or less for a lease-holding generator, which keeps it at the mark its store has recorded ({@link #ceiling}).
   * One field, so that the issuing paths compare with one bound.
   */
  private volatile long limitMillis;

  private final ClockWatch clockWatch;
  /**
   * True for {@link GeneClock#system()}: an id of a millisecond under way is issued at a {@link RecentMillis} reading,
   * without reading the clock. Other clocks (tests' manual clocks) are read for every id.
   */
  private final boolean recentClock;
  /** This generator's claim on its worker id in the JVM, or null for {@link Builder#buildUnshared()}. */
  private final WorkerIdClaims.@Nullable Claim claim;
  /** Largest {@link GeneSnowflakeStats#idsIssued()} reported, so that counts never go down between snapshots. */
  private final AtomicLong reportedIssued = new AtomicLong();

  private GeneSnowflakeGenerator(Builder b, WorkerIdClaims.@Nullable Claim claim, boolean restartFloor) {
    this.claim = claim;
    this.layout = b.layout;
    this.workerId = b.workerId;
    this.clock = b.clock;
    this.maxBorrowMillis = b.maxBorrowMillis;
    this.clockBackwardsPolicy = b.clockBackwardsPolicy;

    this.epochMillis = layout.epoch().toEpochMilli();
    this.sequenceBits = layout.sequenceBits();
    this.sequenceMask = layout.maxSequence();
    this.geneBits = layout.geneBits();
    this.maxGene = layout.maxGene();
    this.timestampShift = layout.workerBits() + layout.sequenceBits() + layout.geneBits();
    this.workerPart = workerId << (layout.sequenceBits() + layout.geneBits());
    this.maxTimestamp = layout.maxTimestampMillis();
    this.limitMillis = maxTimestamp;

    this.strideShift = geneBits <= MAX_PADDED_GENE_BITS ? PADDED_STRIDE_SHIFT : MIN_STRIDE_SHIFT;
    this.spread = new GeneSpread(geneBits);
    // one unused stride first: the array's header (its length, read by every access) shares no line with a gene
    this.states = new AtomicLongArray((int) (layout.geneCount() + 1) << strideShift);
    this.clockWatch = new ClockWatch(clock, epochMillis);
    this.recentClock = clock == GeneClock.system();
    long floor = Long.MIN_VALUE;
    if (b.highWaterMark != null) {
      floor = b.highWaterMark.toEpochMilli();
    } else if (restartFloor) {
      // an earlier run of this worker id (crashed a moment ago) issued at most maxBorrowMillis beyond its clock
      floor = clock.currentTimeMillis() + maxBorrowMillis;
    }
    if (claim != null && restartFloor) {
      // a fixed worker id has no store to vouch for its history, but this JVM saw an earlier generator give it up
      // (a leased engine relies on its lease's mark instead: its pool's store knows the worker id's history)
      floor = Math.max(floor, claim.previousMark());
    }
    if (floor != Long.MIN_VALUE) {
      advancePast(floor);
    }
    CapacityWarning.warnOnce(layout, Instant.ofEpochMilli(clock.currentTimeMillis()),
        CapacityWarning.horizon(b.capacityWarningHorizon));
  }

  /** A builder; {@link Builder#workerId(long)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  // ---------------------------------------------------------------- ids

  /**
   * An id for a row without a parent, or for the parent of the innermost open {@link GeneContext} scope of this
   * thread. Without a scope the gene comes from this generator's {@link GeneSpread}: one thread inserting into one
   * table gets every gene exactly once per {@code 2^G} calls, at any rate; several tables taking turns on one thread
   * share that spread and balance in expectation only. For exact balance per table keep a {@link GeneSpread} per
   * table and call {@link GeneSpread#nextId(GeneIdGenerator)} (the ShardingSphere and MyBatis-Plus integrations do).
   */
  @Override
  public long nextId() {
    Object parentKey = Scopes.next();
    if (parentKey != null) {
      return issue((int) layout.geneOfKey(parentKey));
    }
    return issue((int) spread.nextGene());
  }

  /**
   * An id carrying {@code gene}.
   *
   * @throws IllegalArgumentException if gene is not in {@code [0, 2^G - 1]}
   */
  @Override
  public long nextId(long gene) {
    if (gene < 0 || gene > maxGene) {
      throw new IllegalArgumentException("gene must be in [0, " + maxGene + "] but was " + gene);
    }
    return issue((int) gene);
  }

  /** An id carrying the gene of a numeric parent key: it routes like the parent. */
  @Override
  public long nextIdFor(long parentKey) {
    return issue((int) (parentKey & maxGene));
  }

  /** An id carrying the gene of a string parent key ({@link GeneIdLayout#geneOf(String)}). */
  @Override
  public long nextIdFor(String parentKey) {
    return issue((int) layout.geneOf(parentKey));
  }

  /** An id carrying the gene of a parent key of any supported type ({@link GeneIdLayout#geneOfKey(Object)}). */
  @Override
  public long nextIdForKey(Object parentKey) {
    return issue((int) layout.geneOfKey(parentKey));
  }

  /** The gene of an id (or of any numeric key): {@code id & (2^G - 1)}. */
  @Override
  public long getGene(long id) {
    return id & maxGene;
  }

  @Override
  public int geneBits() {
    return geneBits;
  }

  /**
   * {@code n} ids, as {@code n} calls of {@link #nextId()} would make them, each gene's ids reserved as runs of its
   * sequence: see {@link GeneIdGenerator#nextIds(int)}.
   *
   * @throws IllegalArgumentException if n is not in {@code [1, MAX_BATCH]}
   */
  @Override
  public long[] nextIds(int n) {
    Batches.checkCount(n);
    boolean scoped = Scopes.peek() != null;
    long[] ids = Batches.byGene(Batches.genes(n, layout::geneOfKey, spread::nextGene), this::issueRun);
    if (scoped) {
      Scopes.take(n);
    }
    return ids;
  }

  /**
   * {@code n} ids of the parent's gene, ascending, reserved in runs of its sequence: one compare-and-set per
   * millisecond the run spans.
   *
   * @throws IllegalArgumentException if n is not in {@code [1, MAX_BATCH]}
   */
  @Override
  public long[] nextIdsFor(long parentKey, int n) {
    Batches.checkCount(n);
    long[] ids = new long[n];
    issueRun((int) (parentKey & maxGene), ids, 0, n);
    return ids;
  }

  /** {@code count} ids of {@code gene} into {@code into[from ..]}, ascending, by runs of the gene's sequence. */
  void issueRun(int gene, long[] into, int from, int count) {
    while (count > 0) {
      int taken = reserve(gene, into, from, count);
      from += taken;
      count -= taken;
    }
  }

  /**
   * Reserves up to {@code want} ids of {@code gene} in one compare-and-set, by the rules of {@link #issue(int)}: the
   * rest of one millisecond's sequence at most. Writes them to {@code into[from ..]} and returns how many.
   */
  private int reserve(int gene, long[] into, int from, int want) {
    final int slot = (gene + 1) << strideShift;
    long waitStart = 0L;
    for (;;) {
      long current = states.get(slot);
      long now = clock.currentTimeMillis() - epochMillis; // after the state: see issue(int)
      long next = next(current, now, want);
      if (next < 0) {
        waitStart = await(next, waitStart, current, now);
        continue;
      }
      if (commit(slot, current, next)) {
        long millis = next >>> sequenceBits;
        long last = next & sequenceMask;
        long first = millis == current >>> sequenceBits ? (current & sequenceMask) + 1 : 0;
        long base = (millis << timestampShift) | workerPart | gene;
        for (long seq = first; seq <= last; seq++) {
          into[from++] = base | (seq << geneBits);
        }
        return (int) (last - first + 1);
      }
    }
  }

  private long issue(int gene) {
    final int slot = (gene + 1) << strideShift;
    if (recentClock) {
      long current = states.get(slot);
      long next = nextAtRecent(current, RecentMillis.read() - epochMillis);
      if (next >= 0 && commit(slot, current, next)) {
        return ((next >>> sequenceBits) << timestampShift) | workerPart | ((next & sequenceMask) << geneBits) | gene;
      }
    }
    long waitStart = 0L;
    for (;;) {
      // the state first, then the clock: a clock read before a state that another thread advanced meanwhile would
      // look like a step back under contention
      long current = states.get(slot);
      long now = clock.currentTimeMillis() - epochMillis;
      long next = next(current, now, 1);
      if (next < 0) {
        waitStart = await(next, waitStart, current, now);
        continue;
      }
      if (commit(slot, current, next)) {
        return ((next >>> sequenceBits) << timestampShift) | workerPart | ((next & sequenceMask) << geneBits) | gene;
      }
    }
  }

  /**
   * The state a gene in state {@code current} moves to when it issues one id at {@code recent}, a {@link RecentMillis}
   * reading (ms since the epoch, never ahead of the clock): a millisecond after the gene's last one, or the next
   * sequence of the gene's last millisecond if that is not beyond the borrowing bound; else -1, and the caller reads
   * the exact clock. Either choice is one {@link #next} could make at the exact time, which is at or after
   * {@code recent}; only its timestamp may be up to the reading's lag earlier. No clock step is watched for: the
   * system clock does not step back.
   */
  private long nextAtRecent(long current, long recent) {
    long last = current >>> sequenceBits;
    long state;
    if (recent > last) {
      state = recent << sequenceBits;
    } else if ((current & sequenceMask) != sequenceMask && last - recent <= maxBorrowMillis) {
      state = current + 1;
    } else {
      return -1L;
    }
    long millis = state >>> sequenceBits;
    return millis > limitMillis || recent < 0 ? -1L : state;
  }

  /** {@link #next} could not advance: the clock stepped back beyond the borrowing bound. */
  private static final long STEPPED_BACK = -1L;
  /** {@link #next} could not advance: the gene's borrowing bound is reached. */
  private static final long AT_BOUND = -2L;

  /**
   * The state a gene in state {@code current} moves to when it issues up to {@code want} ids at {@code now} (ms since
   * the epoch): {@code (millis << S) | last sequence taken}, the run being the rest of {@code current}'s millisecond
   * or the start of a later one, at most {@code want} long; or {@link #STEPPED_BACK} or {@link #AT_BOUND} when it
   * must wait.
   *
   * @throws GeneIdException if the millisecond is past the ceiling, the layout's timestamp field or before the epoch
   */
  private long next(long current, long now, int want) {
    long last = current >>> sequenceBits;
    long millis;
    long first;
    if (now != last) {
      clockWatch.observe(now);
    }
    if (now > last) {
      millis = now;
      first = 0;
    } else if (last - now > maxBorrowMillis) {
      return STEPPED_BACK;
    } else if ((current & sequenceMask) != sequenceMask) {
      millis = last;
      first = (current & sequenceMask) + 1;
    } else if (last + 1 - now <= maxBorrowMillis) {
      millis = last + 1;
      first = 0;
    } else {
      return AT_BOUND;
    }
    if (millis > limitMillis || millis < 0) {
      throw cannotIssue(millis);
    }
    return (millis << sequenceBits) | Math.min(sequenceMask, first + want - 1);
  }

  /**
   * Moves the gene at {@code slot} from {@code current} to {@code next}; when that leaves a millisecond, counts the
   * (sequence + 1) ids the gene had issued in it (see {@link #stats()}).
   */
  private boolean commit(int slot, long current, long next) {
    if (!states.compareAndSet(slot, current, next)) {
      return false;
    }
    if (next >>> sequenceBits != current >>> sequenceBits) {
      states.getAndAdd(slot + 1, (current & sequenceMask) + 1);
    }
    return true;
  }

  /** Waits as {@link #next}'s answer says; returns the wait start. */
  private long await(long reason, long waitStart, long current, long now) {
    return reason == STEPPED_BACK ? awaitClockStepBack(waitStart, current >>> sequenceBits, now)
        : awaitTick(waitStart, now);
  }

  /** The clock is far behind what this gene issued: apply the policy. Returns the wait start. */
  private long awaitClockStepBack(long waitStart, long last, long now) {
    if (waitStart == 0L) {
      clockWatch.waited();
    }
    long started = waitStart == 0L ? System.nanoTime() | 1L : waitStart;
    long waited = System.nanoTime() - started;
    if (waited >= clockBackwardsPolicy.maxWait().toNanos()) {
      throw new ClockMovedBackwardsException(workerId, Instant.ofEpochMilli(epochMillis + last),
          Instant.ofEpochMilli(epochMillis + now), Duration.ofNanos(waited));
    }
    LockSupport.parkNanos(100_000L);
    return started;
  }

  /** The gene's borrowing bound is reached: wait for the clock to tick. Returns the wait start. */
  private long awaitTick(long waitStart, long now) {
    if (waitStart == 0L) {
      clockWatch.waited();
    }
    long started = waitStart == 0L ? System.nanoTime() | 1L : waitStart;
    long waited = System.nanoTime() - started;
    if (waited > STALL_LIMIT_NANOS) {
      throw new GeneIdException("the clock has not advanced past " + Instant.ofEpochMilli(epochMillis + now)
          + " for " + Duration.ofNanos(waited).toMillis() + " ms while worker id " + workerId
          + " waited for time beyond its borrowing bound of " + maxBorrowMillis + " ms");
    }
    Thread.onSpinWait();
    return started;
  }

  private GeneIdException cannotIssue(long millis) {
    Instant at = Instant.ofEpochMilli(epochMillis + millis);
    if (millis < 0) {
      return new GeneIdException("the clock reads " + at + ", before the layout epoch " + layout.epoch());
    }
    if (millis > maxTimestamp) {
      return new GeneIdException("the layout's timestamp field ran out at " + layout.lastTimestamp()
          + ": cannot issue an id for " + at + " with " + layout);
    }
    return new GeneIdException("worker id " + workerId + " may not issue ids after "
        + Instant.ofEpochMilli(epochMillis + limitMillis) + " (its recorded high-water mark) but needs " + at);
  }

  // ---------------------------------------------------------------- marks

  /**
   * The latest timestamp any gene of this generator has used (borrowed time included), or the high-water mark it
   * was built with if that is later. A later holder of this worker id must issue only after it.
   */
  public Instant highWaterMark() {
    long max = 0L;
    for (int i = 1 << strideShift, n = states.length(); i < n; i += 1 << strideShift) {
      max = Math.max(max, states.get(i) >>> sequenceBits);
    }
    return Instant.ofEpochMilli(epochMillis + max);
  }

  /** Makes every gene issue only after {@code unixMillis}. Never moves a gene backwards. */
  void advancePast(long unixMillis) {
    long millis = unixMillis - epochMillis;
    if (millis < 0) {
      return;
    }
    long floor = (millis << sequenceBits) | sequenceMask;
    for (int i = 1 << strideShift, n = states.length(); i < n; i += 1 << strideShift) {
      for (long current = states.get(i); current < floor; current = states.get(i)) {
        // the floor reads as a full millisecond of ids that were never issued: take them off the count first
        long notIssued = (current & sequenceMask) - sequenceMask;
        states.getAndAdd(i + 1, notIssued);
        if (states.compareAndSet(i, current, floor)) {
          break;
        }
        states.getAndAdd(i + 1, -notIssued);
      }
    }
  }

  // ---------------------------------------------------------------- stats

  /**
   * What this generator has done so far: ids issued, borrowed time, clock steps and waits. Cheap enough for every
   * metrics scrape: it reads two words per gene ({@code 2^G} genes) and costs the issuing threads nothing.
   *
   * <p>Each gene counts its ids when it leaves a millisecond (at most once per millisecond, in the cache line of its
   * state); the ids of its current millisecond are read from its sequence here.
   */
  public GeneSnowflakeStats stats() {
    long now = clock.currentTimeMillis() - epochMillis;
    long issued = 0L;
    long ahead = 0L;
    for (int i = 1 << strideShift, n = states.length(); i < n; i += 1 << strideShift) {
      // the count before the state: a gene leaving a millisecond in between is missed now, never counted twice
      long finished = states.get(i + 1);
      long state = states.get(i);
      // a gene that never issued reads as millisecond 0, sequence 0: the "+ 1" of each such gene is taken off below
      issued += finished + (state & sequenceMask) + 1;
      ahead = Math.max(ahead, (state >>> sequenceBits) - now);
    }
    issued -= layout.geneCount();
    long reported = reportedIssued.accumulateAndGet(issued, Math::max);
    return new GeneSnowflakeStats(reported, Duration.ofMillis(ahead), clockWatch.stepBacks(),
        Duration.ofMillis(clockWatch.largestStepBack()), clockWatch.waits());
  }

  /**
   * Gives up this generator's claim on its worker id (see {@link GeneIdRegistry}), recording its high-water mark for
   * the next claimant in this JVM. The caller must make sure no id of this generator is handed out afterwards.
   * Idempotent; nothing for a generator built without a claim.
   */
  void releaseClaim() {
    WorkerIdClaims.Claim c = claim;
    if (c != null) {
      c.close(highWaterMark().toEpochMilli());
    }
  }

  /** Limits issued timestamps to at most {@code unixMillis}. */
  void ceiling(long unixMillis) {
    this.limitMillis = Math.min(unixMillis - epochMillis, maxTimestamp);
  }

  // ---------------------------------------------------------------- accessors

  public GeneIdLayout layout() {
    return layout;
  }

  public long workerId() {
    return workerId;
  }

  public long maxBorrowMillis() {
    return maxBorrowMillis;
  }

  public ClockBackwardsPolicy clockBackwardsPolicy() {
    return clockBackwardsPolicy;
  }

  public GeneClock clock() {
    return clock;
  }

  /** Whether {@code b} would build a generator that behaves like this one (the registry shares only those). */
  boolean sameSettings(Builder b) {
    return layout.equals(b.layout) && workerId == b.workerId && clock.equals(b.clock)
        && maxBorrowMillis == b.maxBorrowMillis && clockBackwardsPolicy.equals(b.clockBackwardsPolicy);
  }

  @Override
  public String toString() {
    return "GeneSnowflakeGenerator[workerId=" + workerId + ", " + layout + ", maxBorrowMillis=" + maxBorrowMillis
        + ", clock=" + clock + ", " + clockBackwardsPolicy + "]";
  }

  /** Configuration of a {@link GeneSnowflakeGenerator}. */
  public static final class Builder {
    /** Default {@link #maxBorrowMillis(long)}. */
    public static final long DEFAULT_MAX_BORROW_MILLIS = WorkerIdAssigner.DEFAULT_BORROW_SLACK_MILLIS;
    /** The largest {@code maxBorrowMillis}: one minute. */
    public static final long MAX_MAX_BORROW_MILLIS = 60_000;
    /** Default {@link #capacityWarningHorizon(Duration)}: five years of 365.25 days. */
    public static final Duration DEFAULT_CAPACITY_WARNING_HORIZON = Duration.ofHours(5 * 8766);

    GeneIdLayout layout = GeneIdLayout.defaults();
    long workerId = -1;
    GeneClock clock = GeneClock.system();
    long maxBorrowMillis = DEFAULT_MAX_BORROW_MILLIS;
    ClockBackwardsPolicy clockBackwardsPolicy = ClockBackwardsPolicy.DEFAULT;
    @org.jspecify.annotations.Nullable Instant highWaterMark;
    @org.jspecify.annotations.Nullable Duration capacityWarningHorizon;

    private Builder() {}

    /** The id layout. Default {@link GeneIdLayout#defaults()}. */
    public Builder layout(GeneIdLayout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /** This process's worker id, in {@code [0, 2^W - 1]}. Required: no default, as a default collides. */
    public Builder workerId(long workerId) {
      this.workerId = workerId;
      return this;
    }

    /** The time source. Default {@link GeneClock#system()}. */
    public Builder clock(GeneClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * How far (ms) a gene may run ahead of the clock when its sequence overflows, and how large a clock step back
     * is absorbed without the policy. In [0, 60000]. Default 10.
     */
    public Builder maxBorrowMillis(long maxBorrowMillis) {
      this.maxBorrowMillis = maxBorrowMillis;
      return this;
    }

    /** What happens when the clock steps back further than {@code maxBorrowMillis}. */
    public Builder clockBackwardsPolicy(ClockBackwardsPolicy policy) {
      this.clockBackwardsPolicy = Objects.requireNonNull(policy, "clockBackwardsPolicy");
      return this;
    }

    /**
     * The latest timestamp an earlier holder of this worker id may have issued; this generator issues only after
     * it, whatever its clock says.
     */
    public Builder highWaterMark(Instant highWaterMark) {
      this.highWaterMark = Objects.requireNonNull(highWaterMark, "highWaterMark");
      return this;
    }

    /**
     * Warn (once per layout, through {@link System.Logger} {@code io.geneid.core.snowflake.GeneSnowflakeGenerator}) when the
     * layout's timestamp field runs out within this time of the generator's start. Default: the system property
     * {@code geneid.capacity-warning-horizon} (an ISO-8601 duration such as {@code P10Y} or {@code P180D}) if set,
     * else {@link #DEFAULT_CAPACITY_WARNING_HORIZON}. {@link Duration#ZERO} turns the warning off.
     */
    public Builder capacityWarningHorizon(Duration horizon) {
      Objects.requireNonNull(horizon, "capacityWarningHorizon");
      if (horizon.isNegative()) {
        throw new IllegalArgumentException("capacityWarningHorizon must not be negative but was " + horizon);
      }
      this.capacityWarningHorizon = horizon;
      return this;
    }

    /**
     * The generator for this (layout, worker id) shared by the whole JVM.
     * <ul>
     *   <li><b>Shared:</b> the first call creates it and registers it in {@link GeneIdRegistry}; every later call
     *       with the same layout and worker id (from ShardingSphere, MyBatis-Plus, Spring or the application) gets
     *       the same instance, its high-water mark raised if this builder's is later. It is never closed.</li>
     *   <li><b>Claimed:</b> creating it claims its (epoch, worker id) in the JVM for the JVM's life, across class
     *       loaders ({@link GeneIdRegistry}).</li>
     *   <li><b>Refused</b> with an {@link IllegalStateException} naming both: a build with the same layout and
     *       worker id but other settings (clock, {@code maxBorrowMillis}, clock policy); a build with another layout
     *       of the same epoch and worker id; and any build while another generator of the JVM (a
     *       {@link LeasedGeneGenerator}, a copy of gene-id in another class loader) holds the worker id. Likewise
     *       a leased generator that later leases this worker id is refused.</li>
     *   <li><b>Restart-safe:</b> without {@link #highWaterMark(Instant)} it issues only after its clock at creation
     *       plus {@code maxBorrowMillis} (see "Restart" on {@link GeneSnowflakeGenerator}), so a quick restart of a
     *       crashed process with the same worker id repeats no id.</li>
     * </ul>
     *
     * @throws IllegalArgumentException for a setting out of range
     * @throws IllegalStateException if another generator of this JVM holds the worker id, or one for the same layout
     *     and worker id exists with other settings (two of them would issue duplicate ids)
     */
    public GeneSnowflakeGenerator build() {
      validate();
      return GeneIdRegistry.getOrCreate(this);
    }

    /**
     * A generator of its own, <b>for tests only</b>. It takes no claim in {@link GeneIdRegistry} and no restart
     * floor: nothing stops a second generator of this JVM with the same worker id and epoch (the two issue the same
     * ids), nor a quick restart from repeating the ids a crashed run borrowed ahead; it trusts the caller to own the
     * worker id alone and to vouch for its history (pass {@link #highWaterMark(Instant)}). Tests use it for an
     * exact, isolated engine driven by a manual clock.
     */
    public GeneSnowflakeGenerator buildUnshared() {
      validate();
      return new GeneSnowflakeGenerator(this, null, false);
    }

    /**
     * A new generator, not registered for sharing, that claims its (epoch, worker id) in the JVM for
     * {@code claimant} until {@link GeneSnowflakeGenerator#releaseClaim()}. With {@code restartFloor} (a fixed worker
     * id, no store behind it) it starts after the mark an earlier claimant of this JVM left and, without
     * {@link #highWaterMark(Instant)}, after its clock plus {@code maxBorrowMillis}.
     *
     * @throws IllegalStateException naming both claimants if another generator of the JVM holds the worker id
     */
    GeneSnowflakeGenerator buildClaimed(String claimant, boolean restartFloor) {
      validate();
      WorkerIdClaims.Claim c = WorkerIdClaims.claim(layout.epoch(), workerId, claimant);
      try {
        return new GeneSnowflakeGenerator(this, c, restartFloor);
      } catch (RuntimeException | Error e) {
        c.close();
        throw e;
      }
    }

    /** The settings, for claim descriptions. */
    String describe() {
      return "workerId=" + workerId + ", " + layout + ", maxBorrowMillis=" + maxBorrowMillis + ", clock=" + clock;
    }

    private void validate() {
      layout.checkUsableAt(Instant.ofEpochMilli(clock.currentTimeMillis()));
      if (workerId == -1) {
        throw new InvalidSettingException("workerId", null, "a value in [0, " + layout.maxWorkerId() + "]");
      }
      Checks.range("workerId", workerId, 0, layout.maxWorkerId());
      Checks.range("maxBorrowMillis", maxBorrowMillis, 0, MAX_MAX_BORROW_MILLIS);
    }
  }
}
