package io.geneid.jdbc;

/** The bucket map store on an in-memory H2 database. */
class H2BucketMapStoreContractTest extends AbstractJdbcBucketMapStoreContractTest {
  @Override
  String[] connection() {
    return new String[] {"jdbc:h2:mem:gid_bucket_map;DB_CLOSE_DELAY=-1", "sa", ""};
  }
}
