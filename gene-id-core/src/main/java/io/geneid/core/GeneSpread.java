package io.geneid.core;

import io.geneid.core.internal.Batches;
import io.geneid.core.internal.Checks;
import io.geneid.core.internal.Scopes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
 *       (gene bit {@code j} is counter bit {@code j} flipped by a random, non-linear function of the counter's
 *       higher bits, drawn afresh every cycle), so no pattern of calls lines up systematically with a modulo routing,
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
 * table of when each thread last started one (a thread writes its slot at most once per 125 microseconds, never per
 * call); threads beyond the table's 8 slots share slots and may share a lane.
 *
 * <p>Thread-safe; each thread walks its own cycle. A call costs a thread-local lookup and a read of the thread's table
 * of the next (up to) 64 genes, which it refills from one random long every 64 calls; it allocates nothing after a
 * thread's first call.
 */
public final class GeneSpread {

  /** Slots of the table of cycle starts; a power of two. */
  private static final int SLOTS = 8;
  /** Longs per slot: 128 bytes, so that two threads' slots never share a cache line. */
  private static final int SLOT_STRIDE = 16;
  /** A thread that started a cycle within this time is hot. */
  private static final long HOT_NANOS = 1_000_000L;
  /** A slot's time is rewritten when it is this old: an eighth of {@link #HOT_NANOS}. */
  private static final long REFRESH_NANOS = HOT_NANOS / 8;
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
   *
   * <p>A slot's time is written only when it is {@link #REFRESH_NANOS} old or more (a thread starting cycles every
   * microsecond writes its line about every 125 microseconds, not at every cycle), so that hot threads reading each
   * other's slots at every cycle start find them in their own caches: a write at every cycle cost each of two hot
   * threads a cache-line transfer per cycle of 32 ids.
   */
  int laneFor(int slot, long now) {
    now |= 1L;
    int own = (slot + 1) * SLOT_STRIDE;
    long written = cycleStarts.getOpaque(own);
    if (written == 0L || now - written >= REFRESH_NANOS) {
      cycleStarts.setOpaque(own, now);
    }
    if (maxLaneBits == 0) {
      return 0;
    }
    int hot = 0;
    int rank = 0;
    for (int s = 0; s < SLOTS; s++) {
      long started = s == slot ? now : cycleStarts.getOpaque((s + 1) * SLOT_STRIDE);
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
   * One thread's walk over a cycle of {@code 2^b} positions, {@code b = G - laneBits}. The gene at position {@code i}
   * is {@code lane << b | (i ^ flips(i))}, where bit {@code j} of {@code flips(i)} is a random function of
   * {@code i >>> (j + 1)}, drawn afresh for every cycle. Each gene bit depends only on the position's bits at and
   * above it, so the map is a bijection of {@code [0, 2^b)} (solve for the position from the top bit down) and
   * aligned blocks of {@code 2^k} positions cover every residue modulo {@code 2^k}.
   *
   * <p>The walk hands out the cycle in blocks of {@code 2^w} positions, {@code w = min(b, 6)}: at the start of a
   * block it writes the block's genes into a table ({@link #fill}), so that a call is a table read. The flips of the
   * low {@code w} levels inside a block ({@code 2^w - 1} bits: one per level and value of {@code i >>> (j + 1)}, all of
   * which lie in this block) come from one random long drawn for the block; the flips of levels {@code w} and above,
   * constant over a block but shared by several blocks of a cycle, are a keyed hash of the cycle's key (G above 6
   * only).
   */
  private static final class Walk {
    /** Positions per block: at most 2^6, so that a block's flips fit in one random long. */
    private static final int BLOCK_BITS = 6;
    /** Writes 8 genes of a block at once. */
    private static final VarHandle EIGHT = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /**
     * The 128 walks of 8 positions, byte {@code p} of entry {@code k} being {@code p ^ flips(p)} with the flips of
     * levels 0, 1 and 2 taken from bits {@code p >>> 1}, {@code 4 + (p >>> 2)} and 6 of {@code k}.
     */
    private static final long[] EIGHTS = new long[128];

    static {
      for (int k = 0; k < 128; k++) {
        long genes = 0L;
        for (int p = 0; p < 8; p++) {
          int flips = (k >>> (p >>> 1) & 1) | (k >>> (4 + (p >>> 2)) & 1) << 1 | (k >>> 6 & 1) << 2;
          genes |= (long) (p ^ flips) << (8 * p);
        }
        EIGHTS[k] = genes;
      }
    }

    private final int slot;
    /** The low {@code w} bits of the genes of the current block, in order. */
    private final byte[] block = new byte[1 << BLOCK_BITS];
    /** Index into {@link #block} of the next call. */
    private int index;
    /** Positions in the current block; 0 before the first. */
    private int blockSize;
    /** Cycle position of {@code block[0]}. */
    private int blockStart;
    /** {@code lane << bits} and the gene bits {@code w} and above of the current block. */
    private int high;
    /** The cycle's key of the flips of levels {@code w} and above. */
    private long key;
    /** Bits of the cycle: G minus the lane bits. */
    private int bits;

    Walk(int index) {
      this.slot = index & (SLOTS - 1);
    }

    int next(GeneSpread spread) {
      int k = index;
      if (k == blockSize) {
        k = nextBlock(spread);
      }
      index = k + 1;
      return high | block[k];
    }

    /** Moves to the next block (of a new cycle after the last); returns its first index, 0. */
    private int nextBlock(GeneSpread spread) {
      int start = blockStart + blockSize;
      if (blockSize == 0 || start == 1 << bits) {
        int lane = spread.laneFor(slot, System.nanoTime());
        bits = spread.geneBits - (lane >>> 16);
        start = 0;
        high = (lane & 0xffff) << bits;
        key = bits > BLOCK_BITS ? ThreadLocalRandom.current().nextLong() : 0L;
      }
      int w = Math.min(bits, BLOCK_BITS);
      int h = high & -(1 << bits); // the lane's bits
      for (int j = w; j < bits; j++) {
        // start is a multiple of 2^w: start >>> (j + 1) is i >>> (j + 1) for every position i of the block
        h |= ((start >>> j & 1) ^ flip(key, j, start >>> (j + 1))) << j;
      }
      high = h;
      blockStart = start;
      blockSize = 1 << w;
      fill(block, w, ThreadLocalRandom.current().nextLong());
      return 0;
    }

    /**
     * Writes {@code p ^ flips(p)} for every {@code p} in {@code [0, 2^w)} into {@code genes}, {@code w <= 6}, the
     * flips drawn from the 63 low bits of {@code random}. For {@code w > 3} a position is {@code a * 8 + b}: the
     * flips of levels 0 to 2 are functions of {@code a} and the bits of {@code b} above the level, one of the
     * {@link #EIGHTS} per value of {@code a} (7 bits of {@code random} each); those of levels 3 and above are functions
     * of {@code a}'s bits above the level, the first {@code 2^(w - 3)} bytes of one more of them (bits 56 to 62). An
     * entry restricted to its first {@code 2^m} bytes and {@code m} bits is a walk of {@code 2^m} positions, which
     * serves {@code w <= 3} and the top levels of {@code w = 4, 5}.
     */
    static void fill(byte[] genes, int w, long random) {
      if (w <= 3) {
        long eight = EIGHTS[(int) random & 127];
        int mask = (1 << w) - 1;
        for (int p = 0; p < 1 << w; p++) {
          genes[p] = (byte) ((int) (eight >>> (8 * p)) & mask);
        }
        return;
      }
      int eights = 1 << (w - 3);
      long top = EIGHTS[(int) (random >>> 56) & 127];
      for (int a = 0; a < eights; a++) {
        long above = (((top >>> (8 * a)) & (eights - 1)) << 3) * 0x0101010101010101L;
        EIGHT.set(genes, 8 * a, EIGHTS[(int) (random >>> (7 * a)) & 127] | above);
      }
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
