package io.geneid.shardingsphere;

/** {@link AbstractFreezeFailsClosedTest} on MARIADB. */
class MariaDbFreezeFailsClosedTest extends AbstractFreezeFailsClosedTest {
  @Override
  Backend backend() {
    return Backend.MARIADB;
  }
}
