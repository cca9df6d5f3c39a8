package io.geneid.jdbc;

/** The fence review of issue #38 on H2. */
class H2FenceReviewTest extends AbstractFenceReviewTest {
  @Override
  SegmentDatabase.Kind kind() {
    return SegmentDatabase.Kind.H2;
  }
}
