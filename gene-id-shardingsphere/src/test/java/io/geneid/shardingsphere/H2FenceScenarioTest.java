package io.geneid.shardingsphere;

/** Writes and readers the client-side freeze cannot see, during a move, on H2. */
class H2FenceScenarioTest extends AbstractFenceScenarioTest {
  @Override
  Backend backend() {
    return Backend.H2;
  }
}
