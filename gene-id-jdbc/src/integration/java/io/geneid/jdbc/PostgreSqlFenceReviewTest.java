package io.geneid.jdbc;

/** The fence review of issue #38 on PostgreSQL. */
class PostgreSqlFenceReviewTest extends AbstractFenceReviewTest {
  @Override
  SegmentDatabase.Kind kind() {
    return SegmentDatabase.Kind.POSTGRESQL;
  }
}
