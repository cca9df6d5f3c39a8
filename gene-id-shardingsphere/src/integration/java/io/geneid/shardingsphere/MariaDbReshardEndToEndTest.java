package io.geneid.shardingsphere;

/** Growing from 2 databases to 4 under load, on MARIADB. */
class MariaDbReshardEndToEndTest extends AbstractReshardEndToEndTest {
  @Override
  Backend backend() {
    return Backend.MARIADB;
  }
}
