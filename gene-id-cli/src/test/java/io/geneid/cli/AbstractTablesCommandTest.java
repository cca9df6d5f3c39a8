package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdLayout;
import io.geneid.shardingsphere.GeneShardingCheck;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #43: {@code gene-id tables} prints the DDL of the current month and the next ones for every data node of a
 * GENE_INTERVAL table, creates them with {@code --create} (leaving those that exist), and prints the
 * {@code actualDataNodes} that list them; ShardingSphere started with that line writes a row of the new month, and
 * the start-up check stops warning. Subclasses run it on H2, MariaDB and PostgreSQL.
 */
abstract class AbstractTablesCommandTest {

  abstract String url(String db);

  abstract String user();

  abstract void create(String db) throws Exception;

  abstract void drop(String db) throws Exception;

  @TempDir
  Path dir;

  final String prefix = "gid_iv_" + Long.toString(System.nanoTime(), 36);

  @BeforeEach
  void setUp() throws Exception {
    for (int i = 0; i < 2; i++) {
      create("ds_" + i);
      sql(i, "CREATE TABLE t_order_202611 (id BIGINT PRIMARY KEY, customer VARCHAR(32) NOT NULL)");
      sql(i, "CREATE TABLE t_item_202611 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, name VARCHAR(32))");
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = 0; i < 2; i++) {
      drop("ds_" + i);
    }
  }

  private void sql(int db, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url("ds_" + db), user(), "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private boolean exists(int db, String table) throws Exception {
    try (Connection c = DriverManager.getConnection(url("ds_" + db), user(), "")) {
      for (String name : List.of(table, table.toUpperCase(java.util.Locale.ROOT))) {
        try (ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, name, null)) {
          if (rs.next()) {
            return true;
          }
        }
      }
      return false;
    }
  }

  String yaml(String months) {
    StringBuilder b = new StringBuilder("dataSources:\n");
    for (int i = 0; i < 2; i++) {
      b.append("  ds_").append(i).append(": {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: \"")
          .append(url("ds_" + i)).append("\", username: ").append(user()).append(", password: ''}\n");
    }
    return b + """
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: %1$s
              databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_gene}}
              tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_month}}
            t_item:
              actualDataNodes: %2$s
              databaseStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_gene}}
              tableStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_month}}
          shardingAlgorithms:
            by_gene: {type: GENE_MOD, props: {sharding-count: 2}}
            by_month:
              type: GENE_INTERVAL
              props:
                datetime-lower: '2026-11-01 00:00:00'
                datetime-interval-unit: MONTHS
                parent-columns: order_id
        """.formatted(months.replace("TABLE", "t_order"), months.replace("TABLE", "t_item"));
  }

  Path write(String yaml) throws Exception {
    Path file = dir.resolve("app.yaml");
    Files.writeString(file, yaml, StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void printsTheDdlOfThisMonthAndTheNextTwoForEveryDataNode() throws Exception {
    Path file = write(yaml("ds_${0..1}.TABLE_${[202611, 202612]}"));
    CliRun run = CliRun.of("tables", "--config", file.toString()); // now: 2026-11-22
    assertThat(run.err()).isEmpty();
    assertThat(run.status()).isZero();
    TablesCommand.Dialect d = TablesCommand.Dialect.of(url("ds_0"), "ds_0");
    String h2 = d == TablesCommand.Dialect.H2 ? "-- then the primary key and indexes of %s (--create adds the primary"
        + " key)\n" : "";
    StringBuilder expected = new StringBuilder();
    for (String table : List.of("t_order", "t_item")) {
      expected.append("-- ").append(table).append(": GENE_INTERVAL 'by_month' (datetime-lower=2026-11-01T00:00,"
          + " datetime-interval-amount=1, datetime-interval-unit=MONTHS, sharding-suffix-pattern=yyyyMM,"
          + " datetime-zone=UTC, max-child-lag=1), intervals 202611 to 202701, from now (2026-11-22T00:00:00.000Z)\n");
      for (String ds : List.of("ds_0", "ds_1")) {
        expected.append("-- ").append(ds).append('\n')
            .append(d.copy(table + "_202612", table + "_202611")).append(";\n")
            .append(h2.formatted(table + "_202611"))
            .append(d.copy(table + "_202701", table + "_202612")).append(";\n")
            .append(h2.formatted(table + "_202612"));
      }
      expected.append("-- actualDataNodes of ").append(table).append(": ds_${0..1}.").append(table)
          .append("_${[202611, 202612, 202701]}\n");
    }
    assertThat(run.out()).isEqualTo(expected.toString());
    assertThat(exists(0, "t_item_202612")).as("printing creates nothing").isFalse();
  }

  @Test
  void createsTheMissingTablesLeavesThoseThatExistAndShardingSphereWritesThere() throws Exception {
    Path file = write(yaml("ds_${0..1}.TABLE_${[202611, 202612]}"));
    DataSource before = YamlShardingSphereDataSourceFactory.createDataSource(Files.readAllBytes(file));
    Clock november = Clock.fixed(CliRun.NOW, ZoneOffset.UTC);
    try {
      assertThat(GeneShardingCheck.warnings(before, november)).hasSize(4)
          .allSatisfy(w -> assertThat(w).contains("has no table").contains("_202612"));
    } finally {
      ((AutoCloseable) before).close();
    }
    CliRun created = CliRun.of("tables", "--config", file.toString(), "--create", "--intervals", "3");
    assertThat(created.err()).isEmpty();
    assertThat(created.status()).isZero();
    for (int db = 0; db < 2; db++) {
      for (String table : List.of("t_order_202612", "t_order_202701", "t_item_202612", "t_item_202701")) {
        assertThat(exists(db, table)).as("ds_%d.%s", db, table).isTrue();
      }
      assertThat(exists(db, "t_item_202702")).isFalse();
    }
    Matcher line = Pattern.compile("-- actualDataNodes of t_item: (.*)").matcher(created.out());
    assertThat(line.find()).isTrue();
    assertThat(line.group(1)).isEqualTo("ds_${0..1}.t_item_${[202611, 202612, 202701]}");

    CliRun again = CliRun.of("tables", "--config", file.toString(), "--create", "--table", "t_item");
    assertThat(again.status()).isZero();
    assertThat(again.out()).contains("-- t_item_202612 exists", "-- t_item_202701 exists").doesNotContain("CREATE")
        .doesNotContain("t_order");

    // ShardingSphere with the printed actualDataNodes writes a January order and its item where they belong
    DataSource after = YamlShardingSphereDataSourceFactory.createDataSource(write(yaml(
        line.group(1).replace("t_item", "TABLE"))).toFile());
    try {
      assertThat(GeneShardingCheck.warnings(after, november)).isEmpty();
      GeneIdLayout layout = GeneIdLayout.defaults();
      long order = layout.firstIdAt(Instant.parse("2027-01-05T10:00:00Z")) | 1;
      long item = layout.firstIdAt(Instant.parse("2027-01-05T10:00:01Z")) | (7L << 6) | 1;
      try (Connection c = after.getConnection()) {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, ?)")) {
          ps.setLong(1, order);
          ps.setString(2, "alice");
          assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)")) {
          ps.setLong(1, item);
          ps.setLong(2, order);
          ps.setString(3, "book");
          assertThat(ps.executeUpdate()).isEqualTo(1);
        }
      }
      try (Connection c = DriverManager.getConnection(url("ds_1"), user(), "");
          Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM t_item_202701")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(item);
      }
    } finally {
      ((AutoCloseable) after).close();
    }
  }
}
