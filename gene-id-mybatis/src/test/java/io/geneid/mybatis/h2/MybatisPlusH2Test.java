package io.geneid.mybatis.h2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.baomidou.mybatisplus.core.batch.MybatisBatch;
import com.baomidou.mybatisplus.core.config.GlobalConfig;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import com.baomidou.mybatisplus.core.toolkit.IdWorker;
import com.baomidou.mybatisplus.extension.service.impl.ServiceImpl;
import com.baomidou.mybatisplus.extension.spring.MybatisSqlSessionFactoryBean;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.mybatis.GeneIdentifierGenerator;
import io.geneid.mybatis.h2.Entities.Cart;
import io.geneid.mybatis.h2.Entities.CartMapper;
import io.geneid.mybatis.h2.Entities.DeviceEvent;
import io.geneid.mybatis.h2.Entities.DeviceEventMapper;
import io.geneid.mybatis.h2.Entities.NarrowMapper;
import io.geneid.mybatis.h2.Entities.NarrowRow;
import io.geneid.mybatis.h2.Entities.Order;
import io.geneid.mybatis.h2.Entities.OrderItem;
import io.geneid.mybatis.h2.Entities.OrderItemMapper;
import io.geneid.mybatis.h2.Entities.OrderMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSessionFactory;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * MyBatis-Plus 3.5.16 on H2 in a small Spring context (no Spring Boot): every insert path MyBatis-Plus has gives
 * each item an id carrying its order's gene.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MybatisPlusH2Test {

  static final long WORKER_ID = 17;

  /** The Spring wiring a plain (non-Boot) Spring application writes. */
  @Configuration
  @MapperScan(basePackageClasses = Entities.class, annotationClass = org.apache.ibatis.annotations.Mapper.class)
  static class Config {
    static final String DB = "gid_mybatis_" + Long.toHexString(ThreadLocalRandom.current().nextLong());

    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL("jdbc:h2:mem:" + DB + ";DB_CLOSE_DELAY=-1");
      new JdbcTemplate(ds).execute(Entities.DDL);
      return ds;
    }

    @Bean
    GeneSnowflakeGenerator geneSnowflakeGenerator() {
      return GeneSnowflakeGenerator.builder().workerId(WORKER_ID).buildUnshared();
    }

    @Bean
    IdentifierGenerator identifierGenerator(GeneSnowflakeGenerator generator) {
      return new GeneIdentifierGenerator(generator);
    }

    @Bean
    MybatisSqlSessionFactoryBean sqlSessionFactory(DataSource dataSource, IdentifierGenerator ids) {
      MybatisSqlSessionFactoryBean factory = new MybatisSqlSessionFactoryBean();
      factory.setDataSource(dataSource);
      GlobalConfig config = GlobalConfigUtils.defaults().setBanner(false);
      config.setIdentifierGenerator(ids);
      factory.setGlobalConfig(config);
      factory.setTypeHandlers(new UuidTypeHandler());
      return factory;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    OrderItemService orderItemService() {
      return new OrderItemService();
    }
  }

  /** saveBatch lives on MyBatis-Plus's ServiceImpl. */
  static class OrderItemService extends ServiceImpl<OrderItemMapper, OrderItem> {}

  private AnnotationConfigApplicationContext context;
  private OrderMapper orders;
  private OrderItemMapper items;
  private JdbcTemplate jdbc;
  private final GeneIdLayout layout = GeneIdLayout.defaults();

  @BeforeAll
  void start() {
    context = new AnnotationConfigApplicationContext(Config.class);
    orders = context.getBean(OrderMapper.class);
    items = context.getBean(OrderItemMapper.class);
    jdbc = new JdbcTemplate(context.getBean(DataSource.class));
  }

  @AfterAll
  void stop() {
    jdbc.execute("SHUTDOWN");
    context.close();
  }

  @BeforeEach
  void empty() {
    jdbc.execute("DELETE FROM t_order; DELETE FROM t_order_item; DELETE FROM t_cart; DELETE FROM t_device_event;"
        + " DELETE FROM t_narrow");
  }

  /** Inserts orders one by one (insert(T)); their genes are spread. */
  private List<Order> insertOrders(int n) {
    List<Order> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Order o = new Order("customer-" + i);
      assertThat(orders.insert(o)).isEqualTo(1);
      list.add(o);
    }
    assertThat(list).extracting(o -> layout.geneOf(o.id)).as("consecutive root ids spread over genes")
        .doesNotHaveDuplicates();
    return list;
  }

  private static List<OrderItem> itemsFor(List<Order> parents, int perOrder) {
    List<OrderItem> list = new ArrayList<>();
    for (int k = 0; k < perOrder; k++) {
      for (Order o : parents) {
        list.add(new OrderItem(o.id, "sku-" + k));
      }
    }
    return list;
  }

  /** Every stored item carries its stored order's gene and the ids the entities got are the stored ones. */
  private void assertCoLocated(List<OrderItem> inserted) {
    assertThat(inserted).allSatisfy(i -> assertThat(i.id).isNotNull());
    Map<Long, Long> orderOfItem = new HashMap<>();
    jdbc.query("SELECT id, order_id FROM t_order_item", rs -> {
      orderOfItem.put(rs.getLong(1), rs.getLong(2));
    });
    assertThat(orderOfItem).hasSize(inserted.size());
    for (OrderItem i : inserted) {
      assertThat(orderOfItem).containsEntry(i.id, i.orderId);
      assertThat(layout.geneOf(i.id)).as("item %d of order %d", i.id, i.orderId)
          .isEqualTo(layout.geneOf(i.orderId));
      assertThat(layout.decode(i.id).workerId()).isEqualTo(WORKER_ID);
    }
  }

  @Test
  void insertOneByOne() {
    List<OrderItem> list = itemsFor(insertOrders(8), 3);
    for (OrderItem i : list) {
      assertThat(items.insert(i)).isEqualTo(1);
    }
    assertCoLocated(list);
  }

  @Test
  void insertCollection() {
    List<OrderItem> list = itemsFor(insertOrders(8), 25);
    items.insert(list);
    assertCoLocated(list);
  }

  @Test
  void mybatisBatch() {
    List<OrderItem> list = itemsFor(insertOrders(8), 25);
    SqlSessionFactory factory = context.getBean(SqlSessionFactory.class);
    MybatisBatch.Method<OrderItem> method = new MybatisBatch.Method<>(OrderItemMapper.class);
    new MybatisBatch<>(factory, list, 64).execute(method.insert());
    assertCoLocated(list);
  }

  @Test
  void saveBatchInATransaction() {
    List<OrderItem> list = itemsFor(insertOrders(8), 25);
    OrderItemService service = context.getBean(OrderItemService.class);
    TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
    Boolean saved = tx.execute(status -> service.saveBatch(list, 50));
    assertThat(saved).isTrue();
    assertCoLocated(list);
  }

  @Test
  void stringIdAndStringParentKey() {
    CartMapper carts = context.getBean(CartMapper.class);
    List<Cart> list = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      list.add(new Cart("customer-" + i + "@example.com"));
    }
    carts.insert(list);
    Map<String, String> stored = new HashMap<>();
    jdbc.query("SELECT id, customer_code FROM t_cart", rs -> {
      stored.put(rs.getString(1), rs.getString(2));
    });
    assertThat(stored).hasSize(20);
    for (Cart c : list) {
      assertThat(stored).containsEntry(c.id, c.customerCode);
      assertThat(layout.geneOf(Long.parseLong(c.id))).isEqualTo(layout.geneOf(c.customerCode));
    }
  }

  @Test
  void uuidParentKey() {
    DeviceEventMapper events = context.getBean(DeviceEventMapper.class);
    UUID device = UUID.fromString("00000000-0000-4000-8000-00000000abcd");
    DeviceEvent e = new DeviceEvent(device);
    assertThat(events.insert(e)).isEqualTo(1);
    assertThat(jdbc.queryForObject("SELECT id FROM t_device_event WHERE device_id = ?", Long.class, device))
        .isEqualTo(e.id);
    assertThat(layout.geneOf(e.id)).isEqualTo(layout.geneOf(device.toString()));
  }

  @Test
  void integerIdIsRefusedAndNothingIsWritten() {
    NarrowMapper narrow = context.getBean(NarrowMapper.class);
    assertThatThrownBy(() -> narrow.insert(new NarrowRow(5L)))
        .rootCause()
        .isInstanceOf(GeneIdException.class)
        .hasMessage(NarrowRow.class.getName() + ".id is of type java.lang.Integer and cannot hold a 64-bit id"
            + " (MyBatis-Plus would truncate it, and truncated ids collide): declare the id Long, long, BigInteger"
            + " or String");
    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM t_narrow", Long.class)).isZero();
  }

  @Test
  void idWorkerUsesTheGeneGenerator() {
    // MyBatis-Plus hands its configured IdentifierGenerator to IdWorker: IdWorker.getId() passes a null entity
    Set<Long> genes = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      long id = IdWorker.getId();
      assertThat(layout.decode(id).workerId()).isEqualTo(WORKER_ID);
      genes.add(layout.geneOf(id));
    }
    assertThat(genes).hasSize(64);
    OrderItem item = new OrderItem(1_000_003L, "x");
    assertThat(layout.geneOf(IdWorker.getId(item))).isEqualTo(layout.geneOf(1_000_003L));
  }
}
