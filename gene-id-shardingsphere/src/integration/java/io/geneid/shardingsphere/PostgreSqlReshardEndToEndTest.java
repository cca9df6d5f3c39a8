package io.geneid.shardingsphere;

/** Growing from 2 databases to 4 under load, on POSTGRESQL. */
class PostgreSqlReshardEndToEndTest extends AbstractReshardEndToEndTest {
  @Override
  Backend backend() {
    return Backend.POSTGRESQL;
  }
}
