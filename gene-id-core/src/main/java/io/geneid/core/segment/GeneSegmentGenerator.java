package io.geneid.core.segment;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.internal.Batches;
import io.geneid.core.internal.Checks;
import io.geneid.core.internal.Scopes;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.Genes;
import io.geneid.core.GeneClock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Short, dense, increasing ids for one business tag, taken from ranges ("segments") that a {@link SegmentStore}
 * hands out, with the gene in the low bits so that they route like snowflake ids:
 *
 * <pre>
 *  63 | 62 ............................. G | G bits (lowest)
 *   0 | value from a segment (63 - G bits) | gene
 * </pre>
 *
 * <p>{@code id = (value << G) | gene}. Values are unique for the tag across every process sharing the store, so ids
 * are unique whatever genes they carry; ids issued one after another by one thread strictly increase.
 *
 * <h2>Genes</h2>
 * Exactly as with {@link io.geneid.core.snowflake.GeneSnowflakeGenerator}: {@link #nextId(long)}, {@link #nextIdFor(long)} and friends take
 * the gene from the caller or the parent key; {@link #nextId()} takes it from the innermost open
 * {@link GeneContext} scope of the thread, and without a scope spreads root rows round-robin over all genes
 * (the gene of a root id is the low G bits of its value, so consecutive ids cycle through the genes).
 *
 * <h2>Prefetching</h2>
 * The generator holds the current segment and, once {@link Builder#prefetchRatio(double) a fraction} of it is
 * used, fetches the next one on its own background thread (a daemon thread started by {@link Builder#build()},
 * stopped by {@link #close()}). Fetched segments form a chain behind the current one. Callers take values from the
 * current segment with one atomic increment and, when it runs out, move to the next segment of the chain with one
 * compare-and-set, without a lock and without waiting for the background thread; they only wait for the store when
 * no segment is ready. Normally one segment is fetched ahead. When a caller finds the segment used up while its
 * successor is still being fetched (segments used up faster than a fetch takes, as with a small fixed step), the
 * prefetch depth doubles, up to 64 segments; the background thread then fetches segments one after another until
 * the depth is reached and is woken again once half of them are used, so a fixed step of 1,000 costs a caller no
 * more than a compare-and-set per switch. The depth never shrinks during the generator's life: what it costs is the
 * values of ready segments, skipped at shutdown.
 *
 * <h2>Store outages (fault model)</h2>
 * <ul>
 *   <li><b>The store fails</b>: values left in the two segments are still issued (a failed prefetch is retried at
 *       most once per {@link Builder#prefetchRetry(Duration)}). When both are used up, every call tries the store
 *       once more and, if that fails, throws a {@link GeneIdException} naming the tag and the store, with the store's
 *       error as its cause. Issuance resumes with the first successful fetch.
 *   <li><b>The store goes silent</b> (a call that never returns): a fetch that has not answered within
 *       {@link Builder#fetchTimeout(Duration)} is abandoned and the next call that needs a segment starts a new one
 *       on a new thread, so a hung connection never leaves the generator stuck. A caller that finds both segments
 *       used up waits at most until the pending fetch's timeout, then fails with an exception naming the tag and
 *       the store. The late answer of an abandoned fetch is a gap: its values are never issued.
 *   <li><b>The store goes back in time</b> (lost or restored data): a segment that is not above every segment this
 *       generator has used is refused with an exception. This protects one process only; the store itself must not
 *       forget (see the store's own fault model).
 * </ul>
 * A value is never issued twice by a generator: a segment is used once, and a failed or abandoned fetch leaves at
 * most a gap.
 *
 * <h2>Adaptive step</h2>
 * Each fetch asks for a step that would make the segment last about {@link Builder#segmentDuration(Duration)} at
 * the rate the current segment is being used, changing the previous step by at most a factor of two and staying
 * within {@code [minStep, maxStep]}. The first segment has {@code minStep} values. Values of segments not used up
 * before shutdown are skipped, so a larger step costs more gaps per restart; it also rides out longer outages.
 *
 * <pre>{@code
 * SegmentStore store = JdbcSegmentStore.builder().dataSource(dataSource).build();
 * try (GeneSegmentGenerator orders = GeneSegmentGenerator.builder(store, "order").build()) {
 *   long orderId = orders.nextId();              // a root row: genes spread round-robin
 *   long itemId = orders.nextIdFor(orderId);     // routes like its order
 * }
 * }</pre>
 */
public final class GeneSegmentGenerator implements GeneIdGenerator, AutoCloseable {

  /** The most segments fetched ahead of the current one. */
  static final int MAX_PREFETCH_DEPTH = 64;
  private static final VarHandle CURRENT;

  static {
    try {
      CURRENT = MethodHandles.lookup().findVarHandle(GeneSegmentGenerator.class, "current", Buffer.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
  /**
   * Past a segment's prefetch point, single values look at the prefetch state only at the prefetch point itself and
   * then once per 64 values: the state lives in fields the background thread writes, which would cost a cache miss
   * per read while it fetches.
   */
  private static final long PREFETCH_CHECK_MASK = 63;

  private static final System.Logger LOG = System.getLogger(GeneSegmentGenerator.class.getName());

  private final SegmentStore store;
  private final String bizTag;
  private final int geneBits;
  private final long maxGene;
  /** Largest value whose id fits in 63 bits: {@code 2^(63 - G) - 1}. */
  private final long maxValue;
  /** A layout whose gene functions have G bits (time, worker and sequence fields are not used). */
  private final long minStep;
  private final long maxStep;
  private final long segmentMillis;
  private final double prefetchRatio;
  private final long prefetchRetryMillis;
  private final long fetchTimeoutNanos;
  private final GeneClock clock;
  private final ExecutorService executor;

  /**
   * Guards every change of {@link #fs} (but its volatile fields are read without it), {@link #prefetchDepth}, and
   * the first {@link #current}; a caller moves {@link #current} to the next segment without it.
   */
  private final ReentrantLock lock = new ReentrantLock();
  /**
   * The segment values are taken from, the head of the chain of fetched segments ({@link Buffer#next}): a caller
   * that finds it used up moves it to its successor by compare-and-set.
   */
  private volatile @Nullable Buffer current;
  /** How many segments to keep fetched ahead (guarded by lock; read without it). */
  private volatile int prefetchDepth = 1;
  /** The most {@link #prefetchDepth} may grow to. */
  private final int maxPrefetchDepth;
  /** Values a thread takes at once ({@link SegmentSettings#threadBlock()}), 0 for one shared order. */
  private final int threadBlock;
  /** Per thread {@code [next, last]} of its block; null without thread blocks. */
  private final @Nullable ThreadLocal<long[]> blocks;
  /**
   * What the background thread changes at every fetch, on cache lines of its own: every id reads {@link #current},
   * {@link #closed} and their neighbours, which would otherwise miss in the cache after each of its writes.
   */
  private final FetchState fs = new FetchState();
  private volatile boolean closed;

  private GeneSegmentGenerator(Builder b, SegmentSettings settings) {
    this.store = b.store;
    this.bizTag = b.bizTag;
    this.geneBits = settings.geneBits();
    this.maxGene = (1L << geneBits) - 1;
    this.maxValue = (1L << (63 - geneBits)) - 1;
    this.minStep = settings.minStep();
    this.maxStep = settings.maxStep();
    this.segmentMillis = settings.segmentDuration().toMillis();
    this.prefetchRatio = settings.prefetchRatio();
    this.prefetchRetryMillis = settings.prefetchRetry().toMillis();
    this.fetchTimeoutNanos = settings.fetchTimeout().toNanos();
    this.clock = b.clock;
    fs.step = minStep;
    this.maxPrefetchDepth = b.maxPrefetchDepth;
    this.threadBlock = settings.threadBlock();
    this.blocks = threadBlock == 0 ? null : ThreadLocal.withInitial(() -> new long[] {1, 0});
    String threadName = "gene-id-segment-" + bizTag;
    // a thread per fetch in flight (one, plus any abandoned fetch still stuck in the store); idle threads end
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * A builder for a generator of {@code bizTag}'s ids over {@code store}.
   *
   * @param store where segments come from
   * @param bizTag the business tag (e.g. the table name): 1 to 128 characters
   */
  public static Builder builder(SegmentStore store, String bizTag) {
    return new Builder(store, bizTag);
  }

  // ---------------------------------------------------------------- ids

  /**
   * An id for a row without a parent, or for the parent of the innermost open {@link GeneContext} scope of this
   * thread. Without a scope the gene is the low G bits of the value, so root rows cycle through all genes.
   *
   * @throws GeneIdException if no value is left and the store cannot hand out a segment
   */
  @Override
  public long nextId() {
    Object parentKey = Scopes.peek();
    if (parentKey != null) {
      long id = compose(takeValue(), Genes.ofKey(parentKey, geneBits));
      Scopes.take(); // taken once the id is made: a call that fails takes no key
      return id;
    }
    long value = takeValue();
    return compose(value, value & maxGene);
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
    return compose(takeValue(), gene);
  }

  /**
   * One id per entry of {@code genes}, in order: one run of values for the whole batch, each with its entry's gene. A
   * segment id's value is unique whatever its gene, so the ids ascend in array order as single calls would make them.
   *
   * @throws IllegalArgumentException if the length is not in {@code [1, MAX_BATCH]} or a gene is not in
   *     {@code [0, 2^G - 1]}
   */
  @Override
  public long[] nextIdsWithGenes(int[] genes) {
    Batches.checkCount(genes.length);
    for (int gene : genes) {
      Checks.range("gene", gene, 0, maxGene);
    }
    long[] run = nextIdsFor(0, genes.length);
    for (int i = 0; i < genes.length; i++) {
      run[i] |= genes[i];
    }
    return run;
  }

  /**
   * {@code n} ids as {@code n} calls of {@link #nextId()} would make them: a run of {@code n} values taken in one
   * atomic step where the current segment has them (else the rest of it and more from the next), the genes from the
   * open {@link GeneContext} scope, or for root rows the low G bits of each value. Ids ascend in array order.
   *
   * @throws IllegalArgumentException if n is not in {@code [1, MAX_BATCH]}
   * @throws GeneIdException if the values run out and the store cannot hand out a segment
   */
  @Override
  public long[] nextIds(int n) {
    Batches.checkCount(n);
    Object first = Scopes.peek();
    long[] ids = new long[n];
    if (first == null) {
      takeValues(ids, n);
      for (int i = 0; i < n; i++) {
        ids[i] = compose(ids[i], ids[i] & maxGene);
      }
      return ids;
    }
    long[] genes = new long[n]; // every key read (a per-row scope that is too short fails) before a value is taken
    long gene = Genes.ofKey(first, geneBits);
    for (int i = 0; i < n; i++) {
      Object key = i == 0 ? first : Scopes.peek(i);
      genes[i] = key == first ? gene : Genes.ofKey(key, geneBits);
    }
    takeValues(ids, n);
    for (int i = 0; i < n; i++) {
      ids[i] = compose(ids[i], genes[i]);
    }
    Scopes.take(n); // taken once the ids are made: a call that fails takes no key
    return ids;
  }

  /**
   * {@code n} ids carrying the gene of a numeric parent key, ascending: a run of values (see {@link #nextIds(int)}).
   *
   * @throws IllegalArgumentException if n is not in {@code [1, MAX_BATCH]}
   */
  @Override
  public long[] nextIdsFor(long parentKey, int n) {
    Batches.checkCount(n);
    long[] ids = new long[n];
    takeValues(ids, n);
    long gene = parentKey & maxGene;
    for (int i = 0; i < n; i++) {
      ids[i] = compose(ids[i], gene);
    }
    return ids;
  }

  /** The gene of an id (or of any numeric key): {@code id & (2^G - 1)}. */
  @Override
  public long getGene(long id) {
    return id & maxGene;
  }

  /** The value an id was made from: {@code id >>> G}. */
  public long valueOf(long id) {
    return id >>> geneBits;
  }

  @Override
  public int geneBits() {
    return geneBits;
  }

  private long compose(long value, long gene) {
    return (value << geneBits) | gene;
  }

  /**
   * The next unused value: one atomic increment unless the current segment is used up; with thread blocks, the next
   * value of this thread's block, taking a new block when it is used up.
   */
  private long takeValue() {
    ThreadLocal<long[]> local = blocks;
    if (local != null) {
      return takeFromBlock(local.get());
    }
    for (;;) {
      checkOpen();
      Buffer b = Objects.requireNonNull(current);
      long v = b.take(1);
      if (v <= b.end && v >= b.start) { // v < start only after the cursor wrapped past Long.MAX_VALUE
        if (v >= b.prefetchAt && (v == b.prefetchAt || (v & PREFETCH_CHECK_MASK) == 0) && lowOnReady(b)) {
          prefetch(b);
        }
        return v;
      }
      advance(b);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new GeneIdException("the GeneSegmentGenerator of tag '" + bizTag + "' is closed: it issues no ids");
    }
  }

  /** The next value of {@code block} ({@code [next, last]}), first taking a new block from the segment if needed. */
  private long takeFromBlock(long[] block) {
    long v = block[0];
    if (v <= block[1]) {
      checkOpen();
      block[0] = v + 1;
      return v;
    }
    for (;;) {
      checkOpen();
      Buffer b = Objects.requireNonNull(current);
      long first = b.take(threadBlock);
      if (first <= b.end && first >= b.start) { // first < start only after the cursor wrapped past Long.MAX_VALUE
        long last = Math.min(b.end, first + threadBlock - 1);
        if (last >= b.prefetchAt && lowOnReady(b)) {
          prefetch(b);
        }
        block[0] = first + 1;
        block[1] = last;
        return first;
      }
      advance(b);
    }
  }

  /**
   * The next {@code n} unused values into {@code into}, ascending: one atomic addition per segment the run touches.
   * Values of a run that fall past a segment's end are not values of it (nothing is skipped).
   */
  private void takeValues(long[] into, int n) {
    int filled = 0;
    while (filled < n) {
      checkOpen();
      Buffer b = Objects.requireNonNull(current);
      int want = n - filled;
      long v = b.take(want);
      if (v <= b.end && v >= b.start) { // v < start only after the cursor wrapped past Long.MAX_VALUE
        long got = Math.min(want, b.end - v + 1);
        for (int k = 0; k < got; k++) {
          into[filled + k] = v + k;
        }
        filled += (int) got;
        if (v + got - 1 >= b.prefetchAt && lowOnReady(b)) {
          prefetch(b);
        }
        if (filled == n) {
          return;
        }
      }
      advance(b);
    }
  }

  /**
   * Few enough segments are ready after {@code b} to start fetching more, and no fetch is under way: at most half
   * the prefetch depth (none at depth 1). The background thread then fetches until the depth is reached, so that at
   * a depth of 64 it is woken once per 32 segments, not once per segment.
   */
  private boolean lowOnReady(Buffer b) {
    return readyAfter(b) <= prefetchDepth >> 1 && fs.pending == null;
  }

  /** Segments fetched after {@code b}. */
  private long readyAfter(Buffer b) {
    Buffer t = fs.tail;
    return t == null ? 0 : t.ordinal - b.ordinal;
  }

  /** Starts fetching the segment after {@code b} in the background, unless that is under way or backing off. */
  private void prefetch(Buffer b) {
    if (fs.ranOut != null || fs.lastStoreError != null && clock.currentTimeMillis() < fs.prefetchRetryAtMillis) {
      return;
    }
    if (!lock.tryLock()) {
      return; // another thread is switching segments or starting the fetch
    }
    try {
      if (current == b && lowOnReady(b) && !closed) {
        startFetch(adaptStep(b));
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@code b} is used up: switch to the segment fetched after it (a compare-and-set, without the lock), or wait for
   * the store.
   */
  private void advance(Buffer b) {
    if (switchFrom(b)) {
      return;
    }
    Fetch waitFor;
    lock.lock();
    try {
      if (current != b || closed || switchFrom(b)) {
        return; // another thread switched already, a segment came meanwhile, or takeValue reports the closing
      }
      GeneIdException overflow = fs.ranOut;
      if (overflow != null) {
        throw new GeneIdException(overflow.getMessage(), overflow);
      }
      Fetch inFlight = fs.pending;
      if (inFlight != null && System.nanoTime() - inFlight.deadlineNanos >= 0) {
        abandon(inFlight); // it hung past its timeout: its answer, if it ever comes, is a gap
        inFlight = null;
      }
      if (inFlight != null && prefetchDepth < maxPrefetchDepth) {
        prefetchDepth *= 2; // segments run out faster than one fetch takes: keep more of them ready
      }
      waitFor = inFlight != null ? inFlight : startFetch(adaptStep(b));
    } finally {
      lock.unlock();
    }
    await(waitFor, "no ids left for tag '" + bizTag + "': its segments are used up and ");
  }

  /**
   * Makes the segment fetched after {@code b} the current one if {@code b} still is; true if there is such a segment
   * (this thread or another one switched), false if none has been fetched yet. Segments are taken in the order they
   * were fetched, so ids issued one after another by one thread increase.
   */
  private boolean switchFrom(Buffer b) {
    Buffer n = b.next;
    if (n == null) {
      return false;
    }
    if (minStep != maxStep) {
      n.activatedAtMillis = clock.currentTimeMillis(); // for adaptStep; racing switchers write alike
    }
    CURRENT.compareAndSet(this, b, n);
    return true;
  }

  /** Gives up a fetch that outlived its timeout (under the lock): its late answer will be dropped. */
  private void abandon(Fetch fetch) {
    if (fs.pending == fetch) {
      fs.pending = null;
    }
    if (!fetch.abandoned) {
      fetch.abandoned = true;
      LOG.log(System.Logger.Level.WARNING, "gene-id: the segment store " + store + " did not answer a fetch for tag '"
          + bizTag + "' within " + TimeUnit.NANOSECONDS.toMillis(fetchTimeoutNanos) + " ms; the fetch is abandoned "
          + "(its values are skipped if it answers late) and the next one starts anew");
    }
  }

  /** Waits for a fetch, at most until its timeout; the fetch itself appends its segment to the chain. */
  private void await(Fetch fetch, String messageStart) {
    try {
      fetch.future.get(Math.max(0, fetch.deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GeneIdException(messageStart + "the thread was interrupted while waiting for the segment store "
          + store, e);
    } catch (TimeoutException e) {
      lock.lock();
      try {
        abandon(fetch);
      } finally {
        lock.unlock();
      }
      throw new GeneIdException(messageStart + "the segment store " + store + " did not hand out a segment within "
          + TimeUnit.NANOSECONDS.toMillis(fetchTimeoutNanos) + " ms; that fetch is abandoned (its values are "
          + "skipped if it answers late)", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof SegmentRefusedException) {
        throw new GeneIdException(cause.getMessage(), cause);
      }
      throw new GeneIdException(messageStart + "the segment store " + store
          + " failed to hand out the next segment: " + cause, cause);
    }
  }

  /** One call to the store: the step asked for, the answer, and when the generator stops waiting for it. */
  private static final class Fetch {
    final CompletableFuture<Buffer> future = new CompletableFuture<>();
    final long deadlineNanos;
    final long step;
    /** Set under the lock once the fetch outlived its timeout: its answer is then dropped. */
    boolean abandoned;

    Fetch(long deadlineNanos, long step) {
      this.deadlineNanos = deadlineNanos;
      this.step = step;
    }
  }

  /** Submits a fetch of {@code requestedStep} values on a background thread (under the lock). */
  private Fetch startFetch(long requestedStep) {
    Fetch fetch = new Fetch(System.nanoTime() + fetchTimeoutNanos, requestedStep);
    fs.pending = fetch;
    fs.step = requestedStep;
    executor.execute(() -> fetch(fetch));
    return fetch;
  }

  /**
   * Runs on a background thread: asks the store, appends the segment to the chain, and goes on with the next fetch
   * on the same thread while fewer than {@link #prefetchDepth} segments are ready.
   */
  private void fetch(Fetch first) {
    for (@Nullable Fetch fetch = first; fetch != null; fetch = fetchOne(fetch)) {
      // each round asks the store once
    }
  }

  /** One fetch of {@link #fetch}; returns the fetch to go on with, or null. */
  private @Nullable Fetch fetchOne(Fetch fetch) {
    long requestedStep = fetch.step;
    Segment segment = null;
    Throwable error = null;
    try {
      segment = store.nextSegment(bizTag, requestedStep);
      if (segment == null) {
        throw new GeneIdException("the segment store " + store + " returned no segment for tag '" + bizTag + "'");
      }
    } catch (Throwable t) { // reported to the waiting callers, never swallowed
      error = t;
    }
    Buffer buffer = null;
    Fetch following = null;
    lock.lock();
    try {
      if (fetch.abandoned) {
        // never issued, so it does not raise highestEnd: the fetch that replaced it may have claimed the range
        // below it, which is no sign of a store that lost its counter
        if (segment != null) {
          LOG.log(System.Logger.Level.INFO, "gene-id: the abandoned fetch for tag '" + bizTag + "' answered late with "
              + segment + " from " + store + "; its values are skipped (a gap)");
        }
        return null; // whoever waited for it was told; the next fetch has started or will
      }
      fs.pending = null;
      if (segment != null) {
        if (segment.start() <= fs.highestEnd) {
          error = new SegmentRefusedException("the segment store " + store + " handed out " + segment
              + " for tag '" + bizTag + "', which is not above the highest value already handed out ("
              + fs.highestEnd + "): the store lost or reset its counter, refusing the segment so that no id is "
              + "issued twice");
        } else if (segment.start() > maxValue) {
          SegmentRefusedException overflow = new SegmentRefusedException("values of tag '" + bizTag
              + "' ran out: with geneBits " + geneBits + " a value must be at most " + maxValue + " (63 - "
              + geneBits + " bits) but the segment store " + store + " handed out " + segment);
          fs.ranOut = overflow;
          error = overflow;
        } else {
          fs.highestEnd = segment.endInclusive();
          Buffer last = fs.tail;
          buffer = new Buffer(segment.start(), Math.min(segment.endInclusive(), maxValue), prefetchRatio,
              last == null ? 0 : last.ordinal + 1);
          if (last != null) {
            last.next = buffer;
          }
          fs.tail = buffer;
          if (fs.lastStoreError != null) {
            fs.lastStoreError = null;
          }
          following = following();
        }
      }
      if (error != null) {
        fs.lastStoreError = error;
        fs.prefetchRetryAtMillis = clock.currentTimeMillis() + prefetchRetryMillis;
      }
    } finally {
      lock.unlock();
    }
    if (buffer != null) {
      fetch.future.complete(buffer);
      return following;
    } else {
      if (!(error instanceof SegmentRefusedException) && !closed) { // after close() nobody waits for it
        LOG.log(System.Logger.Level.WARNING, "gene-id: fetching a segment of " + requestedStep + " for tag '"
            + bizTag + "' from " + store + " failed; " + remaining() + " values left", error);
      }
      fetch.future.completeExceptionally(error);
      return null;
    }
  }

  /**
   * After a segment was added (under the lock): the next fetch if fewer than {@link #prefetchDepth} segments are
   * ready, nothing else is fetching, and another segment is ready or the current one is past its prefetch point (as a
   * caller would start one); else null.
   */
  private @Nullable Fetch following() {
    Buffer c = current;
    if (closed || c == null || fs.pending != null || readyAfter(c) >= prefetchDepth
        || readyAfter(c) <= 1 && c.used() <= c.prefetchAt - c.start) {
      return null; // (the first segment is made current after its fetch ends: no eager second fetch at start)
    }
    fs.step = adaptStep(c);
    Fetch next = new Fetch(System.nanoTime() + fetchTimeoutNanos, fs.step);
    fs.pending = next;
    return next;
  }


  /**
   * The step for the segment after {@code b} (under the lock): what would last {@code segmentDuration} at the rate
   * {@code b} is used, at most doubled or halved, within {@code [minStep, maxStep]}.
   */
  private long adaptStep(Buffer b) {
    long used = b.used();
    long elapsed = clock.currentTimeMillis() - b.activatedAtMillis;
    long previous = fs.step;
    long wanted;
    if (used <= 0) {
      wanted = previous;
    } else if (elapsed <= 0) {
      wanted = Long.MAX_VALUE; // faster than the clock can tell
    } else {
      double perMilli = (double) used / elapsed;
      wanted = (long) Math.min(Long.MAX_VALUE, Math.ceil(perMilli * segmentMillis));
    }
    long bounded = Math.max(previous / 2, Math.min(wanted, previous > Long.MAX_VALUE / 2 ? previous : previous * 2));
    return Math.max(minStep, Math.min(maxStep, bounded));
  }

  /** Values left in the current and the prefetched segment. */
  private long remaining() {
    lock.lock();
    try {
      long left = 0;
      for (Buffer b = current; b != null; b = b.next) {
        left += b.remaining();
      }
      return left;
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- life cycle

  /** Fetches the first segment (build time, fail fast). */
  private void start() {
    Fetch first;
    lock.lock();
    try {
      first = startFetch(minStep);
    } finally {
      lock.unlock();
    }
    await(first, "could not start the GeneSegmentGenerator of tag '" + bizTag + "': ");
    lock.lock();
    try {
      Buffer fetched = fs.tail;
      if (fetched == null) {
        throw new IllegalStateException("the first segment of tag '" + bizTag + "' was fetched but is not ready");
      }
      fetched.activatedAtMillis = clock.currentTimeMillis();
      current = fetched;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the background thread. Later calls for ids throw {@link IllegalStateException}. Values not issued yet
   * are skipped (a gap, never a reuse). The store is not closed: it belongs to whoever built it.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
    executor.shutdown();
  }

  // ---------------------------------------------------------------- accessors

  /** The business tag. */
  public String bizTag() {
    return bizTag;
  }

  /** The store segments come from. */
  public SegmentStore store() {
    return store;
  }

  /** A snapshot of the buffers, for health checks and metrics. */
  public Status status() {
    Buffer c = current;
    return new Status(bizTag, fs.step, remaining(), c != null && c.next != null, fs.lastStoreError);
  }

  @Override
  public String toString() {
    return "GeneSegmentGenerator[bizTag=" + bizTag + ", geneBits=" + geneBits + ", step in [" + minStep + ", "
        + maxStep + "], segmentDuration=" + Duration.ofMillis(segmentMillis) + ", store=" + store + "]";
  }

  /**
   * A snapshot of a generator's buffers.
   *
   * @param bizTag the business tag
   * @param step the step of the last segment asked for
   * @param remaining values left in the current and the prefetched segments: ids that can still be issued with the
   *     store down
   * @param nextReady whether at least one segment after the current one has been fetched
   * @param lastStoreError the store's last error if it has failed since its last success, else null
   */
  public record Status(String bizTag, long step, long remaining, boolean nextReady,
      @Nullable Throwable lastStoreError) {}

  /** Padding before {@link FetchState}'s fields. */
  @SuppressWarnings("unused")
  private abstract static class FetchStatePadding {
    long p0, p1, p2, p3, p4, p5, p6, p7;
  }

  /** The fields of {@link FetchState} (guarded by the generator's lock unless said otherwise). */
  private abstract static class FetchStateFields extends FetchStatePadding {
    /** The last segment fetched, the end of the chain (appended to under the lock); null before the first. */
    volatile @Nullable Buffer tail;
    /** The fetch in flight, or null. At most one fetch is awaited at a time; abandoned ones may still run. */
    volatile @Nullable Fetch pending;
    /** The store's last error while it has not succeeded since, or null. */
    volatile @Nullable Throwable lastStoreError;
    /** No background prefetch before this clock reading (after a failed one). */
    volatile long prefetchRetryAtMillis;
    /** The step of the last fetch. */
    volatile long step;
    /** The highest value any fetched segment reached (guarded by lock). */
    long highestEnd;
    /** Set once the store hands out values too large for the id: values only grow, so this is final. */
    volatile @Nullable GeneIdException ranOut;
  }

  /** {@link FetchStateFields} with padding after them: nothing else shares their cache lines. */
  @SuppressWarnings("unused")
  private static final class FetchState extends FetchStateFields {
    long q0, q1, q2, q3, q4, q5, q6, q7;
  }

  /** The fields of a {@link Buffer} that values are checked against, off the cursor's cache line. */
  private abstract static class BufferFields {
    final long start;
    final long end;
    /** The first value whose issue starts the prefetch of the next segment. */
    final long prefetchAt;
    /** The place of this segment among those fetched, from 0. */
    final long ordinal;
    /** The segment fetched after this one, once there is one (written once). */
    volatile @Nullable Buffer next;
    volatile long activatedAtMillis;

    BufferFields(long start, long end, double prefetchRatio, long ordinal) {
      this.ordinal = ordinal;
      this.start = start;
      this.end = end;
      long size = end - start + 1;
      this.prefetchAt = start + Math.min(size - 1, (long) Math.floor((size - 1) * prefetchRatio));
    }
  }

  @SuppressWarnings("unused")
  private abstract static class BufferPadding extends BufferFields {
    long p0, p1, p2, p3, p4, p5, p6, p7;

    BufferPadding(long start, long end, double prefetchRatio, long ordinal) {
      super(start, end, prefetchRatio, ordinal);
    }
  }

  private abstract static class BufferCursor extends BufferPadding {
    /** The next value to hand out; past {@link #end} once used up. */
    volatile long cursor;

    BufferCursor(long start, long end, double prefetchRatio, long ordinal) {
      super(start, end, prefetchRatio, ordinal);
      this.cursor = start;
    }
  }

  /**
   * One segment being used: values are taken by incrementing its cursor, which has a cache line of its own, so that
   * threads taking values at once do not also lose the line holding {@link #start}, {@link #end} and
   * {@link #prefetchAt}, which every value is checked against.
   */
  @SuppressWarnings("unused")
  private static final class Buffer extends BufferCursor {
    private static final VarHandle CURSOR;

    static {
      try {
        CURSOR = MethodHandles.lookup().findVarHandle(BufferCursor.class, "cursor", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    long q0, q1, q2, q3, q4, q5, q6, q7;

    Buffer(long start, long end, double prefetchRatio, long ordinal) {
      super(start, end, prefetchRatio, ordinal);
    }

    /** Takes {@code n} values: returns the first, which may lie past {@link #end} (then none of them is in it). */
    long take(int n) {
      return (long) CURSOR.getAndAdd(this, (long) n);
    }

    long used() {
      long c = cursor;
      return c < start ? end - start + 1 : Math.min(c, end + 1) - start;
    }

    long remaining() {
      return end - start + 1 - used();
    }
  }


  /** A segment the generator will not use (overflow, or not above what was seen): reported as it is. */
  private static final class SegmentRefusedException extends GeneIdException {
    private static final long serialVersionUID = 1L;

    SegmentRefusedException(String message) {
      super(message);
    }
  }

  /**
   * Configuration of a {@link GeneSegmentGenerator}: its store and tag, and the {@link SegmentSettings} (set one by
   * one, or all at once with {@link #settings(SegmentSettings)}), checked by {@link #build()}.
   */
  public static final class Builder {
    private final SegmentStore store;
    private final String bizTag;
    private int geneBits;
    private long minStep;
    private long maxStep;
    private Duration segmentDuration;
    private double prefetchRatio;
    private Duration fetchTimeout;
    private Duration prefetchRetry;
    private GeneClock clock = GeneClock.system();
    private int maxPrefetchDepth = MAX_PREFETCH_DEPTH;
    private int threadBlock;

    private Builder(SegmentStore store, String bizTag) {
      this.store = Objects.requireNonNull(store, "store");
      this.bizTag = Objects.requireNonNull(bizTag, "bizTag");
      settings(SegmentSettings.defaults());
    }

    /** Every setting at once, as read by {@link SegmentSettings#read} from properties. */
    public Builder settings(SegmentSettings settings) {
      this.geneBits = settings.geneBits();
      this.minStep = settings.minStep();
      this.maxStep = settings.maxStep();
      this.segmentDuration = settings.segmentDuration();
      this.prefetchRatio = settings.prefetchRatio();
      this.fetchTimeout = settings.fetchTimeout();
      this.prefetchRetry = settings.prefetchRetry();
      this.threadBlock = settings.threadBlock();
      return this;
    }

    /** G, in [0, 16]: how many low bits of an id carry the gene. Default 6, as {@link GeneIdLayout#defaults()}. */
    public Builder geneBits(int geneBits) {
      this.geneBits = geneBits;
      return this;
    }

    /** Takes G from a layout, so segment ids route like that layout's snowflake ids. */
    public Builder layout(GeneIdLayout layout) {
      this.geneBits = layout.geneBits();
      return this;
    }

    /** Smallest step, in [1, maxStep]; also the size of the first segment. Default 1,000. */
    public Builder minStep(long minStep) {
      this.minStep = minStep;
      return this;
    }

    /** Largest step, in [minStep, 1,000,000,000]. Default 1,000,000. {@code minStep == maxStep} fixes the step. */
    public Builder maxStep(long maxStep) {
      this.maxStep = maxStep;
      return this;
    }

    /** How long a segment should last at the measured rate, in [1 s, 1 day]. Default 10 minutes. */
    public Builder segmentDuration(Duration segmentDuration) {
      this.segmentDuration = Objects.requireNonNull(segmentDuration, "segmentDuration");
      return this;
    }

    /** Fraction of a segment used before the next one is fetched, in [0.0, 0.9]. Default 0.1. */
    public Builder prefetchRatio(double prefetchRatio) {
      this.prefetchRatio = prefetchRatio;
      return this;
    }

    /**
     * How long a fetch may take before it is abandoned (its late answer becomes a gap), which is also the longest a
     * caller with no values left waits for the store; in [1 ms, 10 min]. Default 10 s; keep it above the store's own
     * timeouts (a JDBC store's statement timeout, a Redis command timeout).
     */
    public Builder fetchTimeout(Duration fetchTimeout) {
      this.fetchTimeout = Objects.requireNonNull(fetchTimeout, "fetchTimeout");
      return this;
    }

    /** Pause between background prefetch attempts while the store fails, in [0, 10 min]. Default 1 s. */
    public Builder prefetchRetry(Duration prefetchRetry) {
      this.prefetchRetry = Objects.requireNonNull(prefetchRetry, "prefetchRetry");
      return this;
    }

    /** The time source of the step adaptation and prefetch retries. Default {@link GeneClock#system()}. */
    public Builder clock(GeneClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * 0 (the default): one shared order, the ids of all threads increase in the order they are issued. In
     * [2, 100,000]: each thread takes that many values at once and hands them out itself, so several threads do not
     * contend for one counter; ids of one thread still increase, those of different threads interleave, and the
     * values left in threads' blocks at shutdown are a gap. See {@link SegmentSettings#threadBlock()}.
     */
    public Builder threadBlock(int threadBlock) {
      this.threadBlock = threadBlock;
      return this;
    }

    /**
     * For tests that count the store's calls exactly: keep at most {@code depth} segments fetched ahead, in
     * [1, 64] (default 64; 1 is double buffering).
     */
    Builder maxPrefetchDepth(int depth) {
      Checks.range("maxPrefetchDepth", depth, 1, MAX_PREFETCH_DEPTH);
      this.maxPrefetchDepth = depth;
      return this;
    }

    /**
     * Checks the settings, starts the background thread and fetches the first segment.
     *
     * @throws IllegalArgumentException for a setting out of range, naming it and the range
     * @throws GeneIdException if the store cannot hand out the first segment (the store's error is the cause)
     */
    public GeneSegmentGenerator build() {
      if (bizTag.isEmpty() || bizTag.length() > 128) {
        throw new InvalidSettingException("bizTag", "'" + bizTag + "'", "1 to 128 characters");
      }
      SegmentSettings settings = new SegmentSettings(geneBits, minStep, maxStep, segmentDuration, prefetchRatio,
          fetchTimeout, prefetchRetry, threadBlock);
      GeneSegmentGenerator generator = new GeneSegmentGenerator(this, settings);
      try {
        generator.start();
      } catch (RuntimeException e) {
        generator.close();
        throw e;
      }
      return generator;
    }
  }
}
