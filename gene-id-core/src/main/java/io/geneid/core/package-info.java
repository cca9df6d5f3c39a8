/**
 * gene-id core: the id layout ({@link io.geneid.core.GeneIdLayout}), the generator
 * ({@link io.geneid.core.GeneSnowflakeGenerator}), the parent-key scope ({@link io.geneid.core.GeneContext}) and the
 * process-wide registry ({@link io.geneid.core.GeneIdRegistry}).
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.core;

import org.jspecify.annotations.NullMarked;
