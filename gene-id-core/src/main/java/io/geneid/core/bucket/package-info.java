/**
 * Gene buckets: the 2^G genes as the unit of data placement, so shards can be added by moving whole buckets and no
 * id changes. {@link io.geneid.core.bucket.BucketMap} says which target each bucket lives on (and whether it is
 * frozen for a move); {@link io.geneid.core.bucket.BucketPlanner} plans the fewest moves from one target count to
 * another.
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.core.bucket;

import org.jspecify.annotations.NullMarked;
