/**
 * The snowflake generator with a gene in its low bits: {@link io.geneid.core.snowflake.GeneSnowflakeGenerator} for a
 * fixed worker id, its clock ({@link io.geneid.core.GeneClock}), what it does when the clock steps back
 * ({@link io.geneid.core.snowflake.ClockBackwardsPolicy}), its counters
 * ({@link io.geneid.core.snowflake.GeneSnowflakeStats}) and the JVM-wide registry that shares generators
 * ({@link io.geneid.core.snowflake.GeneIdRegistry}). For worker ids that come and go, see
 * {@link io.geneid.core.lease}.
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.core.snowflake;

import org.jspecify.annotations.NullMarked;
