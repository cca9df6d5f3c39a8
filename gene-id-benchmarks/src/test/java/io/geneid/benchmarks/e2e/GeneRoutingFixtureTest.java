package io.geneid.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gene rule set (GENE_SNOWFLAKE + GENE_MOD): a query by parent id runs on one shard. */
class GeneRoutingFixtureTest {

  static RoutingFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    fixture = RoutingFixture.start("gene", 16, 4);
  }

  @AfterAll
  static void stop() throws Exception {
    fixture.close();
  }

  @Test
  void rootOrdersBalanceOverTheShards() throws Exception {
    assertThat(fixture.orderIds()).hasSize(16).doesNotHaveDuplicates();
    assertThat(fixture.rowsPerShard("t_order")).containsExactly(4, 4, 4, 4);
    assertThat(Arrays.stream(fixture.rowsPerShard("t_order_item")).sum()).isEqualTo(64);
  }

  @Test
  void aQueryByParentIdRunsOneStatementWithGeneRouting() throws Exception {
    long[] routed = new long[1];
    try (Connection c = fixture.dataSource().getConnection();
        PreparedStatement query = c.prepareStatement(RoutingFixture.ITEMS_OF_ORDER)) {
      for (long orderId : fixture.orderIds()) {
        assertThat(RoutingFixture.itemsOf(query, orderId, routed)).isEqualTo(4);
        assertThat(routed[0]).isEqualTo(1);
      }
    }
  }
}
