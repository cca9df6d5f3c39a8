package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdStringFormat;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * String ids and numeric ids of one family through ShardingSphere over 2 databases x 2 tables: numeric orders with
 * string items ({@code ITM...}), and string orders ({@code ORD<yyyyMMdd>...}) with numeric items, every key made by
 * the key generators in multi-row INSERTs (one batch per statement). Every child must sit in its parent's physical
 * table, and a query by the child's id (string or number) or by its parent's must find it on one table.
 */
@SuppressWarnings("try")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractStringIdShardingTest {

  static final GeneIdStringFormat ITM = GeneIdStringFormat.builder().prefix("ITM").build();
  static final GeneIdStringFormat ORD = GeneIdStringFormat.builder().prefix("ORD").date(GeneIdLayout.defaults())
      .build();
  private static final int ROWS = 40;

  private ShardedDatabases databases;
  private DataSource sharded;
  /** child id (a Long or a String) -> its parent id (a String or a Long) */
  private final Map<Object, Object> parentOf = new HashMap<>();

  abstract Backend backend();

  @BeforeAll
  void start() throws Exception {
    databases = new ShardedDatabases(backend(), 2, 2);
    for (String ds : databases.dataSources.keySet()) {
      try (Connection c = databases.physical(ds).getConnection(); Statement s = c.createStatement()) {
        for (int t = 0; t < 2; t++) {
          s.execute("CREATE TABLE t_xitem_" + t + " (id VARCHAR(32) PRIMARY KEY, order_id BIGINT NOT NULL)");
          s.execute("CREATE TABLE t_sorder_" + t + " (id VARCHAR(32) PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
          s.execute("CREATE TABLE t_sitem_" + t + " (id BIGINT PRIMARY KEY, order_id VARCHAR(32) NOT NULL)");
        }
      }
    }
    sharded = GeneShardingCheck.verify(databases.shardingSphere(rules()));
    insertEverything();
  }

  @AfterAll
  void stop() throws Exception {
    if (databases != null) {
      databases.close();
    }
  }

  private static String rules() {
    String itm = "string-ids: true\n        string-id-prefix: ITM";
    String ord = "string-ids: true\n        string-id-prefix: ORD\n        string-id-date: true";
    return """
        databaseName: gene_strings
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_${0..1}.t_order_${0..1}
              databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: itm_db}}
              tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: itm_table}}
              keyGenerateStrategy: {column: id, keyGeneratorName: numbers}
            t_xitem:
              actualDataNodes: ds_${0..1}.t_xitem_${0..1}
              databaseStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: itm_db}}
              tableStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: itm_table}}
              keyGenerateStrategy: {column: id, keyGeneratorName: itm}
            t_sorder:
              actualDataNodes: ds_${0..1}.t_sorder_${0..1}
              databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: ord_db}}
              tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: ord_table}}
              keyGenerateStrategy: {column: id, keyGeneratorName: ord}
            t_sitem:
              actualDataNodes: ds_${0..1}.t_sitem_${0..1}
              databaseStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: ord_db}}
              tableStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: ord_table}}
              keyGenerateStrategy: {column: id, keyGeneratorName: numbers}
          shardingAlgorithms:
            itm_db:
              type: GENE_MOD
              props:
                sharding-count: 2
                %1$s
            itm_table:
              type: GENE_MOD
              props:
                sharding-count: 2
                gene-divisor: 2
                %1$s
            ord_db:
              type: GENE_MOD
              props:
                sharding-count: 2
                %2$s
            ord_table:
              type: GENE_MOD
              props:
                sharding-count: 2
                gene-divisor: 2
                %2$s
          keyGenerators:
            numbers:
              type: GENE_SNOWFLAKE
              props:
                worker-id: 1
            itm:
              type: GENE_SNOWFLAKE
              props:
                worker-id: 1
                %1$s
            ord:
              type: GENE_SNOWFLAKE
              props:
                worker-id: 1
                %2$s
        props:
          sql-show: false
        """.formatted(itm, ord);
  }

  private void insertEverything() throws SQLException {
    try (Connection c = sharded.getConnection()) {
      List<Object> numericOrders = insertRows(c, "INSERT INTO t_order (customer) VALUES ", "(?)", ROWS, "n");
      List<Object> stringOrders = insertRows(c, "INSERT INTO t_sorder (customer) VALUES ", "(?)", ROWS, "s");
      assertThat(numericOrders).allMatch(Long.class::isInstance);
      assertThat(stringOrders).allMatch(o -> ORD.matches((String) o));
      // string items of numeric orders, three per order, one multi-row INSERT per order
      for (Object order : numericOrders) {
        try (var scope = GeneContext.inherit(order)) {
          for (Object item : insertRows(c, "INSERT INTO t_xitem (order_id) VALUES ", "(?)", 3, order)) {
            assertThat(ITM.matches((String) item)).as("%s", item).isTrue();
            parentOf.put(item, order);
          }
        }
      }
      // numeric items of string orders: the scope carries the number the string id stands for; one multi-row
      // INSERT for the items of all orders, one parent per row
      List<Object> parents = new ArrayList<>();
      List<Object> numbers = new ArrayList<>();
      for (Object order : stringOrders) {
        for (int k = 0; k < 2; k++) {
          parents.add(order);
          numbers.add(ORD.parse((String) order));
        }
      }
      try (var scope = GeneContext.inheritEach(numbers)) {
        List<Object> items = insertRows(c, "INSERT INTO t_sitem (order_id) VALUES ", "(?)", parents.size(),
            parents.toArray());
        for (int i = 0; i < items.size(); i++) {
          parentOf.put(items.get(i), parents.get(i));
        }
      }
    }
  }

  /** One multi-row INSERT of {@code rows} rows (values repeated from {@code values}); the generated keys in order. */
  private static List<Object> insertRows(Connection c, String head, String row, int rows, Object... values)
      throws SQLException {
    StringBuilder sql = new StringBuilder(head);
    for (int i = 0; i < rows; i++) {
      sql.append(i == 0 ? "" : ", ").append(row);
    }
    List<Object> keys = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.toString(), Statement.RETURN_GENERATED_KEYS)) {
      for (int i = 0; i < rows; i++) {
        ps.setObject(i + 1, values[i % values.length]);
      }
      assertThat(ps.executeUpdate()).isEqualTo(rows);
      try (ResultSet rs = ps.getGeneratedKeys()) {
        while (rs.next()) {
          keys.add(rs.getObject(1));
        }
      }
    }
    assertThat(keys).hasSize(rows).doesNotHaveDuplicates();
    List<Object> normalised = new ArrayList<>();
    for (Object k : keys) {
      normalised.add(k instanceof Number n ? (Object) n.longValue() : k.toString());
    }
    return normalised;
  }

  @Test
  void everyChildSitsInThePhysicalTableOfItsParent() throws SQLException {
    Map<Object, String> node = new HashMap<>();
    for (String ds : databases.dataSources.keySet()) {
      try (Connection c = databases.physical(ds).getConnection(); Statement s = c.createStatement()) {
        for (int t = 0; t < 2; t++) {
          for (String table : List.of("t_order_", "t_xitem_", "t_sorder_", "t_sitem_")) {
            try (ResultSet rs = s.executeQuery("SELECT id FROM " + table + t)) {
              while (rs.next()) {
                Object id = table.startsWith("t_order") || table.startsWith("t_sitem") ? (Object) rs.getLong(1)
                    : rs.getString(1);
                assertThat(node.put(id, ds + "/" + t)).as("row %s stored twice", id).isNull();
              }
            }
          }
        }
      }
    }
    assertThat(parentOf).hasSize(ROWS * 3 + ROWS * 2);
    Map<String, Integer> perNode = new HashMap<>();
    parentOf.forEach((child, parent) -> {
      assertThat(node.get(child)).as("child %s of %s", child, parent).isNotNull().isEqualTo(node.get(parent));
      perNode.merge(node.get(child), 1, Integer::sum);
    });
    assertThat(perNode).as("children on every table").hasSize(4);
  }

  @Test
  void aQueryByAStringIdOrByItsParentReadsOneTable() throws SQLException {
    try (Connection c = sharded.getConnection()) {
      for (Map.Entry<Object, Object> e : parentOf.entrySet()) {
        String table = e.getKey() instanceof String ? "t_xitem" : "t_sitem";
        databases.statements.clear();
        try (PreparedStatement ps = c.prepareStatement("SELECT order_id FROM " + table + " WHERE id = ?")) {
          ps.setObject(1, e.getKey());
          try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).as("%s %s", table, e.getKey()).isTrue();
            assertThat(rs.getObject(1).toString()).isEqualTo(e.getValue().toString());
          }
        }
        assertThat(databases.statements).as("statements for %s", e.getKey()).hasSize(1);
        databases.statements.clear();
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table + " WHERE order_id = ?")) {
          ps.setObject(1, e.getValue());
          try (ResultSet rs = ps.executeQuery()) {
            List<String> ids = new ArrayList<>();
            while (rs.next()) {
              ids.add(rs.getObject(1).toString());
            }
            assertThat(ids).contains(e.getKey().toString());
          }
        }
        assertThat(databases.statements).as("statements for parent %s", e.getValue()).hasSize(1);
      }
    }
  }
}
