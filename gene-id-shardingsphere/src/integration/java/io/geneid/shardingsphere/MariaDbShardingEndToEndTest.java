package io.geneid.shardingsphere;

/** The end-to-end scenario on MARIADB. */
class MariaDbShardingEndToEndTest extends AbstractShardingEndToEndTest {
  @Override
  Backend backend() {
    return Backend.MARIADB;
  }
}
