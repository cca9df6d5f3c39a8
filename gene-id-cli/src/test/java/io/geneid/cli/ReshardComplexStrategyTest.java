package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #29: {@code reshard move} reads the application's own YAML in the form docs/shardingsphere.md recommends for
 * {@code tables}: items routed by a complex strategy on {@code id,order_id} at both levels (an item by its own id or
 * its order's, both carrying the order's gene). The mover keys items by the generated key column {@code id}. On H2,
 * gene-bits 3, grown from 2 databases to 4.
 */
class ReshardComplexStrategyTest {

  @TempDir
  Path dir;

  private final String prefix = "rcs_" + Long.toString(System.nanoTime(), 36);
  private final List<HikariDataSource> ds = new ArrayList<>();
  private Path yaml;

  private String url(String db) {
    return "jdbc:h2:mem:" + prefix + "_" + db + ";DB_CLOSE_DELAY=-1";
  }

  @BeforeEach
  void setUp() throws Exception {
    for (int i = 0; i < 4; i++) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url("ds_" + i));
      config.setUsername("sa");
      config.setMaximumPoolSize(2);
      ds.add(new HikariDataSource(config));
      sql(i, "CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(32) NOT NULL)");
      sql(i, "CREATE TABLE t_item_0 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL)");
      sql(i, "CREATE TABLE t_item_1 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL)");
    }
    // 8 buckets; bucket b holds b + 1 orders with 3 items each, every item id carrying its order's gene
    for (int b = 0; b < 8; b++) {
      for (long n = 1; n <= b + 1; n++) {
        long order = (n << 8) | b;
        sql(b % 2, "INSERT INTO t_order VALUES (" + order + ", 'c" + n + "')");
        for (long k = 0; k < 3; k++) {
          long item = (((n << 4) | k) << 8) | b;
          sql(b % 2, "INSERT INTO t_item_" + (b / 2) % 2 + " VALUES (" + item + ", " + order + ")");
        }
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
              actualDataNodes: ds_${0..3}.t_order
              databaseStrategy:
                standard:
                  shardingColumn: id
                  shardingAlgorithmName: gene_db
              keyGenerateStrategy:
                column: id
                keyGeneratorName: gene_ids
            t_item:
              actualDataNodes: ds_${0..3}.t_item_${0..1}
              databaseStrategy:
                complex:
                  shardingColumns: order_id,id
                  shardingAlgorithmName: gene_db
              tableStrategy:
                complex:
                  shardingColumns: order_id,id
                  shardingAlgorithmName: gene_table
              keyGenerateStrategy:
                column: id
                keyGeneratorName: gene_ids
          shardingAlgorithms:
            gene_db:
              type: GENE_BUCKET
              props:
                sharding-count: 2
                gene-bits: 3
            gene_table:
              type: GENE_MOD
              props:
                sharding-count: 2
                gene-divisor: 2
                gene-bits: 3
          keyGenerators:
            gene_ids:
              type: GENE_SNOWFLAKE
              props:
                worker-id: "1"
                gene-bits: 3
        """.formatted(url("ds_0"), url("ds_1"), url("ds_2"), url("ds_3")));
  }

  @AfterEach
  void tearDown() {
    ds.forEach(HikariDataSource::close);
  }

  @Test
  void movesAFamilyWhoseItemsUseTheComplexIdOrderIdStrategy() throws Exception {
    CliRun move = CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db",
        "--map-store-url", url("store"), "--map-name", "orders", "--to", "4", "--settle", "0ms", "--batch-size", "2");
    assertThat(move.status()).as(move.out() + move.err()).isZero();
    assertThat(move.out())
        .contains("family                     t_order (key id, table t_order), t_item (key id, table GENE_MOD"
            + " 'gene_table')\n")
        .contains("done                       4 buckets moved, 88 rows copied");
    for (int b = 0; b < 8; b++) {
      int on = b % 4;
      assertThat(count(on, "t_order", "id", b)).as("orders of bucket %d on ds_%d", b, on).isEqualTo(b + 1);
      assertThat(count(on, "t_item_" + (b / 2) % 2, "order_id", b)).as("items of bucket %d", b)
          .isEqualTo(3L * (b + 1));
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
