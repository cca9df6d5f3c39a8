package io.geneid.shardingsphere;

/** The GENE_INTERVAL end-to-end scenario on PostgreSQL: 2 databases x 3 months. */
class PostgreSqlIntervalEndToEndTest extends AbstractIntervalEndToEndTest {
  @Override
  Backend backend() {
    return Backend.POSTGRESQL;
  }
}
