package io.geneid.shardingsphere;

/** {@link AbstractFreezeFailsClosedTest} on H2. */
class H2FreezeFailsClosedTest extends AbstractFreezeFailsClosedTest {
  @Override
  Backend backend() {
    return Backend.H2;
  }
}
