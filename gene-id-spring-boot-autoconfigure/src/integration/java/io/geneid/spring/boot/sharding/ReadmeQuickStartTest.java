package io.geneid.spring.boot.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.core.conditions.query.QueryWrapper;
import io.geneid.spring.boot.sharding.ShardingTestApplication.Order;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItem;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItemMapper;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The README's quick start 1 as written: the application.yaml, sharding.yaml and shop.sql of its project
 * ({@code examples/quickstart-spring-boot}, whose own test runs it on H2), on MariaDB databases created for this run
 * in place of {@code shop_0} and {@code shop_1}, with the entities and mappers it shows ({@link ShardingTestApplication}
 * has the same ones). An order and its item are inserted through MyBatis-Plus; the item lands in its order's database
 * and table, and a query by order id finds it.
 */
class ReadmeQuickStartTest {

  private static final String ROOT = "jdbc:mariadb://127.0.0.1:3306/";

  @TempDir Path dir;

  @Test
  void quickStartOneRunsAsWritten() throws Exception {
    QuickStart quickStart = QuickStart.read();
    String run = "gid_qs1_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    Path application = Files.writeString(dir.resolve("application.yaml"), quickStart.application());
    String sharding = quickStart.sharding().replace("3306/shop_", "3306/" + run + "_");
    assertThat(sharding).contains(run + "_0", run + "_1");
    Path shardingFile = Files.writeString(dir.resolve("sharding.yaml"), sharding);
    for (int d = 0; d < 2; d++) {
      execute(ROOT + "test", "CREATE DATABASE " + run + "_" + d);
      for (String statement : ddlFor(quickStart.ddl(), d)) {
        execute(ROOT + run + "_" + d, statement);
      }
    }
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ShardingTestApplication.class)
        .run("--spring.config.location=file:" + application,
            // the project's classpath:sharding.yaml, from where this test wrote it
            "--spring.datasource.url=jdbc:shardingsphere:absolutepath:" + shardingFile)) {
      OrderMapper orders = context.getBean(OrderMapper.class);
      OrderItemMapper items = context.getBean(OrderItemMapper.class);
      Order order = new Order("alice");
      orders.insert(order);
      items.insert(new OrderItem(order.getId(), "book"));
      List<OrderItem> found = items.selectList(new QueryWrapper<OrderItem>().eq("order_id", order.getId()));
      assertThat(found).extracting(OrderItem::getSku).containsExactly("book");
      long table = (order.getId() & 63) % 4; // GENE_MOD_AUTO, sharding-count 4: table i in data source i % 2
      String node = run + "_" + table % 2 + ".t_order_item_" + table;
      assertThat(count(node, found.get(0).getId())).as("the item in its order's node %s", node).isEqualTo(1);
    } finally {
      execute(ROOT + "test", "DROP DATABASE IF EXISTS " + run + "_0");
      execute(ROOT + "test", "DROP DATABASE IF EXISTS " + run + "_1");
    }
  }

  private static void execute(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url, "root", ""); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static int count(String node, long id) throws Exception {
    String[] dbTable = node.split("\\.");
    try (Connection c = DriverManager.getConnection(ROOT + dbTable[0], "root", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + dbTable[1] + " WHERE id = " + id)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The files of quick start 1's project, {@code examples/quickstart-spring-boot}. */
  record QuickStart(String application, String sharding, String ddl) {
    static QuickStart read() throws IOException {
      Path project = Path.of("..", "examples", "quickstart-spring-boot");
      return new QuickStart(
          Files.readString(project.resolve("src/main/resources/application.yaml"), StandardCharsets.UTF_8),
          Files.readString(project.resolve("src/main/resources/sharding.yaml"), StandardCharsets.UTF_8),
          Files.readString(project.resolve("shop.sql"), StandardCharsets.UTF_8));
    }
  }

  /**
   * The statements of a DDL file for database {@code d}: those after its {@code -- in shop_<d>} line (it places
   * each auto table where ShardingSphere puts it), without their {@code shop_<d>.} qualifier, or all of them when it
   * has no such lines.
   */
  static List<String> ddlFor(String ddl, int d) {
    List<String> statements = new ArrayList<>();
    boolean sections = ddl.contains("-- in shop_");
    boolean mine = !sections;
    for (String line : ddl.split("\n")) {
      if (line.startsWith("-- in shop_")) {
        mine = line.trim().equals("-- in shop_" + d);
      } else if (mine && !line.isBlank()) {
        statements.add(line.trim().replaceAll(";$", "").replace(" shop_" + d + ".", " "));
      }
    }
    return statements;
  }
}
