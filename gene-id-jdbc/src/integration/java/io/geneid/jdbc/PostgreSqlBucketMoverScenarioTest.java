package io.geneid.jdbc;

/** The mover's scenarios of issue #29 on POSTGRESQL. */
class PostgreSqlBucketMoverScenarioTest extends AbstractJdbcBucketMoverScenarioTest {
  @Override
  MoverDatabases.Kind kind() {
    return MoverDatabases.Kind.POSTGRESQL;
  }
}
