package io.geneid.benchmarks;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A faithful Java port of the widely copied gene generator that gene-id replaces (DESIGN.md section 8), kept with
 * all its flaws so that it can be measured beside gene-id. <strong>Do not use it to issue ids.</strong>
 *
 * <pre>
 *  63 | 62 ...... 41 bits | 5 bits        | 5 bits    | 7 bits   | 5 bits (lowest)
 *   0 | ms since epoch    | datacenter id | worker id | sequence | gene
 * </pre>
 *
 * <p>One {@code synchronized} method; a single {@code lastTimestamp} and {@code borrowedTimestamp} for the whole
 * generator; a hash map from gene to that gene's sequence in the current millisecond. On each call: if the clock is
 * at or before {@code borrowedTimestamp}, use {@code borrowedTimestamp}; else if it is before {@code lastTimestamp},
 * throw. In the same millisecond, increment the gene's counter; when it reaches {@code 2^7}, set
 * {@code borrowedTimestamp} to the timestamp in use plus one, use it and clear the whole map. In a new millisecond,
 * clear the map.
 *
 * <p>The flaws kept on purpose:
 * <ul>
 *   <li>borrowing is unbounded: under load the timestamps run ahead of the clock without limit;
 *   <li>the backwards check is skipped while the clock is at or before {@code borrowedTimestamp}, so a clock that
 *       passes the borrowed time and steps back re-issues ids without an exception;
 *   <li>the first id of each millisecond uses sequence 0 without counting it in the map.
 * </ul>
 */
public final class PublishedGeneGenerator {

  /** Twitter's Snowflake epoch, as in the published code. */
  public static final long EPOCH = 1288834974657L;
  public static final int DATACENTER_BITS = 5;
  public static final int WORKER_BITS = 5;
  public static final int SEQUENCE_BITS = 7;
  public static final int GENE_BITS = 5;

  private static final long MAX_SEQUENCE = (1L << SEQUENCE_BITS) - 1;
  private static final long GENE_MASK = (1L << GENE_BITS) - 1;
  private static final int SEQUENCE_SHIFT = GENE_BITS;
  private static final int WORKER_SHIFT = GENE_BITS + SEQUENCE_BITS;
  private static final int DATACENTER_SHIFT = WORKER_SHIFT + WORKER_BITS;
  private static final int TIMESTAMP_SHIFT = DATACENTER_SHIFT + DATACENTER_BITS;

  private final long datacenterId;
  private final long workerId;
  private final LongSupplier clock;

  private long lastTimestamp = -1L;
  private long borrowedTimestamp = -1L;
  private final Map<Long, Long> sequences = new HashMap<>();

  /** A generator on {@link System#currentTimeMillis()}. */
  public PublishedGeneGenerator(long datacenterId, long workerId) {
    this(datacenterId, workerId, System::currentTimeMillis);
  }

  PublishedGeneGenerator(long datacenterId, long workerId, LongSupplier clock) {
    if (datacenterId < 0 || datacenterId >= 1L << DATACENTER_BITS) {
      throw new IllegalArgumentException("datacenterId must be in [0, 31] but was " + datacenterId);
    }
    if (workerId < 0 || workerId >= 1L << WORKER_BITS) {
      throw new IllegalArgumentException("workerId must be in [0, 31] but was " + workerId);
    }
    this.datacenterId = datacenterId;
    this.workerId = workerId;
    this.clock = clock;
  }

  /** An id carrying the gene of {@code parentId} (its low 5 bits). */
  public synchronized long nextId(long parentId) {
    long gene = parentId & GENE_MASK;
    long now = clock.getAsLong();
    long timestamp;
    if (now <= borrowedTimestamp) {
      timestamp = borrowedTimestamp;
    } else if (now < lastTimestamp) {
      throw new IllegalStateException(
          "Clock moved backwards. Refusing to generate id for " + (lastTimestamp - now) + " milliseconds");
    } else {
      timestamp = now;
    }
    long sequence;
    if (timestamp == lastTimestamp) {
      sequence = sequences.getOrDefault(gene, 0L) + 1;
      if (sequence > MAX_SEQUENCE) {
        // this gene is used up: borrow the next millisecond, without any bound
        borrowedTimestamp = timestamp + 1;
        timestamp = borrowedTimestamp;
        sequences.clear();
        sequence = 0L;
      } else {
        sequences.put(gene, sequence);
      }
    } else {
      // a new millisecond (or a clock at or before the borrowed one): start over, the first id is not counted
      sequences.clear();
      sequence = 0L;
    }
    lastTimestamp = timestamp;
    return ((timestamp - EPOCH) << TIMESTAMP_SHIFT)
        | (datacenterId << DATACENTER_SHIFT)
        | (workerId << WORKER_SHIFT)
        | (sequence << SEQUENCE_SHIFT)
        | gene;
  }

  /** The Unix millisecond in an id of this generator. */
  public static long timestampOf(long id) {
    return (id >>> TIMESTAMP_SHIFT) + EPOCH;
  }

  /** The latest timestamp used so far (borrowed time included), in Unix milliseconds. */
  public synchronized long lastTimestamp() {
    return lastTimestamp;
  }
}
