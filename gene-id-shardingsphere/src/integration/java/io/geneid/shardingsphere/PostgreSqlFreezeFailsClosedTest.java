package io.geneid.shardingsphere;

/** {@link AbstractFreezeFailsClosedTest} on POSTGRESQL. */
class PostgreSqlFreezeFailsClosedTest extends AbstractFreezeFailsClosedTest {
  @Override
  Backend backend() {
    return Backend.POSTGRESQL;
  }
}
