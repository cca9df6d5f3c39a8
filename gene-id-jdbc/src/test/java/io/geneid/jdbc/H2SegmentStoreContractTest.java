package io.geneid.jdbc;

/** The segment contract on an embedded H2 in-memory database (which no proxy can cut off: no outage test). */
class H2SegmentStoreContractTest extends AbstractJdbcSegmentStoreContractTest {

  H2SegmentStoreContractTest() {
    super(SegmentDatabase.Kind.H2);
  }
}
