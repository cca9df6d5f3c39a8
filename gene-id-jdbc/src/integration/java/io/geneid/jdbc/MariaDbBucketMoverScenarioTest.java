package io.geneid.jdbc;

/** The mover's scenarios of issue #29 on MARIADB. */
class MariaDbBucketMoverScenarioTest extends AbstractJdbcBucketMoverScenarioTest {
  @Override
  MoverDatabases.Kind kind() {
    return MoverDatabases.Kind.MARIADB;
  }
}
