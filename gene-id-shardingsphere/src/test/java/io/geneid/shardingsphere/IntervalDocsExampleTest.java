package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.geneid.core.GeneIdLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * docs/shardingsphere.md's {@code GENE_INTERVAL} section as written: its YAML (on H2 databases in place of its
 * MariaDB ones), the month tables its {@code actualDataNodes} list, the tables each query of its table reads, its
 * month report, and the refusal it quotes.
 */
class IntervalDocsExampleTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  @Test
  void theDocumentedConfigurationRoutesAsTheDocSays() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "shardingsphere.md"), StandardCharsets.UTF_8);
    String section = doc.substring(doc.indexOf("## `GENE_INTERVAL`"));
    Matcher yaml = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL).matcher(section);
    assertThat(yaml.find()).as("the yaml block of the GENE_INTERVAL section").isTrue();
    String rules = yaml.group(1).replaceAll("(?m)^dataSources:\\n(?:[ \\t]+.*\\n|\\n)*", "");
    assertThat(rules).doesNotContain("jdbcUrl").contains("GENE_INTERVAL");
    Matcher months = Pattern.compile("t_order_\\$\\{\\[([0-9, ]+)]}").matcher(rules);
    assertThat(months.find()).isTrue();
    List<String> suffixes = Arrays.stream(months.group(1).split(",")).map(String::trim).toList();
    assertThat(suffixes).containsExactly("202611", "202612", "202701");

    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, suffixes)) {
      DataSource sharded = GeneShardingCheck.verify(databases.shardingSphere(rules));
      long order = LAYOUT.firstIdAt(Instant.parse("2026-11-30T23:59:59Z")) | 5;
      long item = LAYOUT.firstIdAt(Instant.parse("2026-12-01T00:00:00.005Z")) | (3L << 6) | 5;
      try (Connection c = sharded.getConnection()) {
        update(c, "INSERT INTO t_order (id, customer) VALUES (?, ?)", order, "alice");
        update(c, "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)", item, order, "book");

        assertThat(tablesRead(databases, c, "SELECT id FROM t_item WHERE id = ?", item))
            .containsExactly("ds_1/t_item_202612");
        assertThat(tablesRead(databases, c, "SELECT id FROM t_item WHERE order_id = ?", order))
            .containsExactly("ds_1/t_item_202611", "ds_1/t_item_202612");
        assertThat(tablesRead(databases, c, "SELECT id FROM t_order WHERE id = ?", order))
            .containsExactly("ds_1/t_order_202611");
        assertThat(tablesRead(databases, c, "SELECT COUNT(*) FROM t_item WHERE id >= ? AND id < ?",
            LAYOUT.firstIdAt(Instant.parse("2026-11-01T00:00:00Z")),
            LAYOUT.firstIdAt(Instant.parse("2026-12-01T00:00:00Z"))))
            .containsExactlyInAnyOrder("ds_0/t_item_202611", "ds_1/t_item_202611");
        assertThat(tablesRead(databases, c, "SELECT id FROM t_item WHERE name = ?", "book")).hasSize(6);

        // the refusal the section quotes, for the ids it quotes
        Matcher quoted = Pattern.compile("e\\.g\\. `(GENE_INTERVAL: t_item id = (\\d+), order_id = (\\d+): .*?); \\.\\.\\.`",
            Pattern.DOTALL).matcher(section);
        assertThat(quoted.find()).as("the quoted refusal").isTrue();
        long child = Long.parseLong(quoted.group(2));
        long parent = Long.parseLong(quoted.group(3));
        Throwable refused = catchThrowable(() -> update(c, "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)",
            child, parent, "late"));
        assertThat(refused).isNotNull();
        StringBuilder messages = new StringBuilder();
        for (Throwable t = refused; t != null; t = t.getCause()) {
          messages.append(t.getMessage()).append('\n');
        }
        assertThat(messages.toString()).contains(quoted.group(1).replaceAll("\\s*\\n\\s*", " "));
      }
    }
  }

  private static void update(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      ps.executeUpdate();
    }
  }

  private static List<String> tablesRead(ShardedDatabases databases, Connection c, String sql, Object... parameters)
      throws SQLException {
    databases.statements.clear();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          assertThat(rs.getObject(1)).isNotNull();
        }
      }
    }
    synchronized (databases.statements) {
      return new ArrayList<>(AbstractIntervalEndToEndTest.tables(new ArrayList<>(databases.statements)));
    }
  }
}
