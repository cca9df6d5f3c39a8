/**
 * jcstress tests of the per-gene compare-and-set of {@link io.geneid.core.snowflake.GeneSnowflakeGenerator}: the
 * forbidden outcome of each is a duplicate id.
 */
@NullMarked
package io.geneid.jcstress;

import org.jspecify.annotations.NullMarked;
