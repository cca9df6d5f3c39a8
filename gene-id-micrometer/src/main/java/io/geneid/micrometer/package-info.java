/**
 * Micrometer meters for gene-id generators: {@link io.geneid.micrometer.GeneIdMetrics}.
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.micrometer;

import org.jspecify.annotations.NullMarked;
