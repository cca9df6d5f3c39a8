package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code GENE_MOD_AUTO} in ShardingSphere {@code autoTables} on H2: 2 data sources, sharding-count 4, so
 * ShardingSphere makes {@code t_order_0 .. t_order_3} with {@code ds_0} holding tables 0 and 2 and {@code ds_1}
 * tables 1 and 3. Orders (GENE_SNOWFLAKE ids) and their items (inserted inside the order's gene scope) land in the
 * same physical table; a lookup by item id alone or by order id touches one table.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2AutoTableShardingTest {

  private static final Pattern PHYSICAL_TABLE = Pattern.compile("\\b(t_(?:order|item)_\\d+)\\b");
  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  private static final String COUNT_4 = "sharding-count: 4";
  private static final int ORDERS = 200;

  private ShardedDatabases databases;
  private DataSource sharded;
  /** order id -> item ids */
  private final Map<Long, List<Long>> itemsByOrder = new LinkedHashMap<>();

  @BeforeAll
  void start() throws Exception {
    databases = new ShardedDatabases(Backend.H2, 2, 4);
    sharded = GeneShardingCheck.verify(databases.shardingSphere(Rules.auto("ds_${0..1}", "GENE_MOD_AUTO",
        COUNT_4)));
    try (Connection c = sharded.getConnection();
        PreparedStatement order = c.prepareStatement("INSERT INTO t_order (customer) VALUES (?)",
            Statement.RETURN_GENERATED_KEYS);
        PreparedStatement item = c.prepareStatement("INSERT INTO t_item (order_id, name) VALUES (?, ?)",
            Statement.RETURN_GENERATED_KEYS)) {
      for (int i = 0; i < ORDERS; i++) {
        order.setString(1, "c" + i);
        assertThat(order.executeUpdate()).isEqualTo(1);
        long orderId = key(order);
        List<Long> items = new ArrayList<>();
        try (var scope = GeneContext.inherit(orderId)) {
          for (int k = 0; k < 3; k++) {
            item.setLong(1, orderId);
            item.setString(2, "i" + k);
            assertThat(item.executeUpdate()).isEqualTo(1);
            items.add(key(item));
          }
        }
        itemsByOrder.put(orderId, items);
      }
    }
  }

  @AfterAll
  void stop() throws SQLException {
    if (databases != null) {
      databases.close();
    }
  }

  @Test
  void shardingSphereMakesTheTablesRoundRobinOverTheDataSources() throws SQLException {
    Map<String, List<String>> used = new TreeMap<>();
    physicalRows("t_order").forEach((id, node) -> used.computeIfAbsent(node.substring(0, 4), d -> new ArrayList<>())
        .add(node.substring(5)));
    used.values().forEach(l -> l.sort(null));
    assertThat(used.keySet()).containsExactly("ds_0", "ds_1");
    assertThat(used.get("ds_0")).containsOnly("t_order_0", "t_order_2");
    assertThat(used.get("ds_1")).containsOnly("t_order_1", "t_order_3");
  }

  @Test
  void everyItemSitsInThePhysicalTableOfItsOrder() throws SQLException {
    Map<Long, String> orderNode = physicalRows("t_order");
    Map<Long, String> itemNode = physicalRows("t_item");
    assertThat(orderNode).hasSize(ORDERS);
    assertThat(itemNode).hasSize(3 * ORDERS);
    itemsByOrder.forEach((order, items) -> {
      String node = orderNode.get(order);
      assertThat(node).as("order %d", order).isNotNull();
      int suffix = Integer.parseInt(node.substring(node.lastIndexOf('_') + 1));
      assertThat(node).as("table i lives in ds_(i %% 2)").startsWith("ds_" + suffix % 2 + "/");
      assertThat(suffix).as("gene %% sharding-count").isEqualTo(LAYOUT.geneOf(order) % 4);
      for (long item : items) {
        assertThat(itemNode.get(item)).as("item %d of order %d", item, order)
            .isEqualTo(node.replace("t_order_", "t_item_"));
      }
    });
  }

  @Test
  void rootRowsBalanceOverTheTables() throws SQLException {
    Map<String, Integer> perTable = new TreeMap<>();
    physicalRows("t_order").values().forEach(node -> perTable.merge(node, 1, Integer::sum));
    System.out.println("GENE_MOD_AUTO: " + ORDERS + " orders over 4 auto tables: " + perTable);
    assertThat(perTable).hasSize(4);
    assertThat((double) Collections.max(perTable.values()) / Collections.min(perTable.values()))
        .isLessThanOrEqualTo(1.5);
  }

  @Test
  void aLookupByItemIdAloneOrByOrderIdTouchesOneTable() throws SQLException {
    Map.Entry<Long, List<Long>> any = itemsByOrder.entrySet().iterator().next();
    long order = any.getKey();
    long item = any.getValue().get(1);
    try (Connection c = sharded.getConnection()) {
      List<String> byItem = physicalStatements(() ->
          assertThat(longs(c, "SELECT order_id FROM t_item WHERE id = ?", item)).containsExactly(order));
      assertThat(byItem).hasSize(1);
      List<String> byOrder = physicalStatements(() ->
          assertThat(longs(c, "SELECT id FROM t_item WHERE order_id = ?", order))
              .containsExactlyInAnyOrderElementsOf(any.getValue()));
      assertThat(byOrder).hasSize(1);
      assertThat(nodes(byItem.get(0))).hasSize(1).isEqualTo(nodes(byOrder.get(0)));
      List<String> orderById = physicalStatements(() ->
          assertThat(longs(c, "SELECT id FROM t_order WHERE id = ?", order)).containsExactly(order));
      assertThat(orderById).hasSize(1);
      assertThat(nodes(orderById.get(0))).containsExactly(nodes(byItem.get(0)).get(0).replace("t_item_",
          "t_order_"));
      List<String> both = physicalStatements(() -> assertThat(longs2(c,
          "SELECT id FROM t_item WHERE id = ? AND order_id = ?", item, order)).containsExactly(item));
      assertThat(both).hasSize(1);
      List<String> neither = physicalStatements(() ->
          assertThat(longs(c, "SELECT id FROM t_item WHERE name = ?", "i1")).hasSize(ORDERS));
      assertThat(neither.stream().flatMap(s -> nodes(s).stream())).containsExactlyInAnyOrder(
          "ds_0/t_item_0", "ds_0/t_item_2", "ds_1/t_item_1", "ds_1/t_item_3");
    }
  }

  @Test
  void itemIdsOfDifferentOrdersRouteToTheirOrdersTables() throws SQLException {
    List<Long> orders = new ArrayList<>(itemsByOrder.keySet()).subList(0, 8);
    List<Long> items = orders.stream().map(o -> itemsByOrder.get(o).get(0)).toList();
    StringBuilder sql = new StringBuilder("SELECT order_id FROM t_item WHERE id IN (");
    for (int i = 0; i < items.size(); i++) {
      sql.append(i == 0 ? "?" : ", ?");
    }
    sql.append(')');
    try (Connection c = sharded.getConnection(); PreparedStatement ps = c.prepareStatement(sql.toString())) {
      for (int i = 0; i < items.size(); i++) {
        ps.setLong(i + 1, items.get(i));
      }
      List<String> statements = physicalStatements(() -> {
        List<Long> found = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            found.add(rs.getLong(1));
          }
        }
        assertThat(found).containsExactlyInAnyOrderElementsOf(orders);
      });
      List<String> expected = orders.stream().map(o -> LAYOUT.geneOf(o) % 4).distinct()
          .map(t -> "ds_" + t % 2 + "/t_item_" + t).toList();
      assertThat(statements.stream().flatMap(s -> nodes(s).stream()).distinct())
          .containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  /** The algorithm alone, as ShardingSphere calls it per data source with that data source's tables. */
  @Test
  void aValueWhoseTableIsInAnotherDataSourceRoutesToNothingThere() {
    GeneModAutoTableShardingAlgorithm auto = new GeneModAutoTableShardingAlgorithm();
    Properties props = new Properties();
    props.setProperty("sharding-count", "4");
    auto.init(props);
    assertThat(auto.getAutoTablesAmount()).isEqualTo(4);
    assertThat(auto.getType()).isEqualTo("GENE_MOD_AUTO");
    List<String> ds0 = List.of("t_item_0", "t_item_2");
    List<String> ds1 = List.of("t_item_1", "t_item_3");
    long id = (777L << 6) | 6; // gene 6 -> table 2
    DataNodeInfo node = new DataNodeInfo("t_item_", 1, '0');
    assertThat(auto.doSharding(ds0, new PreciseShardingValue<>("t_item", "id", node, id))).isEqualTo("t_item_2");
    assertThat(auto.doSharding(ds1, new PreciseShardingValue<>("t_item", "id", node, id))).isNull();
    Map<String, java.util.Collection<Comparable<?>>> values = new LinkedHashMap<>();
    values.put("id", List.of(id));
    values.put("order_id", List.of((5L << 6) | 6));
    assertThat(auto.doSharding(ds0, new ComplexKeysShardingValue<>("t_item", values, Map.of())))
        .containsExactly("t_item_2");
    assertThat(auto.doSharding(ds1, new ComplexKeysShardingValue<>("t_item", values, Map.of()))).isEmpty();
    // a child whose id disagrees with its parent still fails, whichever data source is asked
    values.put("order_id", List.of((5L << 6) | 7));
    assertThat(catchThrowable(() -> auto.doSharding(ds1, new ComplexKeysShardingValue<>("t_item", values,
        Map.of())))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GeneContext.inherit");
  }

  // ---------------------------------------------------------------- configuration errors

  @Test
  void aShardingCountThatLeavesADataSourceWithoutTablesIsReported() throws Exception {
    try (ShardedDatabases three = new ShardedDatabases(Backend.H2, 3, 2)) {
      DataSource ds = three.shardingSphere(Rules.auto("ds_${0..2}", "GENE_MOD_AUTO", "sharding-count: 2"));
      assertThat(GeneShardingCheck.problems(ds)).contains("t_order: GENE_MOD_AUTO[sharding-count=2, gene-bits=6]"
          + " makes 2 tables for the 3 actualDataSources [ds_0, ds_1, ds_2], so [ds_2] hold none; give"
          + " sharding-count a multiple of 3");
      assertThat(catchThrowable(() -> GeneShardingCheck.verify(ds))).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("t_item: GENE_MOD_AUTO").hasMessageContaining("so [ds_2] hold none");
    }
  }

  @Test
  void aShardingCountThatIsNotAMultipleOfTheDataSourcesIsReported() throws Exception {
    try (ShardedDatabases three = new ShardedDatabases(Backend.H2, 3, 2)) {
      DataSource ds = three.shardingSphere(Rules.auto("ds_${0..2}", "GENE_MOD_AUTO", "sharding-count: 4"));
      assertThat(GeneShardingCheck.problems(ds)).contains("t_order: GENE_MOD_AUTO[sharding-count=4, gene-bits=6]"
          + " makes 4 tables for the 3 actualDataSources, so they hold {ds_0=2, ds_1=1, ds_2=1} tables"
          + " and take rows unevenly; give sharding-count a multiple of 3");
    }
  }

  @Test
  void aShardingCountThatIsAMultipleOfTheDataSourcesPassesTheCheck() throws Exception {
    assertThat(GeneShardingCheck.problems(databases.shardingSphere(Rules.auto("ds_${0..1}", "GENE_MOD_AUTO",
        "sharding-count: 8")))).isEmpty();
    assertThat(GeneShardingCheck.problems(databases.shardingSphere(Rules.auto("ds_0,ds_1", "GENE_MOD_AUTO",
        "sharding-count: 2")))).isEmpty();
  }

  @Test
  void autoTablesRefuseGeneModAndTablesRefuseGeneModAuto() {
    Throwable mod = catchThrowable(() -> databases.shardingSphere(Rules.auto("ds_${0..1}", "GENE_MOD", COUNT_4)));
    assertThat(messages(mod)).contains("autoTables sharding configuration must use auto sharding algorithm");
    Throwable auto = catchThrowable(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1",
        "sharding-count: 2", "sharding-count: 2").replace("GENE_MOD", "GENE_MOD_AUTO")));
    assertThat(messages(auto)).contains("tables sharding configuration can not use auto sharding algorithm");
  }

  @Test
  void geneModAutoHasNoGeneDivisor() {
    Throwable t = catchThrowable(() -> databases.shardingSphere(Rules.auto("ds_${0..1}", "GENE_MOD_AUTO",
        COUNT_4 + "\n        gene-divisor: 2")));
    assertThat(messages(t)).contains("GENE_MOD_AUTO has no property 'gene-divisor'; allowed: sharding-count,"
        + " gene-bits,");
  }

  @Test
  void geneBitsThatDifferFromTheKeyGeneratorsStopStartUp() {
    Throwable t = catchThrowable(() -> databases.shardingSphere(Rules.auto("ds_${0..1}", "GENE_MOD_AUTO",
        COUNT_4 + "\n        gene-bits: 4")));
    assertThat(messages(t)).contains("t_order: key generator 'ids' issues ids with gene-bits=6"
        + " but GENE_MOD_AUTO[sharding-count=4, gene-bits=4] reads gene-bits=4; set the same"
        + " gene-bits on both");
  }

  // ---------------------------------------------------------------- helpers

  interface SqlRunnable {
    void run() throws SQLException;
  }

  /** Every message of a throwable's chain, joined. */
  private static String messages(Throwable thrown) {
    assertThat(thrown).as("start-up must fail").isNotNull();
    StringBuilder all = new StringBuilder();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }

  /** id -> "ds_k/table_i" of every row of a logical table, read from the physical tables. */
  private Map<Long, String> physicalRows(String logical) throws SQLException {
    Map<Long, String> nodes = new HashMap<>();
    for (String ds : databases.dataSources.keySet()) {
      try (Connection c = databases.physical(ds).getConnection(); Statement s = c.createStatement()) {
        for (int t = 0; t < 4; t++) {
          try (ResultSet rs = s.executeQuery("SELECT id FROM " + logical + "_" + t)) {
            while (rs.next()) {
              assertThat(nodes.put(rs.getLong(1), ds + "/" + logical + "_" + t)).as("row stored twice").isNull();
            }
          }
        }
      }
    }
    return nodes;
  }

  private List<String> physicalStatements(SqlRunnable query) throws SQLException {
    databases.statements.clear();
    query.run();
    synchronized (databases.statements) {
      return new ArrayList<>(databases.statements);
    }
  }

  private static List<String> nodes(String logged) {
    String ds = logged.substring(0, logged.indexOf(' '));
    Matcher m = PHYSICAL_TABLE.matcher(logged);
    List<String> result = new ArrayList<>();
    while (m.find()) {
      result.add(ds + "/" + m.group(1));
    }
    return result;
  }

  private static long key(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.getGeneratedKeys()) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }

  private static List<Long> longs(Connection c, String sql, Object parameter) throws SQLException {
    return longs2(c, sql, parameter);
  }

  private static List<Long> longs2(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        List<Long> result = new ArrayList<>();
        while (rs.next()) {
          result.add(rs.getLong(1));
        }
        return result;
      }
    }
  }
}
