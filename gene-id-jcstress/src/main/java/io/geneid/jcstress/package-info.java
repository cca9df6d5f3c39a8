/**
 * jcstress tests of the per-gene compare-and-set of {@link io.geneid.core.snowflake.GeneSnowflakeGenerator}, with a
 * manual clock and on the system clock's fast path (the recent reading the clock thread keeps, genes spread by each
 * thread's walk): the forbidden outcome of each is a duplicate id, or an id of a gene not larger than one the thread
 * had already seen.
 */
@NullMarked
package io.geneid.jcstress;

import org.jspecify.annotations.NullMarked;
