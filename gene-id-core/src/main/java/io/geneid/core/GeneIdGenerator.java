package io.geneid.core;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;

/**
 * What integrations (ShardingSphere, MyBatis-Plus, Spring) need from a gene-aware id source. Implemented by
 * {@link GeneSnowflakeGenerator} and by the lease-holding and segment generators, so an integration works with
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
 *       wait with {@link io.geneid.core.lease.LeasedGeneGenerator#awaitIssuing(java.time.Duration)}.
 *   <li>{@link GeneIdException} (segment generators): the store could not hand out a segment in time; retry later.
 *   <li>{@link GeneIdException} after {@code close()}, from every generator: closed for good, do not retry.
 * </ul>
 * {@link IllegalArgumentException} means a bad argument (a gene out of range) and never succeeds on retry.
 */
public interface GeneIdGenerator {

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
  long nextIdFor(long parentKey);

  /** An id carrying the gene of a string parent key ({@link GeneIdLayout#geneOf(String)}). */
  long nextIdFor(String parentKey);

  /**
   * An id carrying the gene of a parent key of any supported type (whole numbers, strings, UUIDs; see
   * {@link GeneIdLayout#geneOfKey(Object)}).
   */
  long nextIdForKey(Object parentKey);

  /** The gene of an id or of any numeric key: {@code id & (2^G - 1)}. */
  long getGene(long id);

  /** G: how many low bits of an id carry the gene. */
  int geneBits();
}
