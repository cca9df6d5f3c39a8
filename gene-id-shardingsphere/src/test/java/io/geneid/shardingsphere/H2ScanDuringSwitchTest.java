package io.geneid.shardingsphere;

/** Scans while the routers follow the switch of a bucket, on H2. */
class H2ScanDuringSwitchTest extends AbstractScanDuringSwitchTest {
  @Override
  Backend backend() {
    return Backend.H2;
  }
}
