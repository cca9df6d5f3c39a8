/**
 * ShardingSphere-JDBC 5.5.2 plug-ins for gene ids.
 *
 * <ul>
 *   <li>{@link io.geneid.shardingsphere.GeneSnowflakeKeyGenerateAlgorithm} — key generator type
 *       {@code GENE_SNOWFLAKE}: root rows spread over the genes, child rows inserted inside a
 *       {@link io.geneid.core.GeneContext} scope carry their parent's gene;
 *   <li>{@link io.geneid.shardingsphere.GeneServerKeyGenerateAlgorithm} — key generator type {@code GENE_SERVER}:
 *       the same ids from {@code gene-id-server} through {@code gene-id-client} (an optional dependency);
 *   <li>{@link io.geneid.shardingsphere.GeneModAutoTableShardingAlgorithm} — sharding algorithm type
 *       {@code GENE_MOD_AUTO} for {@code autoTables} (standard, complex and hint): routes a value by its gene, so a
 *       child and its parent share a table;
 *   <li>{@link io.geneid.shardingsphere.GeneModShardingAlgorithm} — sharding algorithm type {@code GENE_MOD}, the
 *       same routing for {@code tables}, at the database and the table level;
 *   <li>{@link io.geneid.shardingsphere.GeneIntervalShardingAlgorithm} — sharding algorithm type
 *       {@code GENE_INTERVAL}: the table of a row is the month (day, ...) of its id's own timestamp, beside
 *       {@code GENE_MOD} or {@code GENE_BUCKET} choosing the database by the gene;
 *   <li>{@link io.geneid.shardingsphere.GeneShardingCheck} — a start-up check of a sharded data source: every
 *       configured node reachable by some gene, generator and algorithms agreeing on the gene bits (the data
 *       source itself refuses gene bits that differ: {@link io.geneid.shardingsphere.GeneShardingCheckListener}).
 * </ul>
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.shardingsphere;

import org.jspecify.annotations.NullMarked;
