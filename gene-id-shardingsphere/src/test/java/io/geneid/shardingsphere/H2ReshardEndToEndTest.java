package io.geneid.shardingsphere;

/** Growing from 2 databases to 4 under load, on H2. */
class H2ReshardEndToEndTest extends AbstractReshardEndToEndTest {
  @Override
  Backend backend() {
    return Backend.H2;
  }
}
