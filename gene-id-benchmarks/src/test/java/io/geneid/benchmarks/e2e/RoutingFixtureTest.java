package io.geneid.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The built-in SNOWFLAKE rule set behaves as the benchmark says: a query by parent id fans out to every shard. */
class RoutingFixtureTest {

  static RoutingFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    fixture = RoutingFixture.start("snowflake", 16, 4);
  }

  @AfterAll
  static void stop() throws Exception {
    fixture.close();
  }

  @Test
  void ordersAndItemsAreStoredOnTheShards() throws Exception {
    assertThat(fixture.orderIds()).hasSize(16).doesNotHaveDuplicates();
    assertThat(Arrays.stream(fixture.rowsPerShard("t_order")).sum()).isEqualTo(16);
    assertThat(Arrays.stream(fixture.rowsPerShard("t_order_item")).sum()).isGreaterThanOrEqualTo(64);
  }

  @Test
  void aQueryByParentIdRunsOneStatementPerShardWithoutGeneRouting() throws Exception {
    long[] routed = new long[1];
    try (Connection c = fixture.dataSource().getConnection();
        PreparedStatement query = c.prepareStatement(RoutingFixture.ITEMS_OF_ORDER)) {
      for (long orderId : fixture.orderIds()) {
        assertThat(RoutingFixture.itemsOf(query, orderId, routed)).isGreaterThanOrEqualTo(4);
        assertThat(routed[0]).isEqualTo(RoutingFixture.SHARDS);
      }
    }
  }

  @Test
  void anInsertedChildIsFoundByItsParent() throws Exception {
    long orderId = fixture.orderIds()[3];
    long[] routed = new long[1];
    try (Connection c = fixture.dataSource().getConnection();
        PreparedStatement insert = c.prepareStatement(RoutingFixture.INSERT_ITEM);
        PreparedStatement query = c.prepareStatement(RoutingFixture.ITEMS_OF_ORDER)) {
      int before = RoutingFixture.itemsOf(query, orderId, routed);
      assertThat(RoutingFixture.insertItem(insert, orderId, 7)).isEqualTo(1);
      assertThat(RoutingFixture.itemsOf(query, orderId, routed)).isEqualTo(before + 1);
    }
  }

  @Test
  void unknownRulesAreNamed() {
    assertThatThrownBy(() -> RoutingFixture.start("nope", 1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rules must name a resource e2e/<rules>.yaml on the classpath, but e2e/nope.yaml does not exist");
  }

  @Test
  void rowsPerShardNamesAnUnknownTable() {
    assertThatThrownBy(() -> fixture.rowsPerShard("t_user")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("table must be t_order or t_order_item but was t_user");
  }
}
