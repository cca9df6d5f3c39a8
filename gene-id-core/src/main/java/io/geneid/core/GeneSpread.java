package io.geneid.core;

import io.geneid.core.internal.Batches;
import io.geneid.core.internal.Checks;
import io.geneid.core.internal.Scopes;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Chooses the genes of root rows (rows without a parent), so that roots balance over shards.
 *
 * <p>Each thread walks the {@code 2^G} genes in cycles: its calls number {@code k * 2^G} to
 * {@code (k + 1) * 2^G - 1} on one spread carry every gene exactly once, in an order drawn afresh, at random, for
 * every cycle. What that guarantees:
 * <ul>
 *   <li><b>One caller of one spread</b> (one table inserted in a loop from one thread): exact balance over any
 *       routing every {@code 2^G} calls; after {@code n} calls every gene has been used {@code floor(n / 2^G)} or
 *       {@code ceil(n / 2^G)} times. Within a cycle every aligned block of {@code 2^k} calls also carries each
 *       residue modulo {@code 2^k} once, so routing by {@code gene % 2^k} (2, 4, 8 ... shards) is exact after every
 *       {@code 2^k} calls, as with a round-robin counter.
 *   <li><b>Several callers sharing one spread</b> (one thread inserting into several tables in turn, all through
 *       {@link io.geneid.core.snowflake.GeneSnowflakeGenerator#nextId()}): each table's rows balance <em>in expectation only</em>. The gene of
 *       a call is uniform whatever its position, and the order within a cycle is not linear in the call counter
 *       (gene bit {@code j} is counter bit {@code j} flipped by a keyed, non-linear function of the counter's higher
 *       bits, with a fresh key every cycle), so no pattern of calls lines up systematically with a modulo routing,
 *       as a shared round-robin cursor does (two tables taking turns over {@code gene % 2} put each table on one
 *       shard).
 *   <li><b>Exact balance per table</b>: give each table (or entity type) its own spread, as the ShardingSphere key
 *       generators (one per logical table) and the MyBatis-Plus generator (one per entity class) do, and take ids
 *       with {@link #nextId(GeneIdGenerator)}; or give child rows their parent's gene ({@code nextIdFor},
 *       {@link GeneContext}).
 * </ul>
 * Threads do not share cycles: many threads that each make a few calls (a virtual thread per request) get genes that
 * are uniform and independent, balanced in expectation.
 *
 * <h2>Lanes: several threads issuing fast</h2>
 * A gene's state is one word that every id of the gene updates. If two threads each walked all genes at full speed,
 * nearly every call would land on a word the other core wrote last, and two threads would issue fewer ids than one.
 * So threads that are <em>hot</em> at the same time (each starting a cycle at least once per millisecond) take
 * <b>lanes</b>: with {@code L} hot threads ({@code L} rounded down to 2 or 4, at most {@code 2^(G - 1)}), a thread's
 * cycle has {@code 2^G / L} calls and carries the genes whose top {@code log2 L} bits are its lane, each once, so
 * hot threads touch disjoint genes. What that keeps: each cycle carries every residue modulo {@code 2^G / L} once, so
 * routing by {@code gene % N} for {@code N} up to {@code 2^G / L} (32 shards with G = 6 and two hot threads) is still
 * exact per thread, and over all threads every gene is used alike in expectation. A thread alone, and threads at a
 * lower rate, walk all genes as described above. Lanes are decided at the start of each cycle from a small shared
 * table of when each thread last started one (written once per cycle, never per call); threads beyond the table's 8
 * slots share slots and may share a lane.
 *
 * <p>Thread-safe; each thread walks its own cycle. A call costs a thread-local lookup and, on average, one 64-bit
 * mix; it allocates nothing.
 */
public final class GeneSpread {

  /** Slots of the table of cycle starts; a power of two. */
  private static final int SLOTS = 8;
  /** Longs per slot: 128 bytes, so that two threads' slots never share a cache line. */
  private static final int SLOT_STRIDE = 16;
  /** A thread that started a cycle within this time is hot. */
  private static final long HOT_NANOS = 1_000_000L;
  /** At most 4 lanes. */
  private static final int MAX_LANE_BITS = 2;

  private final int geneBits;
  /** log2 of the most lanes: {@code min(2, G - 1)}, 0 for G below 2. */
  private final int maxLaneBits;
  /**
   * Per slot: {@code System.nanoTime() | 1} of the latest cycle start of its thread, 0 for never; slot {@code s} at
   * {@code (s + 1) * SLOT_STRIDE}, so that the array's header (read by every access) shares no line with a slot.
   */
  private final AtomicLongArray cycleStarts = new AtomicLongArray((SLOTS + 1) * SLOT_STRIDE);
  private final AtomicInteger walkers = new AtomicInteger();
  private final ThreadLocal<Walk> walks = ThreadLocal.withInitial(() -> new Walk(walkers.getAndIncrement()));

  /**
   * A spread over the {@code 2^geneBits} genes.
   *
   * @throws IllegalArgumentException if geneBits is not in [0, 16]
   */
  public GeneSpread(int geneBits) {
    Checks.range("geneBits", geneBits, 0, GeneIdLayout.MAX_GENE_BITS);
    this.geneBits = geneBits;
    this.maxLaneBits = Math.max(0, Math.min(MAX_LANE_BITS, geneBits - 1));
  }

  /** The gene for the next root row of this thread, in {@code [0, 2^G - 1]}. */
  public long nextGene() {
    return geneBits == 0 ? 0L : walks.get().next(this);
  }

  /**
   * An id from {@code ids} for a root row of this spread's table: inside a {@link GeneContext} scope the scope's
   * parent wins ({@code ids.nextId()}), otherwise {@code ids.nextId(nextGene())}.
   *
   * @throws IllegalArgumentException if {@code ids} carries another number of gene bits than this spread
   */
  public long nextId(GeneIdGenerator ids) {
    if (Scopes.peek() != null) {
      return ids.nextId();
    }
    if (ids.geneBits() != geneBits) {
      throw new IllegalArgumentException("a spread over " + geneBits + " gene bits cannot choose the genes of "
          + ids + ", which carries " + ids.geneBits());
    }
    return ids.nextId(nextGene());
  }

  /**
   * {@code n} ids from {@code ids} for root rows of this spread's table, as {@code n} calls of
   * {@link #nextId(GeneIdGenerator)} would make them, each gene's ids taken as one run
   * ({@link GeneIdGenerator#nextIdsFor(long, int)} with the gene as the key): inside a {@link GeneContext} scope the
   * scope's parents win ({@code ids.nextIds(n)}).
   *
   * @throws IllegalArgumentException if n is not in {@code [1, MAX_BATCH]}, or {@code ids} carries another number of
   *     gene bits than this spread
   */
  public long[] nextIds(GeneIdGenerator ids, int n) {
    Batches.checkCount(n);
    if (Scopes.peek() != null) {
      return ids.nextIds(n);
    }
    if (ids.geneBits() != geneBits) {
      throw new IllegalArgumentException("a spread over " + geneBits + " gene bits cannot choose the genes of "
          + ids + ", which carries " + ids.geneBits());
    }
    int[] genes = new int[n];
    for (int i = 0; i < n; i++) {
      genes[i] = (int) nextGene();
    }
    return ids.nextIdsWithGenes(genes);
  }

  /** G: the spread hands out genes in {@code [0, 2^G - 1]}. */
  public int geneBits() {
    return geneBits;
  }

  @Override
  public String toString() {
    return "GeneSpread[geneBits=" + geneBits + "]";
  }

  /**
   * The lane of the thread in {@code slot} starting a cycle at {@code now} ({@link System#nanoTime()}), as
   * {@code lane | laneBits << 16}: the hot slots (a cycle started within {@link #HOT_NANOS}, this one included)
   * counted, rounded down to a power of two at most {@code 2^maxLaneBits}; the lane is this slot's rank among the
   * hot ones, modulo that.
   */
  int laneFor(int slot, long now) {
    now |= 1L;
    cycleStarts.set((slot + 1) * SLOT_STRIDE, now);
    if (maxLaneBits == 0) {
      return 0;
    }
    int hot = 0;
    int rank = 0;
    for (int s = 0; s < SLOTS; s++) {
      long started = cycleStarts.get((s + 1) * SLOT_STRIDE);
      if (started != 0L && now - started < HOT_NANOS) {
        hot++;
        if (s < slot) {
          rank++;
        }
      }
    }
    int laneBits = Math.min(maxLaneBits, 31 - Integer.numberOfLeadingZeros(hot));
    return (rank & ((1 << laneBits) - 1)) | laneBits << 16;
  }

  /**
   * One thread's walk over a cycle of {@code 2^b} positions, {@code b = G - laneBits}: the position and the flips of
   * it. The gene at position {@code i} is {@code lane << b | (i ^ flips(i))}, where bit {@code j} of
   * {@code flips(i)} is a keyed hash of {@code i >>> (j + 1)}. Each gene bit depends only on the position's bits at
   * and above it, so the map is a bijection of {@code [0, 2^b)} (solve for the position from the top bit down) and
   * aligned blocks of {@code 2^k} positions cover every residue modulo {@code 2^k}. Bit {@code j} of the flips
   * changes only when {@code i >>> (j + 1)} does, so a step recomputes only the bits below the number of trailing
   * zeros of the new position: one on average.
   */
  private static final class Walk {
    private final int slot;
    private int position = -1;
    private int flips;
    private long key;
    /** Bits of the cycle: G minus the lane bits. */
    private int bits;
    /** {@code lane << bits}: the fixed top bits of this cycle's genes. */
    private int laneGenes;

    Walk(int index) {
      this.slot = index & (SLOTS - 1);
    }

    int next(GeneSpread spread) {
      int i = (position + 1) & ((1 << bits) - 1);
      int stale;
      if (i == 0) {
        int lane = spread.laneFor(slot, System.nanoTime());
        bits = spread.geneBits - (lane >>> 16);
        laneGenes = (lane & 0xffff) << bits;
        key = ThreadLocalRandom.current().nextLong();
        stale = bits;
      } else {
        stale = Integer.numberOfTrailingZeros(i);
      }
      position = i;
      int f = i == 0 ? 0 : flips; // a new cycle may have fewer bits: no flip of the last one may survive
      for (int j = 0; j < stale; j++) {
        f = (f & ~(1 << j)) | (flip(key, j, i >>> (j + 1)) << j);
      }
      flips = f;
      return laneGenes | (i ^ f);
    }

    /** A keyed, non-linear bit of (level, higher position bits): the top bit of a 64-bit finalising mix. */
    private static int flip(long key, int level, int higher) {
      long z = key ^ (((long) higher << 5) | level);
      z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
      z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
      return (int) ((z ^ (z >>> 33)) >>> 63);
    }
  }
}
