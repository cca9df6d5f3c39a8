package io.geneid.shardingsphere;

/** Scans while the routers follow the switch of a bucket, on POSTGRESQL. */
class PostgreSqlScanDuringSwitchTest extends AbstractScanDuringSwitchTest {
  @Override
  Backend backend() {
    return Backend.POSTGRESQL;
  }
}
