package io.geneid.spring.boot.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import com.baomidou.mybatisplus.core.batch.MybatisBatch;
import com.baomidou.mybatisplus.core.conditions.query.QueryWrapper;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.mybatis.GeneIdentifierGenerator;
import io.geneid.spring.boot.sharding.ShardingTestApplication.Order;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItem;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItemMapper;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderMapper;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The whole stack: Spring Boot (3.5 or 4) + MyBatis-Plus (3.5.16 or 3.5.17) + the starter + ShardingSphere-JDBC 5.5.2
 * with {@code GENE_MOD} over two H2 databases with two tables each. Orders are inserted with spread ids, their items
 * with ids carrying the order's gene through every MyBatis-Plus insert path; the physical tables are then read directly
 * to check that every item sits in the same database and table as its order, and ShardingSphere's "Actual SQL" log
 * shows that a query by order id runs on one physical table.
 */
@SpringBootTest(classes = ShardingTestApplication.class)
@ActiveProfiles("sharding")
class ShardingSphereMybatisPlusTest {

  private static final String[] DATABASES = {"gid_starter_ds_0", "gid_starter_ds_1"};
  private static final String URL_OPTIONS =
      ";MODE=MYSQL;IGNORECASE=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;DB_CLOSE_DELAY=-1";

  @Autowired OrderMapper orders;
  @Autowired OrderItemMapper items;
  @Autowired OrderItems itemService;
  @Autowired SqlSessionFactory sqlSessionFactory;
  @Autowired TransactionTemplate transactions;
  @Autowired GeneSnowflakeGenerator generator;
  @Autowired GeneIdentifierGenerator identifierGenerator;

  private final GeneIdLayout layout = GeneIdLayout.defaults();

  /** A physical node: database index and table index. */
  record Node(int database, int table) {
    /** GENE_MOD_AUTO of gene-id-sharding.yaml: table gene % 4, in data source table % 2 (auto tables). */
    static Node of(long id) {
      long table = (id & 63) % 4; // 6 gene bits
      return new Node((int) (table % 2), (int) table);
    }
  }

  private static final Pattern ACTUAL_SQL = Pattern.compile("^Actual SQL: ds_(\\d) ::: .*\\bt_order_item_(\\d)\\b.*",
      Pattern.DOTALL);

  /**
   * The physical statements ShardingSphere ran for {@code query}, from its "Actual SQL" log lines (one per statement
   * sent to a data source; {@code sql-show: true} in gene-id-sharding.yaml), as the nodes of t_order_item they hit.
   */
  private static List<Node> physicalItemStatements(Runnable query) {
    Logger sql = (Logger) LoggerFactory.getLogger("ShardingSphere-SQL");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    Level level = sql.getLevel();
    boolean additive = sql.isAdditive();
    sql.addAppender(appender);
    sql.setLevel(Level.INFO);
    sql.setAdditive(false);
    try {
      query.run();
    } finally {
      sql.detachAppender(appender);
      sql.setLevel(level);
      sql.setAdditive(additive);
    }
    List<Node> nodes = new ArrayList<>();
    for (ILoggingEvent event : appender.list) {
      String message = event.getFormattedMessage();
      if (message.startsWith("Actual SQL")) {
        Matcher m = ACTUAL_SQL.matcher(message);
        assertThat(m.matches()).as("a statement on one t_order_item table: %s", message).isTrue();
        nodes.add(new Node(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
      }
    }
    return nodes;
  }

  private static Connection physical(int database) throws SQLException {
    return DriverManager.getConnection("jdbc:h2:mem:" + DATABASES[database] + URL_OPTIONS, "sa", "");
  }

  @BeforeEach
  void empty() throws SQLException {
    for (int d = 0; d < 2; d++) {
      try (Connection c = physical(d); Statement s = c.createStatement()) {
        for (int t = d; t < 4; t += 2) { // ShardingSphere placed table t in ds_(t % 2)
          s.execute("DELETE FROM t_order_" + t);
          s.execute("DELETE FROM t_order_item_" + t);
        }
      }
    }
  }

  private List<Order> insertOrders(int n) {
    List<Order> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Order o = new Order("customer-" + i);
      assertThat(orders.insert(o)).isEqualTo(1);
      list.add(o);
    }
    return list;
  }

  private static List<OrderItem> itemsOf(List<Order> parents, String sku) {
    List<OrderItem> list = new ArrayList<>();
    for (Order o : parents) {
      list.add(new OrderItem(o.getId(), sku + "-a"));
      list.add(new OrderItem(o.getId(), sku + "-b"));
    }
    return list;
  }

  /** Reads every physical table: where each order and each item (with its order id) actually is. */
  private void assertCoLocated(int expectedOrders, int expectedItems) throws SQLException {
    Map<Long, Node> orderNode = new HashMap<>();
    Map<Long, Node> itemNode = new HashMap<>();
    Map<Long, Long> itemOrder = new HashMap<>();
    Set<Node> used = new HashSet<>();
    for (int d = 0; d < 2; d++) {
      try (Connection c = physical(d); Statement s = c.createStatement()) {
        for (int t = d; t < 4; t += 2) {
          Node node = new Node(d, t);
          try (ResultSet rs = s.executeQuery("SELECT id FROM t_order_" + t)) {
            while (rs.next()) {
              assertThat(orderNode.put(rs.getLong(1), node)).as("order stored once").isNull();
              used.add(node);
            }
          }
          try (ResultSet rs = s.executeQuery("SELECT id, order_id FROM t_order_item_" + t)) {
            while (rs.next()) {
              assertThat(itemNode.put(rs.getLong(1), node)).as("item stored once").isNull();
              itemOrder.put(rs.getLong(1), rs.getLong(2));
            }
          }
        }
      }
    }
    assertThat(orderNode).hasSize(expectedOrders);
    assertThat(itemNode).hasSize(expectedItems);
    assertThat(used).as("spread order ids reach all 4 tables").hasSize(4);
    orderNode.forEach((id, node) -> assertThat(node).as("order %d", id).isEqualTo(Node.of(id)));
    itemNode.forEach((id, node) -> {
      long orderId = itemOrder.get(id);
      assertThat(node).as("item %d of order %d", id, orderId).isEqualTo(orderNode.get(orderId));
      assertThat(layout.geneOf(id)).isEqualTo(layout.geneOf(orderId));
    });
  }

  @Test
  void itemsOfEveryInsertPathLandWithTheirOrder() throws SQLException {
    List<Order> parents = insertOrders(16);

    List<OrderItem> one = itemsOf(parents, "one");
    one.forEach(i -> assertThat(items.insert(i)).isEqualTo(1));

    items.insert(itemsOf(parents, "collection"));

    MybatisBatch.Method<OrderItem> insert = new MybatisBatch.Method<>(OrderItemMapper.class);
    new MybatisBatch<>(sqlSessionFactory, itemsOf(parents, "batch")).execute(insert.insert());

    List<OrderItem> saved = itemsOf(parents, "save");
    Boolean ok = transactions.execute(status -> itemService.saveBatch(saved, 10));
    assertThat(ok).isTrue();

    assertCoLocated(16, 16 * 2 * 4);
  }

  @Test
  void rowsReadBackThroughShardingSphere() throws SQLException {
    List<Order> parents = insertOrders(8);
    List<OrderItem> list = itemsOf(parents, "x");
    items.insert(list);
    assertCoLocated(8, 16);
    for (Order o : parents) {
      assertThat(orders.selectById(o.getId()).getCustomer()).isEqualTo(o.getCustomer());
      assertThat(items.selectList(new QueryWrapper<OrderItem>().eq("order_id", o.getId())))
          .extracting(OrderItem::getSku).containsExactlyInAnyOrder("x-a", "x-b");
    }
    for (OrderItem i : list) {
      assertThat(items.selectById(i.getId()).getOrderId()).isEqualTo(i.getOrderId());
    }
  }

  @Test
  void aQueryByOrderIdRunsOnOnePhysicalTable() throws SQLException {
    List<Order> parents = insertOrders(8);
    List<OrderItem> list = itemsOf(parents, "q");
    items.insert(list);
    assertCoLocated(8, 16);
    Set<Node> reached = new HashSet<>();
    for (Order o : parents) {
      List<Node> byOrder = physicalItemStatements(() -> assertThat(items.selectList(
          new QueryWrapper<OrderItem>().eq("order_id", o.getId()))).hasSize(2));
      assertThat(byOrder).as("physical statements of a query by order id %d", o.getId())
          .containsExactly(Node.of(o.getId()));
      reached.add(byOrder.get(0));
    }
    assertThat(reached).as("the orders' items are spread over all 4 tables").hasSize(4);
    OrderItem one = list.get(3);
    assertThat(physicalItemStatements(() -> assertThat(items.selectById(one.getId())).isNotNull()))
        .containsExactly(Node.of(one.getOrderId()));
    // without a sharding column ShardingSphere must ask every table (one statement per database or per table)
    List<Node> bySku = physicalItemStatements(() -> assertThat(items.selectList(
        new QueryWrapper<OrderItem>().eq("sku", "q-a"))).hasSize(8));
    assertThat(bySku).hasSizeGreaterThan(1);
  }

  @Test
  void theStarterWiredTheSharedGenerator() {
    assertThat(identifierGenerator.generator()).isSameAs(generator);
    assertThat(generator).isSameAs(GeneSnowflakeGenerator.builder().workerId(7).build());
    Order order = new Order("c");
    orders.insert(order);
    assertThat(layout.decode(order.getId()).workerId()).isEqualTo(7);
  }
}
