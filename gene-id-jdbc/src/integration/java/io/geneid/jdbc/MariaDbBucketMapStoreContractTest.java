package io.geneid.jdbc;

/** The bucket map store on the shared MariaDB (database {@code test}, tables of the test's own name). */
class MariaDbBucketMapStoreContractTest extends AbstractJdbcBucketMapStoreContractTest {
  @Override
  String[] connection() {
    return new String[] {"jdbc:mariadb://127.0.0.1:3306/test", "root", ""};
  }
}
