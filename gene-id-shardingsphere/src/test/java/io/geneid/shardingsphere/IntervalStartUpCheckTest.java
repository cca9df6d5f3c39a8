package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link GeneShardingCheck} and {@code GENE_INTERVAL}: the tables of the current and the next month missing from
 * {@code actualDataNodes} or from a database are warned about; a layout other than the key generator's and columns
 * that are not one own id plus {@code parent-columns} stop start-up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IntervalStartUpCheckTest {

  /** Mid-November 2026: the current month is 202611, the next 202612. */
  private static final Clock NOVEMBER = Clock.fixed(Instant.parse("2026-11-15T12:00:00Z"), ZoneOffset.UTC);

  private ShardedDatabases databases;

  @BeforeAll
  void start() throws Exception {
    databases = new ShardedDatabases(Backend.H2, 2, List.of("202610", "202611"));
  }

  @AfterAll
  void stop() throws Exception {
    databases.close();
  }

  private DataSource start(List<String> months, String... replacements) throws Exception {
    String yaml = AbstractIntervalEndToEndTest.rules("2026-10-01 00:00:00", months);
    for (int i = 0; i < replacements.length; i += 2) {
      yaml = yaml.replace(replacements[i], replacements[i + 1]);
    }
    return databases.shardingSphere(yaml);
  }

  @Test
  void nextMonthsTablesMissingFromActualDataNodesAreWarnedAbout() throws Exception {
    DataSource sharded = start(List.of("202610", "202611"));
    assertThat(GeneShardingCheck.problems(sharded)).isEmpty();
    List<String> warnings = GeneShardingCheck.warnings(sharded, NOVEMBER);
    assertThat(warnings).hasSize(4).contains("t_item: actualDataNodes lists no table of the next interval 202612"
        + " (from 2026-12-01T00:00:00Z) in ds_1, so its rows will be refused; create t_item_202612 in every database"
        + " (gene-id tables --config <your YAML> --create) and list it");
    assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("t_order: actualDataNodes lists no table of the next"
        + " interval 202612 (from 2026-12-01T00:00:00Z) in ds_0"));
    assertThat(GeneShardingCheck.warnings(sharded, Clock.offset(NOVEMBER, java.time.Duration.ofDays(-30))))
        .as("in October both months are there").isEmpty();
    GeneShardingCheck.verify(sharded); // warns, does not fail
  }

  @Test
  void tablesListedButNotCreatedAreWarnedAbout() throws Exception {
    DataSource sharded = start(List.of("202610", "202611", "202612"));
    assertThat(GeneShardingCheck.warnings(sharded, NOVEMBER)).hasSize(4).contains("t_item: ds_0 has no table"
        + " t_item_202612 of the next interval 202612 (from 2026-12-01T00:00:00Z), which actualDataNodes lists;"
        + " create it (gene-id tables --config <your YAML> --create)");
  }

  @Test
  void aLayoutOtherThanTheKeyGeneratorsStopsStartUp() throws Exception {
    DataSource sharded = start(List.of("202610", "202611"), "parent-columns: order_id",
        "parent-columns: order_id\n        gene-bits: 4\n        worker-bits: 10");
    assertThatThrownBy(() -> GeneShardingCheck.verify(sharded)).hasMessageContaining("t_item: key generator 'ids'"
        + " issues ids of GeneIdLayout[epoch=2025-01-01T00:00:00Z, T=41, W=8, S=8, G=6] but GENE_INTERVAL 'by_month'"
        + " reads their time as GeneIdLayout[epoch=2025-01-01T00:00:00Z, T=41, W=10, S=8, G=4]");
  }

  @Test
  void aComplexStrategyWithoutParentColumnsStopsStartUp() throws Exception {
    DataSource sharded = start(List.of("202610", "202611"), "parent-columns: order_id", "max-child-lag: 1");
    assertThatThrownBy(() -> GeneShardingCheck.verify(sharded)).hasMessageContaining("t_item: the complex strategy"
        + " on [id, order_id] routes by GENE_INTERVAL 'by_month' with parent-columns [], so 2 columns [id, order_id]"
        + " would be read as the row's own id; exactly one must be (list the columns that hold a parent's id in"
        + " parent-columns)");
  }
}
