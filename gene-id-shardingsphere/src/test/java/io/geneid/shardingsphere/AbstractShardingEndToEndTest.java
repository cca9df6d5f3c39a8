package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Orders (root rows, GENE_SNOWFLAKE ids) and their items (child rows inserted inside GeneContext scopes) through the
 * ShardingSphere driver over two physical databases of two tables each; then every physical table is read directly.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractShardingEndToEndTest {

  private static final Pattern PHYSICAL_TABLE = Pattern.compile("\\b(t_(?:order|item)_\\d+)\\b");
  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  private ShardedDatabases databases;
  private DataSource sharded;
  /** order id -> item ids, as inserted */
  private final Map<Long, List<Long>> itemsByOrder = new HashMap<>();
  /** Every generated order id, in the order the rows were inserted (VALUES and batch order). */
  final List<Long> orderIds = new ArrayList<>();
  /** Every generated item id, in the order the rows were inserted. */
  final List<Long> itemIds = new ArrayList<>();

  abstract Backend backend();

  /** The rules YAML; GENE_SNOWFLAKE with a static worker id unless a subclass says otherwise. */
  String rules() {
    return Rules.gene();
  }

  /** Runs before the ShardingSphere data source is created (e.g. to prepare a store). */
  void beforeStart() throws Exception {}

  /** Runs after the databases are dropped, also when the start failed. */
  void afterStop() throws Exception {}

  @BeforeAll
  void start() throws Exception {
    beforeStart();
    databases = new ShardedDatabases(backend(), 2, 2);
    sharded = GeneShardingCheck.verify(databases.shardingSphere(rules()));
    insertEverything();
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (databases != null) {
        databases.close();
      }
    } finally {
      afterStop();
    }
  }

  /** The ShardingSphere data source. */
  DataSource sharded() {
    return sharded;
  }

  private void insertEverything() throws SQLException {
    try (Connection c = sharded.getConnection()) {
      // single-row inserts: one order, then its items inside a scope
      long single = insertOrder(c, "single");
      try (var scope = GeneContext.inherit(single)) {
        insertItem(c, single, "a");
        insertItem(c, single, "b");
      }
      // multi-row insert of orders (root ids, spread) and of items of different orders in one statement
      List<Long> orders = insertOrders(c, "multi-1", "multi-2", "multi-3", "multi-4");
      List<Long> parents = List.of(orders.get(0), orders.get(1), orders.get(2), orders.get(3), orders.get(0));
      try (var scope = GeneContext.inheritEach(parents)) {
        insertItems(c, parents);
      }
      // batch of orders, then a batch of items of different orders
      List<Long> batchOrders = batchOrders(c, 5);
      List<Long> batchParents = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        batchParents.add(batchOrders.get(i % batchOrders.size()));
      }
      try (var scope = GeneContext.inheritEach(batchParents)) {
        batchItems(c, batchParents);
      }
    }
  }

  @Test
  void everyItemSitsInThePhysicalTableOfItsOrder() throws SQLException {
    Map<Long, String> orderNode = new HashMap<>();
    Map<Long, String> itemNode = new HashMap<>();
    Map<Long, Long> itemOrder = new HashMap<>();
    Map<String, Integer> ordersPerNode = new HashMap<>();
    for (String ds : databases.dataSources.keySet()) {
      try (Connection c = databases.physical(ds).getConnection(); Statement s = c.createStatement()) {
        for (int t = 0; t < 2; t++) {
          String node = ds + "/" + t;
          try (ResultSet rs = s.executeQuery("SELECT id FROM t_order_" + t)) {
            while (rs.next()) {
              assertThat(orderNode.put(rs.getLong(1), node)).as("order stored twice").isNull();
              ordersPerNode.merge(node, 1, Integer::sum);
            }
          }
          try (ResultSet rs = s.executeQuery("SELECT id, order_id FROM t_item_" + t)) {
            while (rs.next()) {
              assertThat(itemNode.put(rs.getLong(1), node)).as("item stored twice").isNull();
              itemOrder.put(rs.getLong(1), rs.getLong(2));
            }
          }
        }
      }
    }
    int expectedItems = itemsByOrder.values().stream().mapToInt(List::size).sum();
    assertThat(orderNode).hasSize(itemsByOrder.size());
    assertThat(itemNode).hasSize(expectedItems);
    itemsByOrder.forEach((order, items) -> {
      assertThat(orderNode).containsKey(order);
      for (long item : items) {
        assertThat(itemOrder.get(item)).isEqualTo(order);
        assertThat(itemNode.get(item)).as("item %d of order %d", item, order).isEqualTo(orderNode.get(order));
        assertThat(LAYOUT.geneOf(item)).isEqualTo(LAYOUT.geneOf(order));
      }
    });
    // 10 orders over 4 nodes: the spread reaches more than one node
    assertThat(ordersPerNode.keySet()).hasSizeGreaterThan(1);
  }

  @Test
  void aQueryByOrderIdOrByItemIdRunsOnExactlyOnePhysicalTable() throws SQLException {
    Map.Entry<Long, List<Long>> any = itemsByOrder.entrySet().stream().filter(e -> e.getValue().size() >= 2)
        .findFirst().orElseThrow();
    long order = any.getKey();
    long item = any.getValue().get(1);
    try (Connection c = sharded.getConnection()) {
      List<String> byOrder = physicalStatements(() -> {
        assertThat(longs(c, "SELECT id FROM t_item WHERE order_id = ?", order))
            .containsExactlyInAnyOrderElementsOf(any.getValue());
      });
      assertThat(byOrder).hasSize(1);
      assertThat(node(byOrder.get(0))).contains("/t_item_");

      List<String> byItem = physicalStatements(() ->
          assertThat(longs(c, "SELECT order_id FROM t_item WHERE id = ?", item)).containsExactly(order));
      assertThat(byItem).hasSize(1);
      assertThat(node(byItem.get(0))).isEqualTo(node(byOrder.get(0)));

      List<String> orderById = physicalStatements(() ->
          assertThat(longs(c, "SELECT id FROM t_order WHERE id = ?", order)).containsExactly(order));
      assertThat(orderById).hasSize(1);
      assertThat(node(orderById.get(0)).replace("t_order_", "t_item_")).isEqualTo(node(byOrder.get(0)));

      List<String> neither = physicalStatements(() ->
          assertThat(longs(c, "SELECT id FROM t_item WHERE name = ?", "b")).isNotEmpty());
      // one statement per database (ShardingSphere joins the tables of one database with UNION ALL), 4 tables
      assertThat(neither).hasSizeBetween(2, 4);
      assertThat(neither.stream().flatMap(s -> nodes(s).stream())).containsExactlyInAnyOrder(
          "ds_0/t_item_0", "ds_0/t_item_1", "ds_1/t_item_0", "ds_1/t_item_1");
      System.out.printf("%s physical statements: by order id %d (%s), by item id %d (%s), by neither %d (%s)%n",
          backend(), byOrder.size(), nodes(byOrder.get(0)), byItem.size(), nodes(byItem.get(0)), neither.size(),
          neither.stream().flatMap(s -> nodes(s).stream()).sorted().toList());
    }
  }

  // ---------------------------------------------------------------- helpers

  interface SqlRunnable {
    void run() throws SQLException;
  }

  private List<String> physicalStatements(SqlRunnable query) throws SQLException {
    databases.statements.clear();
    query.run();
    synchronized (databases.statements) {
      return new ArrayList<>(databases.statements);
    }
  }

  /** "ds_1/t_item_0" of a logged statement on one table. */
  private static String node(String logged) {
    List<String> nodes = nodes(logged);
    assertThat(nodes).as("physical tables of %s", logged).hasSize(1);
    return nodes.get(0);
  }

  /** Every "ds/table" a logged statement touches. */
  private static List<String> nodes(String logged) {
    String ds = logged.substring(0, logged.indexOf(' '));
    Matcher m = PHYSICAL_TABLE.matcher(logged);
    List<String> result = new ArrayList<>();
    while (m.find()) {
      result.add(ds + "/" + m.group(1));
    }
    return result;
  }

  private static List<Long> longs(Connection c, String sql, Object parameter) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, parameter);
      try (ResultSet rs = ps.executeQuery()) {
        List<Long> result = new ArrayList<>();
        while (rs.next()) {
          result.add(rs.getLong(1));
        }
        return result;
      }
    }
  }

  private long insertOrder(Connection c, String customer) throws SQLException {
    return insertOrders(c, customer).get(0);
  }

  private List<Long> insertOrders(Connection c, String... customers) throws SQLException {
    StringBuilder sql = new StringBuilder("INSERT INTO t_order (customer) VALUES ");
    for (int i = 0; i < customers.length; i++) {
      sql.append(i == 0 ? "(?)" : ", (?)");
    }
    try (PreparedStatement ps = c.prepareStatement(sql.toString(), Statement.RETURN_GENERATED_KEYS)) {
      for (int i = 0; i < customers.length; i++) {
        ps.setString(i + 1, customers[i]);
      }
      assertThat(ps.executeUpdate()).isEqualTo(customers.length);
      List<Long> ids = keys(ps);
      assertThat(ids).hasSize(customers.length).doesNotHaveDuplicates();
      ids.forEach(id -> itemsByOrder.put(id, new ArrayList<>()));
      orderIds.addAll(ids);
      return ids;
    }
  }

  private List<Long> batchOrders(Connection c, int count) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (customer) VALUES (?)",
        Statement.RETURN_GENERATED_KEYS)) {
      for (int i = 0; i < count; i++) {
        ps.setString(1, "batch-" + i);
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      assertThat(counts).hasSize(count);
      List<Long> ids = keys(ps);
      assertThat(ids).hasSize(count).doesNotHaveDuplicates();
      ids.forEach(id -> itemsByOrder.put(id, new ArrayList<>()));
      orderIds.addAll(ids);
      return ids;
    }
  }

  private void insertItem(Connection c, long order, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (order_id, name) VALUES (?, ?)",
        Statement.RETURN_GENERATED_KEYS)) {
      ps.setLong(1, order);
      ps.setString(2, name);
      assertThat(ps.executeUpdate()).isEqualTo(1);
      long id = keys(ps).get(0);
      itemsByOrder.get(order).add(id);
      itemIds.add(id);
    }
  }

  private void insertItems(Connection c, List<Long> orders) throws SQLException {
    StringBuilder sql = new StringBuilder("INSERT INTO t_item (order_id, name) VALUES ");
    for (int i = 0; i < orders.size(); i++) {
      sql.append(i == 0 ? "(?, ?)" : ", (?, ?)");
    }
    try (PreparedStatement ps = c.prepareStatement(sql.toString(), Statement.RETURN_GENERATED_KEYS)) {
      for (int i = 0; i < orders.size(); i++) {
        ps.setLong(2 * i + 1, orders.get(i));
        ps.setString(2 * i + 2, "b");
      }
      assertThat(ps.executeUpdate()).isEqualTo(orders.size());
      List<Long> ids = keys(ps);
      assertThat(ids).hasSize(orders.size());
      for (int i = 0; i < orders.size(); i++) {
        itemsByOrder.get(orders.get(i)).add(ids.get(i));
      }
      itemIds.addAll(ids);
    }
  }

  private void batchItems(Connection c, List<Long> orders) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (order_id, name) VALUES (?, ?)",
        Statement.RETURN_GENERATED_KEYS)) {
      for (long order : orders) {
        ps.setLong(1, order);
        ps.setString(2, "c");
        ps.addBatch();
      }
      assertThat(ps.executeBatch()).hasSize(orders.size());
      List<Long> ids = keys(ps);
      assertThat(ids).hasSize(orders.size());
      for (int i = 0; i < orders.size(); i++) {
        itemsByOrder.get(orders.get(i)).add(ids.get(i));
      }
      itemIds.addAll(ids);
    }
  }

  private static List<Long> keys(PreparedStatement ps) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (ResultSet rs = ps.getGeneratedKeys()) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    return ids;
  }
}
