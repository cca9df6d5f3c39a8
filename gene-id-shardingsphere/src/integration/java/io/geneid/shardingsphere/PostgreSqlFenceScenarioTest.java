package io.geneid.shardingsphere;

/** Writes and readers the client-side freeze cannot see, during a move, on POSTGRESQL. */
class PostgreSqlFenceScenarioTest extends AbstractFenceScenarioTest {
  @Override
  Backend backend() {
    return Backend.POSTGRESQL;
  }
}
