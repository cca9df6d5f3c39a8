/**
 * End-to-end cost of id generation and routing through ShardingSphere-JDBC over embedded H2. The sharding rules
 * come from {@code e2e/<rules>.yaml} on the classpath, so another rule set (gene-id's {@code GENE_SNOWFLAKE} and
 * {@code GENE_MOD}) is added with a YAML file and a {@code -p rules=...} value. Not an API.
 */
@NullMarked
package io.geneid.benchmarks.e2e;

import org.jspecify.annotations.NullMarked;
