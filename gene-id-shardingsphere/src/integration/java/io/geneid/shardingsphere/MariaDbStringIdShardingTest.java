package io.geneid.shardingsphere;

/** String and numeric ids of one family on the MariaDB on 127.0.0.1:3306. */
class MariaDbStringIdShardingTest extends AbstractStringIdShardingTest {
  @Override
  Backend backend() {
    return Backend.MARIADB;
  }
}
