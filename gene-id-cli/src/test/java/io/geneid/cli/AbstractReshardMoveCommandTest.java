package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.jdbc.JdbcBucketMapStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture of the {@code reshard plan --count-rows}, {@code move}, {@code status} and {@code cleanup} tests, in this
 * JVM, on H2 in-memory databases: orders keyed by {@code id} (one table per database) and items keyed by
 * {@code order_id} (two tables per database, chosen by {@code GENE_MOD} with gene-divisor 2), gene-bits 3, grown from
 * 2 databases to 4.
 */
abstract class AbstractReshardMoveCommandTest {

  @TempDir
  Path dir;

  final String prefix = "rmc_" + Long.toString(System.nanoTime(), 36);
  final List<HikariDataSource> ds = new ArrayList<>();
  Path yaml;

  String url(String db) {
    return "jdbc:h2:mem:" + prefix + "_" + db + ";DB_CLOSE_DELAY=-1";
  }

  @BeforeEach
  void setUp() throws Exception {
    for (int i = 0; i < 4; i++) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url("ds_" + i));
      config.setUsername("sa"); // the user ds_0 and ds_1 of the YAML log in as
      config.setMaximumPoolSize(2);
      ds.add(new HikariDataSource(config));
      sql(i, "CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(32) NOT NULL)");
      sql(i, "CREATE TABLE t_item_0 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL)");
      sql(i, "CREATE TABLE t_item_1 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL)");
    }
    // 8 buckets (gene-bits 3); bucket b holds b + 1 orders, each with 2 items; GENE_MOD of 2: bucket b on ds_(b % 2)
    for (int b = 0; b < 8; b++) {
      for (long n = 1; n <= b + 1; n++) {
        long order = (n << 8) | b;
        sql(b % 2, "INSERT INTO t_order VALUES (" + order + ", 'c" + n + "')");
        for (long k = 0; k < 2; k++) {
          sql(b % 2, "INSERT INTO t_item_" + (b / 2) % 2 + " VALUES (" + ((order << 4) | k) + ", " + order + ")");
        }
      }
    }
    System.setProperty(prefix + "_PW", "");
    yaml = Files.writeString(dir.resolve("app.yaml"), """
        dataSources:
          ds_0: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s", username: sa, password: "$${%s_PW}"}
          ds_1: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s", username: sa, password: "$${UNSET_%s::}"}
          ds_2: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, url: "%s", user: sa}
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
            t_item:
              actualDataNodes: ds_${0..3}.t_item_${0..1}
              databaseStrategy:
                standard:
                  shardingColumn: order_id
                  shardingAlgorithmName: gene_db
              tableStrategy:
                standard:
                  shardingColumn: order_id
                  shardingAlgorithmName: gene_table
            t_other:
              actualDataNodes: ds_0.t_other
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
        """.formatted(url("ds_0"), prefix, url("ds_1"), prefix, url("ds_2"), url("ds_3")));
  }

  @AfterEach
  void tearDown() {
    System.clearProperty(prefix + "_PW");
    ds.forEach(HikariDataSource::close);
  }

  String[] args(String command, String... more) {
    List<String> all = new ArrayList<>(List.of("reshard", command, "--config", yaml.toString(), "--algorithm",
        "gene_db", "--map-store-url", url("store"), "--map-name", "orders"));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }




  static HikariConfig hikari(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("sa");
    return config;
  }


  void sql(int i, String sql) throws Exception {
    try (Connection c = ds.get(i).getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  long count(int i, String table, String column, int bucket) throws Exception {
    try (Connection c = ds.get(i).getConnection();
         PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE MOD(" + column
             + ", 8) = ?")) {
      ps.setInt(1, bucket);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
