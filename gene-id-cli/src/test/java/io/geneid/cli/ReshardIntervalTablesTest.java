package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #43: resharding a family whose tables are month tables ({@code GENE_BUCKET} at the database level,
 * {@code GENE_INTERVAL} at the table level): {@code reshard move} takes every month table of every logic table into
 * the family, and a bucket's rows of every month move together. On H2, gene-bits 3, from 2 databases to 4.
 */
class ReshardIntervalTablesTest {

  private static final List<String> MONTHS = List.of("202611", "202612");
  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults().toBuilder().workerBits(11).geneBits(3).build();

  @TempDir
  Path dir;

  private final String prefix = "rit_" + Long.toString(System.nanoTime(), 36);
  private final List<HikariDataSource> ds = new ArrayList<>();
  private Path yaml;

  private String url(String db) {
    return "jdbc:h2:mem:" + prefix + "_" + db + ";DB_CLOSE_DELAY=-1";
  }

  /** The n-th id of bucket b issued at {@code instant}. */
  private static long id(String instant, long n, int b) {
    return LAYOUT.firstIdAt(Instant.parse(instant)) | (n << 3) | b;
  }

  @BeforeEach
  void setUp() throws Exception {
    for (int i = 0; i < 4; i++) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url("ds_" + i));
      config.setUsername("sa");
      config.setMaximumPoolSize(2);
      ds.add(new HikariDataSource(config));
      for (String month : MONTHS) {
        sql(i, "CREATE TABLE t_order_" + month + " (id BIGINT PRIMARY KEY, customer VARCHAR(32) NOT NULL)");
        sql(i, "CREATE TABLE t_item_" + month + " (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL)");
      }
    }
    // bucket b: b + 1 orders at the end of November, each with an item in November and two in December
    for (int b = 0; b < 8; b++) {
      for (long n = 1; n <= b + 1; n++) {
        long order = id("2026-11-30T23:00:00Z", n, b);
        sql(b % 2, "INSERT INTO t_order_202611 VALUES (" + order + ", 'c" + n + "')");
        sql(b % 2, "INSERT INTO t_item_202611 VALUES (" + id("2026-11-30T23:30:00Z", n, b) + ", " + order + ")");
        sql(b % 2, "INSERT INTO t_item_202612 VALUES (" + id("2026-12-01T00:30:00Z", n, b) + ", " + order + ")");
        sql(b % 2, "INSERT INTO t_item_202612 VALUES (" + id("2026-12-02T00:30:00Z", n, b) + ", " + order + ")");
      }
    }
    yaml = Files.writeString(dir.resolve("app.yaml"), """
        dataSources:
          ds_0: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s", username: sa}
          ds_1: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s", username: sa}
          ds_2: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s", username: sa}
          ds_3: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s", username: sa}
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_${0..3}.t_order_${[202611, 202612]}
              databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_gene}}
              tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_month}}
              keyGenerateStrategy: {column: id, keyGeneratorName: gene_ids}
            t_item:
              actualDataNodes: ds_${0..3}.t_item_${[202611, 202612]}
              databaseStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_gene}}
              tableStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_month}}
              keyGenerateStrategy: {column: id, keyGeneratorName: gene_ids}
          shardingAlgorithms:
            by_gene:
              type: GENE_BUCKET
              props: {sharding-count: 2, gene-bits: 3}
            by_month:
              type: GENE_INTERVAL
              props:
                datetime-lower: '2026-11-01 00:00:00'
                datetime-interval-unit: MONTHS
                parent-columns: order_id
                worker-bits: 11
                gene-bits: 3
          keyGenerators:
            gene_ids:
              type: GENE_SNOWFLAKE
              props: {worker-id: '1', worker-bits: 11, gene-bits: 3}
        """.formatted(url("ds_0"), url("ds_1"), url("ds_2"), url("ds_3")));
  }

  @AfterEach
  void tearDown() {
    ds.forEach(HikariDataSource::close);
  }

  @Test
  void everyMonthTableOfABucketMovesWithIt() throws Exception {
    CliRun move = CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "by_gene",
        "--map-store-url", url("store"), "--map-name", "orders", "--to", "4", "--settle", "0ms", "--batch-size", "2");
    assertThat(move.status()).as(move.out() + move.err()).isZero();
    assertThat(move.out())
        .contains("family                     t_order_202611 (key id, table GENE_INTERVAL 'by_month'), t_order_202612"
            + " (key id, table GENE_INTERVAL 'by_month'), t_item_202611 (key id, table GENE_INTERVAL 'by_month'),"
            + " t_item_202612 (key id, table GENE_INTERVAL 'by_month')\n")
        .contains("done                       4 buckets moved, 88 rows copied"); // buckets 2, 3, 6, 7: 22 orders
    for (int b = 0; b < 8; b++) {
      int on = b % 4;
      assertThat(count(on, "t_order_202611", "id", b)).as("orders of bucket %d on ds_%d", b, on).isEqualTo(b + 1);
      assertThat(count(on, "t_item_202611", "id", b)).as("November items of bucket %d", b).isEqualTo(b + 1);
      assertThat(count(on, "t_item_202612", "id", b)).as("December items of bucket %d", b).isEqualTo(2L * (b + 1));
    }
    CliRun cleanup = CliRun.of("reshard", "cleanup", "--config", yaml.toString(), "--algorithm", "by_gene",
        "--map-store-url", url("store"), "--map-name", "orders");
    assertThat(cleanup.status()).as(cleanup.out() + cleanup.err()).isZero();
    for (int b = 2; b < 8; b += 4) {
      for (int moved : List.of(b, b + 1)) {
        int old = moved % 2;
        for (String table : List.of("t_order_202611", "t_item_202611", "t_item_202612")) {
          assertThat(count(old, table, "id", moved)).as("%s of bucket %d left on ds_%d", table, moved, old).isZero();
        }
      }
    }
  }

  private void sql(int i, String sql) throws Exception {
    try (Connection c = ds.get(i).getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private long count(int i, String table, String column, int bucket) throws Exception {
    try (Connection c = ds.get(i).getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE MOD(" + column + ", 8) = "
            + bucket)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
