package io.geneid.jdbc;

/** The bucket map store on the shared PostgreSQL (database {@code test}, tables of the test's own name). */
class PostgresBucketMapStoreContractTest extends AbstractJdbcBucketMapStoreContractTest {
  @Override
  String[] connection() {
    return new String[] {"jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""};
  }
}
