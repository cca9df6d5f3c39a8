package io.geneid.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end runner on embedded H2 with tiny counts: every rule set starts, items follow their order, and the
 * tables read per query and the balance are what each rule set's routing implies.
 */
class EndToEndBenchmarkTest {

  private static final String INSERTS = "Insert of an order";
  private static final String QUERIES = "Queries over";
  private static final String BALANCE = "Balance:";

  @Test
  void everyRuleSetRunsAndRoutesAsItsRulesSay(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("e2e-h2.md");
    EndToEndBenchmark.Settings settings = new EndToEndBenchmark.Settings(E2eDatabases.Server.H2, true, 1,
        List.of(new E2eRules.Shape(2, 2)), List.of(E2eRules.values()), List.of(1, 2), 20, 16, 10, 32, 2, out);
    new EndToEndBenchmark(settings).run();

    List<String> lines = Files.readAllLines(out);
    // queries table: | shape | threads | rules | by order p50 | q/s | tables | by item p50 | q/s | tables | ...
    assertThat(column(lines, QUERIES, "| 2x2 | 1 | usual |", 9)).isEqualTo("4.00"); // an item id alone: every table
    assertThat(column(lines, QUERIES, "| 2x2 | 1 | usual |", 6)).isEqualTo("1.00"); // an order id: one table
    assertThat(column(lines, QUERIES, "| 2x2 | 1 | gene |", 9)).isEqualTo("1.00");
    assertThat(column(lines, QUERIES, "| 2x2 | 1 | gene |", 6)).isEqualTo("1.00");
    assertThat(column(lines, QUERIES, "| 2x2 | 1 | gene-standard |", 9)).isEqualTo("4.00");
    // balance table: | shape | rules | low rate | other CPU | high rate | orders |
    assertThat(column(lines, BALANCE, "| 2x2 | gene |", 3)).isEqualTo("1.00"); // 32 gene ids over 4 tables: 8 each
    assertThat(column(lines, BALANCE, "| 2x2 | usual |", 3)).isNotEqualTo("1.00"); // SNOWFLAKE at 1 per 2 ms
    assertThat(column(lines, BALANCE, "| 2x2 | gene |", 6)).isEqualTo("48"); // 16 orders at 1 thread + 2 x 16 at 2
    assertThat(String.join("\n", lines)).contains("QUICK RUN", "| 2x2 | 2 | usual-vibration |");
    assertThat(column(lines, INSERTS, "| 2x2 | 1 | gene |", 10)).matches("[0-9.]+( \\[.*\\])?"); // KB per order
    assertThat(Double.parseDouble(column(lines, INSERTS, "| 2x2 | 1 | gene |", 10))).isPositive();
  }

  /** Column {@code index} (1-based) of the first row starting {@code prefix} after a line starting {@code after}. */
  private static String column(List<String> lines, String after, String prefix, int index) {
    int start = 0;
    while (start < lines.size() && !lines.get(start).startsWith(after)) {
      start++;
    }
    return lines.subList(start, lines.size()).stream().filter(l -> l.startsWith(prefix))
        .map(l -> l.split("\\|", -1)[index].trim()).findFirst()
        .orElseThrow(() -> new AssertionError("no row " + prefix + " after " + after + " in\n" + lines));
  }

  @Test
  void theUsualRulesAreAutoTablesWithModAndTheGeneRulesTwoLevelsOfGeneMod() {
    E2eRules.Shape shape = E2eRules.Shape.of("2x4");
    assertThat(shape.shards()).isEqualTo(8);
    assertThat(shape.tablesOf(1)).containsExactly(1, 3, 5, 7);
    assertThat(E2eRules.USUAL.yaml(shape)).contains("autoTables:", "type: MOD", "sharding-count: 8",
        "shardingColumn: order_id", "type: SNOWFLAKE").doesNotContain("max-vibration-offset");
    assertThat(E2eRules.USUAL_VIBRATION.yaml(shape)).contains("max-vibration-offset: 7");
    assertThat(E2eRules.GENE.yaml(shape)).contains("type: GENE_MOD", "shardingColumns: id,order_id",
        "type: GENE_SNOWFLAKE", "ds_1.t_order_item_7");
    assertThat(E2eRules.GENE_STANDARD.yaml(shape)).contains("shardingColumn: order_id")
        .doesNotContain("shardingColumns");
    assertThat(E2eRules.GENE_AUTO.yaml(shape)).contains("autoTables:", "actualDataSources: ds_0,ds_1",
        "type: GENE_MOD_AUTO", "sharding-count: 8", "shardingColumns: id,order_id", "type: GENE_SNOWFLAKE")
        .doesNotContain("databaseStrategy", "actualDataNodes");
    assertThat(E2eRules.GENE_AUTO.gene()).isTrue();
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> E2eRules.Shape.of("2by4")).hasMessage(
        "a shape must be <databases>x<tables per database>, e.g. 2x4, but was 2by4");
    assertThatThrownBy(() -> E2eRules.of("inline")).hasMessage(
        "rule set must be one of [usual, usual-vibration, gene, gene-auto, gene-standard] but was inline");
    assertThatThrownBy(() -> EndToEndBenchmark.Settings.parse("--db", "oracle")).hasMessage(
        "--db must be mariadb, postgresql or h2 but was oracle");
    assertThatThrownBy(() -> EndToEndBenchmark.Settings.parse("--repetitions", "0")).hasMessage(
        "--repetitions must be a whole number >= 1 but was 0");
  }

  @Test
  void tablesAreCountedFromTheStatementTextNotTheStatements() {
    assertThat(EndToEndBenchmark.distinctTables("HikariProxyPreparedStatement wrapping SELECT ... FROM t_order_item_0"
        + " WHERE id = ? UNION ALL SELECT ... FROM t_order_item_2 WHERE id = ?")).isEqualTo(2);
    assertThatThrownBy(() -> EndToEndBenchmark.distinctTables("org.example.Stmt@1a2b"))
        .hasMessageContaining("does not show its SQL");
  }

  @Test
  void spreadIsTheMedianWithMinAndMax() {
    assertThat(E2eReport.spread(new double[] {3, 1, 2}, "%.0f")).isEqualTo("2 [1–3]");
    assertThat(E2eReport.spread(new double[] {4, 1, 2, 3}, "%.1f")).isEqualTo("2.5 [1.0–4.0]");
    assertThat(E2eReport.spread(new double[] {1.001, 1.002}, "%.2f")).isEqualTo("1.00");
    assertThat(EndToEndBenchmark.balance(new long[] {6, 2, 2, 2})).isEqualTo(2.0);
  }

  @Test
  void spliceReplacesOnlyTheMarkedPart() {
    String report = "# head\n" + E2eReport.BEGIN + "\nold\n" + E2eReport.END + "\ntail\n";
    assertThat(E2eReport.splice(report, "new\n")).isEqualTo("# head\n" + E2eReport.BEGIN + "\nnew\n"
        + E2eReport.END + "\ntail\n");
    assertThatThrownBy(() -> E2eReport.splice("# no markers", "x")).hasMessageContaining("has no");
  }
}
