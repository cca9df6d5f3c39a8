/**
 * Runnable demos: {@link io.geneid.examples.ShardingDemo} (ShardingSphere-JDBC over embedded H2, MariaDB or
 * PostgreSQL) and {@link io.geneid.examples.GeneDemo} (the generator alone).
 */
@NullMarked
package io.geneid.examples;

import org.jspecify.annotations.NullMarked;
