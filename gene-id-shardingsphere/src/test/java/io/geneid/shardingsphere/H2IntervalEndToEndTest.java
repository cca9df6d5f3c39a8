package io.geneid.shardingsphere;

/** The GENE_INTERVAL end-to-end scenario on embedded H2. */
class H2IntervalEndToEndTest extends AbstractIntervalEndToEndTest {
  @Override
  Backend backend() {
    return Backend.H2;
  }
}
