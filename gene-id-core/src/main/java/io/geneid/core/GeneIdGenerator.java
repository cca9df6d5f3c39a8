package io.geneid.core;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;

/**
 * What integrations (ShardingSphere, MyBatis-Plus, Spring) need from a gene-aware id source. Implemented by
 * {@link GeneSnowflakeGenerator} and by the lease-holding and segment generators, so an integration works with
 * any of them.
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
