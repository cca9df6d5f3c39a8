package io.geneid.jdbc;

import io.geneid.core.segment.SegmentStoreOutageContract;

/** The segment contract on PostgreSQL, with an outage through a proxy. */
class PostgresSegmentStoreContractTest extends AbstractJdbcSegmentStoreContractTest
    implements SegmentStoreOutageContract {

  PostgresSegmentStoreContractTest() {
    super(SegmentDatabase.Kind.POSTGRESQL);
  }
}
