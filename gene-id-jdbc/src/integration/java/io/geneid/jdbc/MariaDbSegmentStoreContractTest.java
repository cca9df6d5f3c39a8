package io.geneid.jdbc;

import io.geneid.core.segment.SegmentStoreOutageContract;

/** The segment contract on MariaDB, with an outage through a proxy. */
class MariaDbSegmentStoreContractTest extends AbstractJdbcSegmentStoreContractTest
    implements SegmentStoreOutageContract {

  MariaDbSegmentStoreContractTest() {
    super(SegmentDatabase.Kind.MARIADB);
  }
}
