/**
 * gene-id core: the id and its gene. The layout of the 64 bits ({@link io.geneid.core.GeneIdLayout}) and an id's
 * parts ({@link io.geneid.core.GeneIdParts}); the gene of a parent key ({@link io.geneid.core.Genes},
 * {@link io.geneid.core.GeneSource}); the parent's scope ({@link io.geneid.core.GeneContext}); the routing rule of
 * {@code GENE_MOD} ({@link io.geneid.core.GeneRouting}); and what every generator offers
 * ({@link io.geneid.core.GeneIdGenerator}).
 *
 * <p>The generators live by concern: {@link io.geneid.core.snowflake} (a fixed worker id), {@link io.geneid.core.lease}
 * (leased worker ids and their stores' SPI), {@link io.geneid.core.segment} (ranges). {@code io.geneid.core.internal}
 * is for gene-id's own modules only.
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.core;

import org.jspecify.annotations.NullMarked;
