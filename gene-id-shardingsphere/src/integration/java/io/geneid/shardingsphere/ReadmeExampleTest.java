package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The README's quick start 2 as written: the sharding.yaml (ShardingSphere builds the pools from its
 * {@code dataSources}) and shop.sql of its project ({@code examples/quickstart-shardingsphere}, whose own test runs it
 * on H2), on MariaDB databases created for this run in place of {@code shop_0} and {@code shop_1}. Every YAML snippet
 * of the README and docs/ is checked by {@code DocsSnippetsTest} in the examples module.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class ReadmeExampleTest {

  @Test
  void theReadmeConfigurationRoutesAnItemToItsOrder() throws Exception {
    Path project = Path.of("..", "examples", "quickstart-shardingsphere");
    String ddl = Files.readString(project.resolve("shop.sql"), StandardCharsets.UTF_8);
    String run = "gid_ss_readme_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    String yaml = Files.readString(project.resolve("src/main/resources/sharding.yaml"), StandardCharsets.UTF_8)
        .replace("3306/shop_", "3306/" + run + "_");
    assertThat(yaml).contains(run + "_0", run + "_1");
    Backend.MARIADB.create(run + "_0");
    Backend.MARIADB.create(run + "_1");
    try {
      for (int d = 0; d < 2; d++) {
        try (Connection c = DriverManager.getConnection(Backend.MARIADB.url(run + "_" + d), "root", "");
            Statement s = c.createStatement()) {
          for (String statement : ddlFor(ddl, d)) { // the project's DDL, as written, for each database
            s.execute(statement);
          }
        }
      }
      DataSource dataSource = YamlShardingSphereDataSourceFactory.createDataSource(
          yaml.getBytes(StandardCharsets.UTF_8));
      try {
        GeneShardingCheck.verify(dataSource);
        long orderId;
        long itemId;
        try (Connection c = dataSource.getConnection()) {
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (customer) VALUES (?)",
              Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, "alice");
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
              keys.next();
              orderId = keys.getLong(1);
            }
          }
          try (var scope = GeneContext.inherit(orderId);
              PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (order_id, name) VALUES (?, ?)",
                  Statement.RETURN_GENERATED_KEYS)) {
            ps.setLong(1, orderId);
            ps.setString(2, "book");
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
              keys.next();
              itemId = keys.getLong(1);
            }
          }
        }
        GeneIdLayout layout = GeneIdLayout.defaults();
        assertThat(layout.geneOf(itemId)).isEqualTo(layout.geneOf(orderId));
        long gene = layout.geneOf(orderId);
        long table = gene % 4; // GENE_MOD_AUTO, sharding-count 4: table i in actualDataSources[i % 2]
        String database = run + "_" + table % 2;
        try (Connection c = DriverManager.getConnection(Backend.MARIADB.url(database), "root", "");
            Statement s = c.createStatement()) {
          try (ResultSet rs = s.executeQuery("SELECT id FROM t_order_" + table)) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(orderId);
          }
          try (ResultSet rs = s.executeQuery("SELECT id, order_id FROM t_item_" + table)) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(itemId);
            assertThat(rs.getLong(2)).isEqualTo(orderId);
          }
        }
      } finally {
        ((AutoCloseable) dataSource).close();
      }
    } finally {
      Backend.MARIADB.drop(run + "_0");
      Backend.MARIADB.drop(run + "_1");
    }
  }

  /**
   * The statements of a DDL file for database {@code d}: those after its {@code -- in shop_<d>} line (it places each
   * auto table where ShardingSphere puts it), without their {@code shop_<d>.} qualifier, or all of them when it has
   * no such lines.
   */
  private static List<String> ddlFor(String ddl, int d) {
    List<String> statements = new ArrayList<>();
    boolean sections = ddl.contains("-- in shop_");
    boolean mine = !sections;
    for (String line : ddl.split("\n")) {
      if (line.startsWith("-- in shop_")) {
        mine = line.trim().equals("-- in shop_" + d);
      } else if (mine && !line.isBlank()) {
        statements.add(line.trim().replaceAll(";$", "").replace(" shop_" + d + ".", " "));
      }
    }
    return statements;
  }
}
