/**
 * Segment (range) mode: {@link io.geneid.core.segment.GeneSegmentGenerator} issues {@code (value << G) | gene} from
 * ranges of values that a {@link io.geneid.core.segment.SegmentStore} hands out. The Redis and JDBC stores live in
 * {@code gene-id-redis} and {@code gene-id-jdbc}.
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.core.segment;

import org.jspecify.annotations.NullMarked;
