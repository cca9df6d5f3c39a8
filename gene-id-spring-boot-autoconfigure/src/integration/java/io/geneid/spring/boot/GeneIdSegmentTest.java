package io.geneid.spring.boot;

import io.geneid.core.GeneIdException;
import static io.geneid.spring.boot.StartupFailures.failsWith;
import static io.geneid.spring.boot.StartupFailures.invalidProperty;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.redis.TestRedis;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code gene-id.segment.*}: segment generators per tag on H2 (the application's DataSource) and on Redis. */
class GeneIdSegmentTest {

  private static TestRedis redis;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class,
          GeneIdMybatisPlusAutoConfiguration.class))
      .withPropertyValues("gene-id.worker-assigner=none");

  @BeforeAll
  static void connect() {
    redis = new TestRedis("starter");
  }

  @AfterAll
  static void disconnect() {
    redis.close();
  }

  private static String h2Url() {
    return "jdbc:h2:mem:gid_starter_seg_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        + ";DB_CLOSE_DELAY=-1";
  }

  private ApplicationContextRunner h2(String url) {
    return runner.withConfiguration(AutoConfigurations.of(BootLine.dataSourceAutoConfiguration()))
        .withPropertyValues("spring.datasource.url=" + url, "gene-id.segment.store=jdbc",
            "gene-id.jdbc.create-tables=true");
  }

  private static Map<String, Long> maxIds(String url) throws SQLException {
    Map<String, Long> rows = new HashMap<>();
    try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT biz_tag, max_id FROM gene_id_segment")) {
      while (rs.next()) {
        rows.put(rs.getString(1), rs.getLong(2));
      }
    }
    return rows;
  }

  @Test
  void jdbcGeneratorsPerTagOnTheApplicationsDataSource() throws SQLException {
    String url = h2Url();
    AtomicReference<GeneSegmentGenerators> bean = new AtomicReference<>();
    h2(url).withPropertyValues("gene-id.segment.tags=order, item", "gene-id.segment.min-step=100",
        "gene-id.segment.max-step=5000", "gene-id.segment.per-tag.item.min-step=10",
        "gene-id.segment.per-tag.item.max-step=10").run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(GeneSegmentGenerators.class)
              .doesNotHaveBean(GeneIdGenerator.class);
          GeneSegmentGenerators segments = context.getBean(GeneSegmentGenerators.class);
          bean.set(segments);
          assertThat(segments.tags()).containsExactly("order", "item");
          GeneSegmentGenerator orders = segments.forTag("order");
          GeneSegmentGenerator items = segments.forTag("item");
          assertThat(orders.bizTag()).isEqualTo("order");
          assertThat(orders.geneBits()).isEqualTo(6);
          long order = orders.nextId();
          assertThat(orders.valueOf(order)).isEqualTo(1); // the first value of the first segment [1, 100]
          long next = orders.nextId();
          assertThat(next).isGreaterThan(order);
          long item = items.nextIdFor(order);
          assertThat(items.getGene(item)).isEqualTo(orders.getGene(order));
          try (var scope = GeneContext.inherit(order)) {
            assertThat(items.getGene(items.nextId())).isEqualTo(orders.getGene(order));
          }
          for (int i = 0; i < 25; i++) {
            items.nextId(); // 27 values: the item tag's fixed step of 10 makes it fetch a third segment
          }
          assertThat(items.status().step()).isEqualTo(10);
          Map<String, Long> rows = maxIds(url);
          assertThat(rows).containsEntry("order", 100L);
          // segments of 10: [1, 10], [11, 20], [21, 30] in use, and more fetched ahead in the background (used up
          // faster than a fetch takes, a step of 10 makes the generator keep several ready)
          assertThat(rows.get("item")).isGreaterThanOrEqualTo(30L).matches(max -> max % 10 == 0, "whole segments");
          assertThatThrownBy(() -> segments.forTag("invoice")).isInstanceOf(IllegalArgumentException.class)
              .hasMessage("no segment generator for tag 'invoice': gene-id.segment.tags are [order, item]");
        });
    // closed with the context
    assertThatThrownBy(() -> bean.get().forTag("order").nextId()).isInstanceOf(GeneIdException.class)
        .hasMessage("the GeneSegmentGenerator of tag 'order' is closed: it issues no ids");
    // a restart continues above every value handed out before
    h2(url).withPropertyValues("gene-id.segment.tags=order").run(context -> {
      GeneSegmentGenerator orders = context.getBean(GeneSegmentGenerators.class).forTag("order");
      assertThat(orders.valueOf(orders.nextId())).isEqualTo(101);
    });
  }

  @Test
  void redisGeneratorsPerTag() {
    AtomicReference<GeneSegmentGenerators> bean = new AtomicReference<>();
    runner.withPropertyValues("gene-id.segment.store=redis", "gene-id.redis.uri=" + TestRedis.URI,
        "gene-id.redis.segment-key-prefix=" + redis.prefix, "gene-id.segment.tags=order,item",
        "gene-id.redis.segment-allow-without-persistence=true", // the shared CI Redis keeps nothing on disk
        "gene-id.segment.min-step=50", "gene-id.gene-bits=4", "gene-id.timestamp-bits=43").run(context -> {
          assertThat(context).hasNotFailed();
          GeneSegmentGenerators segments = context.getBean(GeneSegmentGenerators.class);
          bean.set(segments);
          GeneSegmentGenerator orders = segments.forTag("order");
          assertThat(orders.geneBits()).isEqualTo(4);
          long order = orders.nextId();
          assertThat(orders.valueOf(order)).isEqualTo(1);
          long item = segments.forTag("item").nextIdFor(order);
          assertThat(item & 15).isEqualTo(order & 15);
          assertThat(redis.redis().get(redis.segmentKey("order"))).isEqualTo("50");
          assertThat(redis.redis().get(redis.segmentKey("item"))).isEqualTo("50");
        });
    assertThatThrownBy(() -> bean.get().forTag("item").nextId()).isInstanceOf(GeneIdException.class);
  }

  @Test
  void segmentModeBesideTheSnowflakeGenerator() {
    h2(h2Url()).withPropertyValues("gene-id.worker-assigner=static", "gene-id.worker-id=77",
        "gene-id.segment.tags=order").run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(GeneSnowflakeGenerator.class)
              .hasSingleBean(GeneSegmentGenerators.class);
          // the segment generators are no GeneIdGenerator beans: MyBatis-Plus still finds exactly one
          assertThat(context.getBean(GeneIdGenerator.class)).isSameAs(context.getBean(GeneSnowflakeGenerator.class));
        });
  }


  @Test
  void badSegmentSettingsNameTheProperty() {
    ApplicationContextRunner h2 = h2(h2Url());
    h2.run(failsWith("gene-id.segment.tags must name at least one business tag (e.g. order, item) when"
        + " gene-id.segment.store is set"));
    h2.withPropertyValues("gene-id.segment.tags=order,order")
        .run(failsWith("gene-id.segment.tags must hold distinct, non-empty tags but was [order, order]"));
    h2.withPropertyValues("gene-id.segment.tags=order", "gene-id.segment.per-tag.item.min-step=5")
        .run(failsWith("gene-id.segment.per-tag.item names a tag that is not in gene-id.segment.tags [order]"));
    h2.withPropertyValues("gene-id.segment.tags=order", "gene-id.segment.min-step=0")
        .run(failsWith("gene-id.segment.min-step must be in [1, 1000000000] but was 0"));
    h2.withPropertyValues("gene-id.segment.tags=order", "gene-id.segment.per-tag.order.max-step=10")
        .run(failsWith("gene-id.segment.per-tag.order.max-step must be in [1000, 1000000000] but was 10"));
    h2.withPropertyValues("gene-id.segment.tags=order", "gene-id.segment.prefetch-ratio=0.95")
        .run(failsWith("gene-id.segment.prefetch-ratio must be in [0.0, 0.9] but was 0.95"));
    h2.withPropertyValues("gene-id.segment.tags=order", "gene-id.jdbc.segment-table=bad-name")
        .run(context -> assertThat(invalidProperty(context)).hasMessageStartingWith("gene-id.jdbc.segment-table"));
    runner.withPropertyValues("gene-id.segment.store=redis", "gene-id.segment.tags=order")
        .run(failsWith("gene-id.segment.store=redis needs gene-id.redis.uri, e.g. redis://127.0.0.1:6379/0"));
    runner.withPropertyValues("gene-id.segment.store=redis", "gene-id.segment.tags=order",
        "gene-id.redis.uri=" + TestRedis.URI, "gene-id.redis.timeout=5ms")
        .run(failsWith("gene-id.redis.timeout must be in [10ms, 60000ms] but was 5ms"));
    runner.withPropertyValues("gene-id.segment.store=redis", "gene-id.segment.tags=order",
        "gene-id.redis.uri=" + TestRedis.URI, "gene-id.redis.segment-key-prefix=")
        .run(failsWith("gene-id.redis.segment-key-prefix must be non-empty and free of { } but was ''"));
    runner.withPropertyValues("gene-id.segment.store=redis", "gene-id.segment.tags=order",
        "gene-id.redis.uri=redis://127.0.0.1:6379/zero")
        .run(context -> assertThat(invalidProperty(context)).hasMessageStartingWith("gene-id.redis.uri must be a Redis"
            + " URI such as redis://127.0.0.1:6379/0"));
    runner.withPropertyValues("gene-id.segment.store=jdbc", "gene-id.segment.tags=order")
        .run(failsWith("gene-id.segment.store=jdbc needs gene-id.jdbc.url or one DataSource bean (found none, or"
            + " several and none @Primary)"));
    runner.withClassLoader(new FilteredClassLoader("io.geneid.redis"))
        .withPropertyValues("gene-id.segment.store=redis", "gene-id.segment.tags=order")
        .run(failsWith("gene-id.segment.store=redis needs io.geneid:gene-id-redis on the class path: add the"
            + " dependency io.geneid:gene-id-redis"));
  }
}
