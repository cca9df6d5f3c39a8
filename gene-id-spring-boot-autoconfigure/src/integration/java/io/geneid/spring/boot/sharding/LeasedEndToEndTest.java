package io.geneid.spring.boot.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.TestTime;
import com.baomidou.mybatisplus.core.conditions.query.QueryWrapper;
import io.geneid.core.GeneIdParts;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.redis.TestRedis;
import io.geneid.spring.boot.sharding.ShardingTestApplication.Order;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItem;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItemMapper;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * End to end as users run it, on both Spring Boot lines (the Boot 4 starter runs this class too): MyBatis-Plus
 * inserts orders and their items into ShardingSphere-JDBC with {@code GENE_MOD_AUTO} over four tables in two MariaDB
 * databases (the sharding.yaml and shop.sql of quick start 1's project, {@code examples/quickstart-spring-boot}), the
 * worker id leased from Redis or from a MariaDB table. Two threads insert; every item lands in its order's database
 * and table, no id repeats, and every id carries the leased worker id.
 */
class LeasedEndToEndTest {

  private static final String ROOT = "jdbc:mariadb://127.0.0.1:3306/";
  private static final int ORDERS_PER_THREAD = 20;
  private static final int ITEMS_PER_ORDER = 3;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"redis", "jdbc"})
  void ordersAndItemsThroughMybatisPlusAndShardingSphereWithALeasedWorkerId(String store) throws Exception {
    ReadmeQuickStartTest.QuickStart quickStart = ReadmeQuickStartTest.QuickStart.read();
    String run = "gid_e2e_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    Path sharding = Files.writeString(dir.resolve("sharding.yaml"),
        quickStart.sharding().replace("3306/shop_", "3306/" + run + "_"));
    for (int d = 0; d < 2; d++) {
      execute(ROOT + "test", "CREATE DATABASE " + run + "_" + d);
      for (String statement : ReadmeQuickStartTest.ddlFor(quickStart.ddl(), d)) {
        execute(ROOT + run + "_" + d, statement);
      }
    }
    List<String> args = new ArrayList<>(List.of(
        "--spring.datasource.driver-class-name=org.apache.shardingsphere.driver.ShardingSphereDriver",
        "--spring.datasource.url=jdbc:shardingsphere:absolutepath:" + sharding,
        "--gene-id.worker-assigner=" + store,
        "--gene-id.lease.space=" + run,
        // a new pool waits out one TTL of unknown history before its first grant; 2 s at the tests' time scale, so
        // that the lease outlives a busy machine's pauses
        "--gene-id.lease.ttl=" + TestTime.seconds(2).toMillis() + "ms",
        "--mybatis-plus.global-config.banner=false"));
    if (store.equals("redis")) {
      args.add("--gene-id.redis.uri=" + TestRedis.URI);
      args.add("--gene-id.redis.lease-key-prefix=" + run);
    } else {
      args.add("--gene-id.jdbc.url=" + ROOT + run + "_0");
      args.add("--gene-id.jdbc.username=root");
      args.add("--gene-id.jdbc.password=");
      args.add("--gene-id.jdbc.lease-table=gene_id_lease");
      args.add("--gene-id.jdbc.create-tables=true");
    }
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ShardingTestApplication.class)
        .run(args.toArray(String[]::new))) {
      LeasedGeneGenerator generator = context.getBean(LeasedGeneGenerator.class);
      OrderMapper orders = context.getBean(OrderMapper.class);
      OrderItemMapper items = context.getBean(OrderItemMapper.class);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      List<Future<List<OrderItem>>> results = new ArrayList<>();
      try {
        for (int t = 0; t < 2; t++) {
          results.add(pool.submit(() -> {
            List<OrderItem> inserted = new ArrayList<>();
            for (int o = 0; o < ORDERS_PER_THREAD; o++) {
              Order order = new Order("customer-" + o);
              orders.insert(order);
              for (int i = 0; i < ITEMS_PER_ORDER; i++) {
                OrderItem item = new OrderItem(order.getId(), "sku-" + i);
                items.insert(item);
                inserted.add(item);
              }
            }
            return inserted;
          }));
        }
        List<OrderItem> all = new ArrayList<>();
        for (Future<List<OrderItem>> f : results) {
          all.addAll(f.get());
        }
        Map<String, Set<Long>> stored = new HashMap<>();
        for (int t = 0; t < 4; t++) { // GENE_MOD_AUTO, sharding-count 4: table t in data source t % 2
          stored.put(run + "_" + t % 2 + ".t_order_item_" + t, ids(run + "_" + t % 2, "t_order_item_" + t));
        }
        Set<Long> itemIds = new HashSet<>();
        Set<Long> orderIds = new HashSet<>();
        long workerId = generator.workerId();
        assertThat(workerId).as("the leased worker id").isGreaterThanOrEqualTo(0);
        for (OrderItem item : all) {
          assertThat(itemIds.add(item.getId())).as("item id %s is unique", item.getId()).isTrue();
          orderIds.add(item.getOrderId());
          GeneIdParts parts = generator.layout().decode(item.getId());
          assertThat(parts.workerId()).as("the item id carries the leased worker id").isEqualTo(workerId);
          assertThat(parts.gene()).as("the item id carries its order's gene").isEqualTo(item.getOrderId() & 63);
          long table = (item.getOrderId() & 63) % 4;
          String node = run + "_" + table % 2 + ".t_order_item_" + table;
          assertThat(stored.get(node)).as("item %s in its order's node %s", item.getId(), node)
              .contains(item.getId());
        }
        assertThat(stored.values().stream().mapToInt(Set::size).sum()).as("no item stored twice")
            .isEqualTo(itemIds.size());
        assertThat(orderIds).hasSize(2 * ORDERS_PER_THREAD).doesNotContainAnyElementsOf(itemIds);
        // a query by order id finds the order's items, from its one table
        OrderItem any = all.get(0);
        assertThat(items.selectList(new QueryWrapper<OrderItem>().eq("order_id", any.getOrderId())))
            .hasSize(ITEMS_PER_ORDER);
      } finally {
        pool.shutdownNow();
      }
    } finally {
      execute(ROOT + "test", "DROP DATABASE IF EXISTS " + run + "_0");
      execute(ROOT + "test", "DROP DATABASE IF EXISTS " + run + "_1");
      if (store.equals("redis")) {
        deleteKeys(run);
      }
    }
  }

  /** Deletes this run's lease keys (its own prefix only; the shared Redis is never flushed). */
  private static void deleteKeys(String prefix) {
    try (TestRedis redis = new TestRedis("e2e")) {
      for (String key : redis.redis().keys(prefix + ":*")) {
        redis.redis().del(key);
      }
    }
  }

  private static void execute(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url, "root", ""); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static Set<Long> ids(String database, String table) throws Exception {
    Set<Long> ids = new HashSet<>();
    try (Connection c = DriverManager.getConnection(ROOT + database, "root", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM " + table)) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    return ids;
  }
}
