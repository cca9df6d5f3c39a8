package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #29: the README's autoTables setup (GENE_MOD_AUTO, 4 tables over 2 databases, items by a complex strategy on
 * {@code id,order_id}) can grow. {@code gene-id reshard} on that YAML prints the tables rules that route every id
 * where GENE_MOD_AUTO does; through real ShardingSphere DataSources on H2, rows written with the autoTables YAML are
 * all found, once each, with the written rules; the CLI then moves the family from 2 databases to 4, and the rows
 * are all found again with the new map. Subclasses run it on H2, MariaDB and PostgreSQL.
 */
abstract class AbstractReshardAutoTablesTest {

  /** The JDBC URL of database {@code db} of this run. */
  abstract String url(String db);

  /** The user of {@code url}. */
  abstract String user();

  /** Creates database {@code db} (H2: nothing to do). */
  abstract void create(String db) throws Exception;

  /** Drops database {@code db}. */
  abstract void drop(String db) throws Exception;


  @TempDir
  Path dir;

  final String prefix = "rat_" + Long.toString(System.nanoTime(), 36);
  private final List<HikariDataSource> ds = new ArrayList<>();
  private final List<AutoCloseable> sharded = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    for (int i = 0; i < 4; i++) {
      create("ds_" + i);
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url("ds_" + i));
      config.setUsername(user());
      config.setMaximumPoolSize(2);
      ds.add(new HikariDataSource(config));
      for (int t = i % 2; t < 4; t += 2) { // where ShardingSphere puts auto table t: ds_(t % 2); the same on ds_2, 3
        sql(i, "CREATE TABLE t_order_" + t + " (id BIGINT PRIMARY KEY, customer VARCHAR(32) NOT NULL)");
        sql(i, "CREATE TABLE t_item_" + t + " (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, name VARCHAR(32))");
      }
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : sharded) {
      c.close();
    }
    ds.forEach(HikariDataSource::close);
    for (int i = 0; i < 4; i++) {
      drop("ds_" + i);
    }
  }

  private String dataSources(int count) {
    StringBuilder b = new StringBuilder("dataSources:\n");
    for (int i = 0; i < count; i++) {
      b.append("  ds_").append(i).append(": {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: \"")
          .append(url("ds_" + i)).append("\", username: ").append(user()).append(", password: ''}\n");
    }
    return b.toString();
  }

  private static final String KEY_GENERATORS = """
        keyGenerators:
          gene_ids:
            type: GENE_SNOWFLAKE
            props:
              worker-id: "1"
      """;

  private String autoTablesYaml() {
    return dataSources(2) + """
        rules:
        - !SHARDING
          autoTables:
            t_order:
              actualDataSources: ds_0,ds_1
              shardingStrategy:
                standard:
                  shardingColumn: id
                  shardingAlgorithmName: gene_auto
              keyGenerateStrategy:
                column: id
                keyGeneratorName: gene_ids
            t_item:
              actualDataSources: ds_0,ds_1
              shardingStrategy:
                complex:
                  shardingColumns: id,order_id
                  shardingAlgorithmName: gene_auto
              keyGenerateStrategy:
                column: id
                keyGeneratorName: gene_ids
          shardingAlgorithms:
            gene_auto:
              type: GENE_MOD_AUTO
              props:
                sharding-count: 4
        """ + KEY_GENERATORS;
  }

  @Test
  void theReadmesAutoTablesSetupGrowsThroughTheTablesRulesReshardWrites() throws Exception {
    Path auto = Files.writeString(dir.resolve("auto.yaml"), autoTablesYaml());
    DataSource before = shardingSphere(autoTablesYaml());
    Map<Long, List<Long>> written = new TreeMap<>();
    try (Connection c = before.getConnection()) {
      for (int n = 0; n < 64; n++) {
        long order = insert(c, "INSERT INTO t_order (customer) VALUES ('c" + n + "')");
        List<Long> items = new ArrayList<>();
        try (var scope = GeneContext.inherit(order)) {
          for (int k = 0; k < 2; k++) {
            items.add(insert(c, "INSERT INTO t_item (order_id, name) VALUES (" + order + ", 'i')"));
          }
        }
        written.put(order, items);
      }
    }

    CliRun plan = CliRun.of("reshard", "plan", "--config", auto.toString(), "--algorithm", "gene_auto", "--to", "4");
    assertThat(plan.status()).as(plan.out() + plan.err()).isEqualTo(2);
    assertThat(plan.err()).as(plan.err()).contains("  tables:\n");
    String rules = plan.err().substring(plan.err().indexOf("  tables:\n"));
    assertThat(rules).startsWith("""
          tables:
            t_order:
              actualDataNodes: 'ds_0.t_order_${[0,2]},ds_1.t_order_${[1,3]}'
              databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: gene_auto_db}}
              tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: gene_auto_table}}
              keyGenerateStrategy: {column: id, keyGeneratorName: gene_ids}
              auditStrategy: {auditorNames: [gene_freeze], allowHintDisable: false}
            t_item:
              actualDataNodes: 'ds_0.t_item_${[0,2]},ds_1.t_item_${[1,3]}'
              databaseStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: gene_auto_db}}
              tableStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: gene_auto_table}}
              keyGenerateStrategy: {column: id, keyGeneratorName: gene_ids}
              auditStrategy: {auditorNames: [gene_freeze], allowHintDisable: false}
          shardingAlgorithms:
            gene_auto_db: {type: GENE_BUCKET, props: {sharding-count: 2}}
            gene_auto_table: {type: GENE_MOD, props: {sharding-count: 4}}
          auditors:
            gene_freeze: {type: GENE_BUCKET_FREEZE}
        """);
    rules = rules.substring(0, rules.indexOf("    gene_freeze: {type: GENE_BUCKET_FREEZE}\n")
        + "    gene_freeze: {type: GENE_BUCKET_FREEZE}\n".length());
    String tablesYaml = dataSources(2) + "rules:\n- !SHARDING\n" + rules + KEY_GENERATORS;
    assertFound(shardingSphere(tablesYaml), written, "with the tables rules, before any move");

    // grow: the new databases and their tables in the YAML (the operator's step), then reshard move
    String grown = dataSources(4) + "rules:\n- !SHARDING\n" + rules
        .replace("ds_1.t_order_${[1,3]}'", "ds_1.t_order_${[1,3]},ds_2.t_order_${[0,2]},ds_3.t_order_${[1,3]}'")
        .replace("ds_1.t_item_${[1,3]}'", "ds_1.t_item_${[1,3]},ds_2.t_item_${[0,2]},ds_3.t_item_${[1,3]}'")
        + KEY_GENERATORS;
    Path grownFile = Files.writeString(dir.resolve("grown.yaml"), grown);
    CliRun move = CliRun.of("reshard", "move", "--config", grownFile.toString(), "--algorithm", "gene_auto_db",
        "--map-store-url", "jdbc:h2:mem:" + prefix + "_store;DB_CLOSE_DELAY=-1", "--map-name", "orders", "--to", "4",
        "--settle", "0ms");
    assertThat(move.status()).as(move.out() + move.err()).isZero();
    assertThat(move.out()).contains("family                     t_order (key id, table GENE_MOD 'gene_auto_table'),"
        + " t_item (key id, table GENE_MOD 'gene_auto_table')\n").contains("32 buckets moved");
    String map = move.out().substring(move.out().indexOf("bucket-map: \"") + 13);
    map = map.substring(0, map.indexOf('"'));
    assertThat(map).isEqualTo("0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4");
    assertFound(shardingSphere(grown.replace("gene_auto_db: {type: GENE_BUCKET, props: {sharding-count: 2}}",
        "gene_auto_db: {type: GENE_BUCKET, props: {bucket-map: '" + map + "'}}")), written, "after the move");
    for (long order : written.keySet()) {
      int bucket = (int) (order & 63);
      assertThat(count(bucket % 4, "t_order_" + bucket % 4, order)).as("order %d of bucket %d on ds_%d", order,
          bucket, bucket % 4).isEqualTo(1);
    }
  }

  private void assertFound(DataSource tables, Map<Long, List<Long>> written, String when) throws Exception {
    try (Connection c = tables.getConnection()) {
      for (Map.Entry<Long, List<Long>> e : written.entrySet()) {
        assertThat(single(c, "SELECT COUNT(*) FROM t_order WHERE id = " + e.getKey())).as("order %d %s", e.getKey(),
            when).isEqualTo(1);
        assertThat(single(c, "SELECT COUNT(*) FROM t_item WHERE order_id = " + e.getKey())).as("items of %d %s",
            e.getKey(), when).isEqualTo(2);
        for (long item : e.getValue()) {
          assertThat(single(c, "SELECT COUNT(*) FROM t_item WHERE id = " + item)).as("item %d %s", item, when)
              .isEqualTo(1);
        }
      }
    }
  }

  private DataSource shardingSphere(String yaml) throws Exception {
    DataSource result = YamlShardingSphereDataSourceFactory.createDataSource(yaml.getBytes(StandardCharsets.UTF_8));
    sharded.add((AutoCloseable) result);
    return result;
  }

  private static long insert(Connection c, String sql) throws Exception {
    try (PreparedStatement ps = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        keys.next();
        return keys.getLong(1);
      }
    }
  }

  private static long single(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      long total = 0;
      while (rs.next()) {
        total += rs.getLong(1);
      }
      return total;
    }
  }

  private void sql(int i, String sql) throws Exception {
    try (Connection c = ds.get(i).getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private long count(int i, String table, long id) throws Exception {
    try (Connection c = ds.get(i).getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE id = " + id)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
