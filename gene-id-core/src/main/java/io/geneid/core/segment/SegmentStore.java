package io.geneid.core.segment;

import io.geneid.core.GeneIdException;

/**
 * Where a {@link GeneSegmentGenerator} gets its values: a shared, durable counter per business tag that hands out
 * ranges ("segments"). Implementations: {@code io.geneid.jdbc.JdbcSegmentStore} (a table updated by
 * compare-and-set) and {@code io.geneid.redis.RedisSegmentStore} ({@code INCRBY}); from properties, through their
 * {@link SegmentStoreProvider} ({@link SegmentStores#provider(String)}).
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>A segment returned for a tag is disjoint from, and above, every segment ever returned for that tag by any
 *       store instance over the same backing data, in any process, before or after a restart. This is the whole
 *       uniqueness guarantee of segment ids: two processes racing for the next range must get disjoint ranges.
 *   <li>A segment should hold {@code step} values. It must hold at least one.
 *   <li>Failures are reported with an unchecked exception (preferably {@link GeneIdException}) whose message names
 *       the store (without credentials) and the tag. A call that fails after the backing counter has moved just
 *       leaves a gap: the range it claimed is never handed out again, so it is never used twice.
 *   <li>A store must fail fast when its backend is unreachable (short timeouts): a generator waiting for a store
 *       has nothing left to issue.
 * </ul>
 *
 * <p>A generator calls its store from one background thread at a time, but several generators (and processes)
 * share one store, so implementations must be thread-safe.
 */
@FunctionalInterface
public interface SegmentStore extends AutoCloseable {

  /**
   * Claims the next range of values for {@code bizTag}.
   *
   * @param bizTag the business tag (non-empty)
   * @param step how many values to claim, at least 1
   * @return the claimed range
   * @throws RuntimeException (preferably {@link GeneIdException}) if the store cannot hand out a range
   */
  Segment nextSegment(String bizTag, long step);

  /**
   * Closes what the store opened itself (a client it connected from a URI); never what it was given (a DataSource,
   * a connection). A generator never closes its store: several generators share one, and whoever built the store
   * closes it after them. The default does nothing.
   */
  @Override
  default void close() {}
}
