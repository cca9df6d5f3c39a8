package io.geneid.jdbc;

/** The mover's scenarios of issue #29 on MARIADB. */
class MariaDbBucketMoverScenarioTest extends AbstractJdbcBucketMoverScenarioTest {
  @Override
  SegmentDatabase.Kind kind() {
    return SegmentDatabase.Kind.MARIADB;
  }
}
