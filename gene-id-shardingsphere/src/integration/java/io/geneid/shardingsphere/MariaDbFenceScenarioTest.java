package io.geneid.shardingsphere;

/** Writes and readers the client-side freeze cannot see, during a move, on MARIADB. */
class MariaDbFenceScenarioTest extends AbstractFenceScenarioTest {
  @Override
  Backend backend() {
    return Backend.MARIADB;
  }
}
