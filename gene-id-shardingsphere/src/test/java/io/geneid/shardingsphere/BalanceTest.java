package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Root rows inserted one at a time at a low rate (one per millisecond or slower, the traffic of most services) over
 * 4 shards (2 databases x 2 tables): GENE_SNOWFLAKE spreads them evenly; ShardingSphere's SNOWFLAKE under the same
 * routing is measured alongside and its skew printed (its low bits are a sequence that restarts every
 * millisecond).
 */
class BalanceTest {

  private static final int ROWS = 1_000;

  @Test
  void rootRowsAtALowRateBalanceOverFourShards() throws Exception {
    Map<String, Integer> gene = insertAndCount(Rules.gene());
    Map<String, Integer> snowflake = insertAndCount(Rules.snowflake());
    System.out.printf("balance of %d root rows over 4 shards at a low rate:%n  GENE_SNOWFLAKE %s max/min %s%n"
        + "  SNOWFLAKE      %s max/min %s%n", ROWS, gene, ratio(gene), snowflake, ratio(snowflake));
    assertThat(gene).hasSize(4);
    assertThat(gene.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(ROWS);
    assertThat((double) Collections.max(gene.values()) / Collections.min(gene.values())).isLessThanOrEqualTo(1.5);
    assertThat(snowflake.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(ROWS);
  }

  private static String ratio(Map<String, Integer> counts) {
    int min = Collections.min(counts.values());
    return min == 0 ? "infinite (a shard got no row)"
        : String.format("%.2f", (double) Collections.max(counts.values()) / min);
  }

  /** Inserts the rows through ShardingSphere, then counts them in every physical table. */
  private static Map<String, Integer> insertAndCount(String rules) throws Exception {
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource sharded = databases.shardingSphere(rules);
      try (Connection c = sharded.getConnection();
          PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (customer) VALUES (?)")) {
        for (int i = 0; i < ROWS; i++) {
          long next = System.nanoTime() + 1_000_000;
          ps.setString(1, "c" + i);
          ps.executeUpdate();
          while (System.nanoTime() < next) { // low rate: at most one row per millisecond
            LockSupport.parkNanos(next - System.nanoTime());
          }
        }
      }
      Map<String, Integer> counts = new TreeMap<>();
      for (String ds : databases.dataSources.keySet()) {
        try (Connection c = databases.physical(ds).getConnection(); Statement s = c.createStatement()) {
          for (int t = 0; t < 2; t++) {
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t_order_" + t)) {
              rs.next();
              counts.put(ds + ".t_order_" + t, rs.getInt(1));
            }
          }
        }
      }
      return counts;
    }
  }
}
