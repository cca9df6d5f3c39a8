package io.geneid.jdbc;

/** The mover's scenarios of issue #29 on H2. */
class H2BucketMoverScenarioTest extends AbstractJdbcBucketMoverScenarioTest {
  @Override
  MoverDatabases.Kind kind() {
    return MoverDatabases.Kind.H2;
  }
}
