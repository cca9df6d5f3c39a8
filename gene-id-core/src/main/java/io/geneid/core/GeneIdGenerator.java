package io.geneid.core;

import io.geneid.core.internal.Batches;
import io.geneid.core.internal.Checks;

/**
 * What integrations (ShardingSphere, MyBatis-Plus, Spring) need from a gene-aware id source. Implemented by
 * {@link io.geneid.core.snowflake.GeneSnowflakeGenerator} and by the lease-holding and segment generators, so an integration works with
 * any of them.
 *
 * <h2>What an id call throws, and when to retry</h2>
 * Every {@code nextId} method either returns an id no other call of any process has returned, or throws one of
 * these unchecked exceptions, all {@link GeneIdException}s; none of them has issued an id, so a retry can never
 * duplicate one:
 * <ul>
 *   <li>{@link io.geneid.core.snowflake.ClockMovedBackwardsException}: the clock stepped back further than the
 *       generator borrows and its policy waits. Retry after the clock caught up (a leased generator moves to a fresh
 *       worker id by itself).
 *   <li>{@link io.geneid.core.lease.WorkerLeaseLostException} (leased generators): the lease could not be renewed in
 *       time, so the generator fenced itself. It recovers by itself when the store answers again: retry later, or
 *       wait with {@link io.geneid.core.snowflake.LeasedGeneGenerator#awaitIssuing(java.time.Duration)}.
 *   <li>{@link GeneIdException} (segment generators): the store could not hand out a segment in time; retry later.
 *   <li>{@link GeneIdException} after {@code close()}, from every generator: closed for good, do not retry.
 * </ul>
 * {@link IllegalArgumentException} means a bad argument (a gene out of range) and never succeeds on retry.
 */
public interface GeneIdGenerator {

  /** The largest batch of {@link #nextIds(int)} and {@link #nextIdsFor(long, int)}. */
  int MAX_BATCH = Batches.MAX_BATCH;

  /**
   * An id for a root row (gene spread over all genes so roots balance over shards), or, while a
   * {@link GeneContext} scope is open on this thread, an id carrying the gene of the scope's parent key.
   */
  long nextId();

  /**
   * An id carrying {@code gene}.
   *
   * @throws IllegalArgumentException if gene is not in {@code [0, 2^G - 1]}
   */
  long nextId(long gene);

  /** An id carrying the gene of a numeric parent key: it routes like the parent. */
  default long nextIdFor(long parentKey) {
    return nextId(getGene(parentKey));
  }

  /** An id carrying the gene of a string parent key ({@link GeneIdLayout#geneOf(String)}). */
  default long nextIdFor(String parentKey) {
    return nextId(Genes.of(parentKey, geneBits()));
  }

  /**
   * An id carrying the gene of a parent key of any supported type (whole numbers, strings, UUIDs; see
   * {@link GeneIdLayout#geneOfKey(Object)}).
   */
  default long nextIdForKey(Object parentKey) {
    return nextId(Genes.ofKey(parentKey, geneBits()));
  }

  /**
   * {@code n} ids, as {@code n} calls of {@link #nextId()} on this thread would make them (the open
   * {@link GeneContext} scope's parent for each, or genes spread over all genes for root rows), but with each gene's
   * ids reserved together: a snowflake generator reserves a run of a gene's sequence in one compare-and-set where
   * one millisecond's sequence has room (borrowing as a single call does, never more than {@code maxBorrowMillis}
   * ahead of the clock), a segment generator a run of values in one atomic step. Ids of one gene ascend in the order
   * of the array. A call that throws returns no id (the ids it had reserved are a gap, never reissued), and takes no
   * key of a per-row scope.
   *
   * @throws IllegalArgumentException if n is not in {@code [1, MAX_BATCH]}
   * @throws IllegalStateException if a per-row {@link GeneContext} scope holds fewer than n parent keys
   */
  long[] nextIds(int n);

  /**
   * {@code n} ids carrying the gene of a numeric parent key, ascending: one run of the gene's sequence (see
   * {@link #nextIds(int)}).
   *
   * @throws IllegalArgumentException if n is not in {@code [1, MAX_BATCH]}
   */
  long[] nextIdsFor(long parentKey, int n);

  /**
   * One id per entry of {@code genes}, in order, each carrying its entry's gene; each gene's ids are reserved as one
   * run ({@link #nextIdsFor(long, int)} with the gene as the key), so one gene's ids ascend in the order of its
   * entries. For batches whose genes the caller chose, such as a {@link GeneSpread}'s.
   *
   * @throws IllegalArgumentException if the length is not in {@code [1, MAX_BATCH]} or a gene is not in
   *     {@code [0, 2^G - 1]}
   */
  default long[] nextIdsWithGenes(int[] genes) {
    Batches.checkCount(genes.length);
    long maxGene = (1L << geneBits()) - 1;
    for (int gene : genes) {
      Checks.range("gene", gene, 0, maxGene);
    }
    return Batches.byGene(genes, (gene, into, from, count) ->
        System.arraycopy(nextIdsFor(gene, count), 0, into, from, count));
  }

  /** The gene of an id or of any numeric key: {@code id & (2^G - 1)}. */
  default long getGene(long id) {
    return id & ((1L << geneBits()) - 1);
  }

  /** G: how many low bits of an id carry the gene. */
  int geneBits();
}
