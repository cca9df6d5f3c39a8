package io.geneid.jdbc;

/** The mover's scenarios of issue #29 on POSTGRESQL. */
class PostgreSqlBucketMoverScenarioTest extends AbstractJdbcBucketMoverScenarioTest {
  @Override
  SegmentDatabase.Kind kind() {
    return SegmentDatabase.Kind.POSTGRESQL;
  }
}
