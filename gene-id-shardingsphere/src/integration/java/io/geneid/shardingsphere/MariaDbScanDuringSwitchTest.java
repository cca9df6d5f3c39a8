package io.geneid.shardingsphere;

/** Scans while the routers follow the switch of a bucket, on MARIADB. */
class MariaDbScanDuringSwitchTest extends AbstractScanDuringSwitchTest {
  @Override
  Backend backend() {
    return Backend.MARIADB;
  }
}
