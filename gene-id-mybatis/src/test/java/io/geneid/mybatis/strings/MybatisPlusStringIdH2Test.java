package io.geneid.mybatis.strings;

import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.batch.MybatisBatch;
import com.baomidou.mybatisplus.core.config.GlobalConfig;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import com.baomidou.mybatisplus.extension.spring.MybatisSqlSessionFactoryBean;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.GeneSource;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.mybatis.GeneStringIdentifierGenerator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.session.SqlSessionFactory;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * MyBatis-Plus 3.5.16 on H2: {@code IdType.ASSIGN_ID} String id properties get gene string ids
 * ({@code ORD<yyyyMMdd><13 digits>}), a string child of a string parent and a numeric child of a string parent carry
 * the parent's gene, on insert(T), insert(Collection) and MybatisBatch.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MybatisPlusStringIdH2Test {

  static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  static final GeneIdStringFormat ORD = GeneIdStringFormat.builder().prefix("ORD").date(LAYOUT).build();

  @TableName("s_order")
  static class StringOrder {
    @TableId(type = IdType.ASSIGN_ID)
    String id;
    String customer;

    StringOrder(String customer) {
      this.customer = customer;
    }

    StringOrder() {}
  }

  /** A string child of a string parent. */
  @TableName("s_line")
  static class StringLine {
    @TableId(type = IdType.ASSIGN_ID)
    String id;
    @GeneSource
    String orderId;

    StringLine(String orderId) {
      this.orderId = orderId;
    }

    StringLine() {}
  }

  /** A numeric child of a string parent. */
  @TableName("n_line")
  static class NumericLine {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
    @GeneSource
    String orderId;

    NumericLine(String orderId) {
      this.orderId = orderId;
    }

    NumericLine() {}
  }

  @Mapper
  interface StringOrderMapper extends BaseMapper<StringOrder> {}

  @Mapper
  interface StringLineMapper extends BaseMapper<StringLine> {}

  @Mapper
  interface NumericLineMapper extends BaseMapper<NumericLine> {}

  @Configuration
  @MapperScan(basePackageClasses = MybatisPlusStringIdH2Test.class, annotationClass = Mapper.class)
  static class Config {
    static final String DB = "gid_mybatis_strings_" + Long.toHexString(ThreadLocalRandom.current().nextLong());

    @Bean
    DataSource dataSource() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL("jdbc:h2:mem:" + DB + ";DB_CLOSE_DELAY=-1");
      new JdbcTemplate(ds).execute("""
          CREATE TABLE s_order (id VARCHAR(24) PRIMARY KEY, customer VARCHAR(64) NOT NULL);
          CREATE TABLE s_line (id VARCHAR(24) PRIMARY KEY, order_id VARCHAR(24) NOT NULL);
          CREATE TABLE n_line (id BIGINT PRIMARY KEY, order_id VARCHAR(24) NOT NULL);
          """);
      return ds;
    }

    @Bean
    IdentifierGenerator identifierGenerator() {
      return new GeneStringIdentifierGenerator(GeneSnowflakeGenerator.builder().workerId(18).buildUnshared(), ORD);
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

  @Test
  void stringIdsOfOneFamilyCarryTheParentsGeneOnEveryInsertPath() {
    StringOrderMapper orders = context.getBean(StringOrderMapper.class);
    List<StringOrder> parents = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      StringOrder o = new StringOrder("c-" + i);
      assertThat(orders.insert(o)).isEqualTo(1);
      parents.add(o);
    }
    assertThat(parents).allSatisfy(o -> assertThat(ORD.matches(o.id)).as(o.id).isTrue());
    assertThat(parents).extracting(o -> ORD.parse(o.id) & 63).doesNotHaveDuplicates(); // roots spread

    List<StringLine> lines = new ArrayList<>();
    List<NumericLine> numeric = new ArrayList<>();
    for (StringOrder o : parents) {
      for (int k = 0; k < 5; k++) {
        lines.add(new StringLine(o.id));
        numeric.add(new NumericLine(o.id));
      }
    }
    StringLineMapper lineMapper = context.getBean(StringLineMapper.class);
    lineMapper.insert(lines.get(0));
    lineMapper.insert(lines.subList(1, 20)); // insert(Collection)
    new MybatisBatch<>(context.getBean(SqlSessionFactory.class), lines.subList(20, lines.size()), 16)
        .execute(new MybatisBatch.Method<StringLine>(StringLineMapper.class).insert());
    context.getBean(NumericLineMapper.class).insert(numeric);

    Map<String, String> stored = new HashMap<>();
    jdbc.query("SELECT id, order_id FROM s_line", rs -> {
      stored.put(rs.getString(1), rs.getString(2));
    });
    assertThat(stored).hasSize(lines.size());
    for (StringLine l : lines) {
      assertThat(ORD.matches(l.id)).as(l.id).isTrue();
      assertThat(stored).containsEntry(l.id, l.orderId);
      assertThat(ORD.parse(l.id) & 63).as("line %s of %s", l.id, l.orderId).isEqualTo(ORD.parse(l.orderId) & 63);
      assertThat(LAYOUT.decode(ORD.parse(l.id)).workerId()).isEqualTo(18);
    }
    Map<Long, String> storedNumeric = new HashMap<>();
    jdbc.query("SELECT id, order_id FROM n_line", rs -> {
      storedNumeric.put(rs.getLong(1), rs.getString(2));
    });
    for (NumericLine l : numeric) {
      assertThat(storedNumeric).containsEntry(l.id, l.orderId);
      assertThat(l.id & 63).isEqualTo(ORD.parse(l.orderId) & 63);
    }
  }
}
