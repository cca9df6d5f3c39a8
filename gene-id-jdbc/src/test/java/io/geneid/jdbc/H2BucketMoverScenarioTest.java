package io.geneid.jdbc;

/** The mover's scenarios of issue #29 on H2. */
class H2BucketMoverScenarioTest extends AbstractJdbcBucketMoverScenarioTest {
  @Override
  SegmentDatabase.Kind kind() {
    return SegmentDatabase.Kind.H2;
  }
}
