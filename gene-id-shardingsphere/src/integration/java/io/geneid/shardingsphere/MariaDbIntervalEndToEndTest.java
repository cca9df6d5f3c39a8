package io.geneid.shardingsphere;

/** The GENE_INTERVAL end-to-end scenario on MariaDB: 2 databases x 3 months. */
class MariaDbIntervalEndToEndTest extends AbstractIntervalEndToEndTest {
  @Override
  Backend backend() {
    return Backend.MARIADB;
  }
}
