/**
 * The one reader of gene-id settings given as key-value maps (ShardingSphere algorithm properties, the lease
 * properties of {@link io.geneid.core.lease.WorkerIdAssigners}, Spring Boot's bound values, the command line):
 * {@link io.geneid.core.settings.SettingsReader}. It owns the grammar of every value (whole numbers, durations,
 * epochs, booleans) and the wording of every "must be in [min, max] but was v" message, and names each key the way
 * its caller's user wrote it ({@code GENE_SNOWFLAKE property 'lease-ttl'}, {@code gene-id.lease.ttl}).
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.core.settings;

import org.jspecify.annotations.NullMarked;
