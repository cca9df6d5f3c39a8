package io.geneid.mybatis.balance;

import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.config.GlobalConfig;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import com.baomidou.mybatisplus.extension.service.impl.ServiceImpl;
import com.baomidou.mybatisplus.extension.spring.MybatisSqlSessionFactoryBean;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.mybatis.GeneIdentifierGenerator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Mapper;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Issue 20 through MyBatis-Plus: one thread calls {@code saveBatch} for two or three root entity types in turn (no
 * {@code @GeneSource}), each type's rows must balance on their own over {@code gene % n} shards for n = 2, 3, 4, 8
 * (the routing {@code GENE_MOD} applies; counted here from the stored ids).
 *
 * <p>Each type gets {@value #ROWS} rows, a whole number of cycles of the 64 genes (G = 6), so a per-entity spread
 * puts exactly {@code ROWS / 64 * |{g < 64 : g % n == shard}|} rows on each shard (max/min 1.00 for 2, 4 and 8
 * shards, 22/21 = 1.048 for 3): the test asserts those exact counts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AlternatingEntitiesBalanceTest {

  private static final int ROWS = 256;
  private static final int GENES = 64;
  private static final int[] SHARDS = {2, 3, 4, 8};

  @TableName("t_purchase")
  static class Purchase {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
    String note;

    Purchase(String note) {
      this.note = note;
    }

    Purchase() {}
  }

  @TableName("t_payment")
  static class Payment {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
    String note;

    Payment(String note) {
      this.note = note;
    }

    Payment() {}
  }

  @TableName("t_refund")
  static class Refund {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
    String note;

    Refund(String note) {
      this.note = note;
    }

    Refund() {}
  }

  @Mapper
  interface PurchaseMapper extends BaseMapper<Purchase> {}

  @Mapper
  interface PaymentMapper extends BaseMapper<Payment> {}

  @Mapper
  interface RefundMapper extends BaseMapper<Refund> {}

  static class PurchaseService extends ServiceImpl<PurchaseMapper, Purchase> {}

  static class PaymentService extends ServiceImpl<PaymentMapper, Payment> {}

  static class RefundService extends ServiceImpl<RefundMapper, Refund> {}

  @Configuration
  @MapperScan(basePackageClasses = AlternatingEntitiesBalanceTest.class, annotationClass = Mapper.class)
  static class Config {
    static final String DB = "gid_mybatis_alt_" + Long.toHexString(ThreadLocalRandom.current().nextLong());

    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL("jdbc:h2:mem:" + DB + ";DB_CLOSE_DELAY=-1");
      new JdbcTemplate(ds).execute("CREATE TABLE t_purchase (id BIGINT PRIMARY KEY, note VARCHAR(64));"
          + " CREATE TABLE t_payment (id BIGINT PRIMARY KEY, note VARCHAR(64));"
          + " CREATE TABLE t_refund (id BIGINT PRIMARY KEY, note VARCHAR(64))");
      return ds;
    }

    @Bean
    IdentifierGenerator identifierGenerator() {
      return new GeneIdentifierGenerator(GeneSnowflakeGenerator.builder().workerId(23).buildUnshared());
    }

    @Bean
    MybatisSqlSessionFactoryBean sqlSessionFactory(DataSource dataSource, IdentifierGenerator ids) {
      MybatisSqlSessionFactoryBean factory = new MybatisSqlSessionFactoryBean();
      factory.setDataSource(dataSource);
      GlobalConfig config = GlobalConfigUtils.defaults().setBanner(false);
      config.setIdentifierGenerator(ids);
      factory.setGlobalConfig(config);
      return factory;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    PurchaseService purchaseService() {
      return new PurchaseService();
    }

    @Bean
    PaymentService paymentService() {
      return new PaymentService();
    }

    @Bean
    RefundService refundService() {
      return new RefundService();
    }
  }

  private AnnotationConfigApplicationContext context;
  private JdbcTemplate jdbc;

  @BeforeAll
  void start() {
    context = new AnnotationConfigApplicationContext(Config.class);
    jdbc = new JdbcTemplate(context.getBean(DataSource.class));
  }

  @AfterAll
  void stop() {
    jdbc.execute("SHUTDOWN");
    context.close();
  }

  /** One entity type: its table, and saveBatch of a chunk of new entities. */
  private record Kind<T>(String table, ServiceImpl<?, T> service, Supplier<T> entity) {
    void saveChunk(int size) {
      List<T> chunk = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        chunk.add(entity.get());
      }
      assertThat(service.saveBatch(chunk)).isTrue();
    }
  }

  @ParameterizedTest(name = "{0} entity types in turn, saveBatch of {1}")
  @CsvSource({"2, 1", "2, 4", "3, 1", "3, 4"})
  void everyEntityTypeBalancesOnItsOwnWhenOneThreadSavesSeveralInTurn(int typeCount, int chunk) {
    jdbc.execute("DELETE FROM t_purchase; DELETE FROM t_payment; DELETE FROM t_refund");
    List<Kind<?>> kinds = List.of(
        new Kind<>("t_purchase", context.getBean(PurchaseService.class), () -> new Purchase("p")),
        new Kind<>("t_payment", context.getBean(PaymentService.class), () -> new Payment("p")),
        new Kind<>("t_refund", context.getBean(RefundService.class), () -> new Refund("r"))).subList(0, typeCount);
    for (int done = 0; done < ROWS; done += chunk) {
      for (Kind<?> kind : kinds) {
        kind.saveChunk(chunk);
      }
    }
    List<String> failures = new ArrayList<>();
    for (int shards : SHARDS) {
      int[] expected = IntStream.range(0, shards)
          .map(s -> ROWS / GENES * (int) IntStream.range(0, GENES).filter(g -> g % shards == s).count()).toArray();
      Map<String, int[]> counts = new LinkedHashMap<>();
      for (Kind<?> kind : kinds) {
        int[] perShard = new int[shards];
        for (Long id : jdbc.queryForList("SELECT id FROM " + kind.table(), Long.class)) {
          perShard[(int) ((id & (GENES - 1)) % shards)]++;
        }
        counts.put(kind.table(), perShard);
        if (!java.util.Arrays.equals(perShard, expected)) {
          failures.add(kind.table() + " over " + shards + " shards: " + describe(perShard));
        }
      }
      System.out.printf("issue 20: MyBatis-Plus, %d entity types in turn, saveBatch of %d, over %d shards, %d rows"
          + " each: %s (expected each %s)%n", typeCount, chunk, shards, ROWS, counts.entrySet().stream()
          .map(e -> e.getKey() + " " + describe(e.getValue())).collect(Collectors.joining(", ")), describe(expected));
    }
    assertThat(failures).as("entity types whose rows are not exactly balanced").isEmpty();
  }

  private static String describe(int[] perShard) {
    int max = IntStream.of(perShard).max().orElse(0);
    int min = IntStream.of(perShard).min().orElse(0);
    return IntStream.of(perShard).mapToObj(Integer::toString).collect(Collectors.joining("/", "[", "]"))
        + " max/min " + (min == 0 ? "inf" : String.format("%.2f", (double) max / min));
  }
}
