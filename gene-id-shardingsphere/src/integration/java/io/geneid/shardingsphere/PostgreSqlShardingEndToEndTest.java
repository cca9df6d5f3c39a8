package io.geneid.shardingsphere;

/** The end-to-end scenario on POSTGRESQL. */
class PostgreSqlShardingEndToEndTest extends AbstractShardingEndToEndTest {
  @Override
  Backend backend() {
    return Backend.POSTGRESQL;
  }
}
