package io.geneid.shardingsphere;

/** The end-to-end scenario on H2. */
class H2ShardingEndToEndTest extends AbstractShardingEndToEndTest {
  @Override
  Backend backend() {
    return Backend.H2;
  }
}
