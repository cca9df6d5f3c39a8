/**
 * JMH benchmarks of id generators: gene-id's {@link io.geneid.core.snowflake.GeneSnowflakeGenerator}, a port of the published
 * gene generator it replaces ({@link io.geneid.benchmarks.PublishedGeneGenerator}) and the Snowflake generators of
 * ShardingSphere, MyBatis-Plus, CosId, Hutool and yitter. Not an API: run them with {@code gene-id-benchmarks/run.sh}.
 */
@NullMarked
package io.geneid.benchmarks;

import org.jspecify.annotations.NullMarked;
