package io.geneid.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.segment.SegmentMultiJvm;
import java.util.List;

/**
 * One process of {@link JdbcSegmentMultiJvmTest}: {@link SegmentMultiJvm#issue} over a shared table. Store
 * arguments: jdbcUrl user password ({@code -} for none).
 */
public final class SegmentJvmMain {

  private SegmentJvmMain() {}

  public static void main(String[] args) throws Exception {
    List<String> store = SegmentMultiJvm.storeArgs(args);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(store.get(0));
    config.setUsername(store.get(1));
    config.setPassword(store.get(2).equals("-") ? "" : store.get(2));
    config.setMaximumPoolSize(2);
    try (HikariDataSource ds = new HikariDataSource(config)) {
      SegmentMultiJvm.issue(args, JdbcSegmentStore.builder().dataSource(ds).build());
    }
  }
}
