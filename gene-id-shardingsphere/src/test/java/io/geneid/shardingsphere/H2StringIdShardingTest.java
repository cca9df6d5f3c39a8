package io.geneid.shardingsphere;

/** String and numeric ids of one family on H2. */
class H2StringIdShardingTest extends AbstractStringIdShardingTest {
  @Override
  Backend backend() {
    return Backend.H2;
  }
}
