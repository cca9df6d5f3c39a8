package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@link AbstractTablesCommandTest} on H2 in-memory databases, and the command's bad input. */
class TablesCommandTest extends AbstractTablesCommandTest {
  @Override
  String url(String db) {
    return "jdbc:h2:mem:" + prefix + "_" + db + ";MODE=MYSQL;DB_CLOSE_DELAY=-1";
  }

  @Override
  String user() {
    return "sa";
  }

  @Override
  void create(String db) {}

  @Override
  void drop(String db) {}

  @Test
  void shardNamesTheMonthTableOfAnId() throws Exception {
    Path file = write(yaml("ds_${0..1}.TABLE_${[202611, 202612]}"));
    long id = io.geneid.core.GeneIdLayout.defaults().firstIdAt(java.time.Instant.parse("2026-12-01T00:00:00Z")) | 5;
    CliRun run = CliRun.of("shard", "--config", file.toString(), Long.toString(id));
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.out()).contains("t_order                    ds_1.t_order_202612\n",
        "t_item                     ds_1.t_item_202612\n");
    long january = io.geneid.core.GeneIdLayout.defaults().firstIdAt(java.time.Instant.parse("2027-01-01T00:00:00Z"));
    assertThat(CliRun.of("shard", "--config", file.toString(), Long.toString(january)).out())
        .contains("t_item                     cannot route: id " + january + " (2027-01-01T00:00:00Z) is in interval"
            + " 202701 but none of the tables of ds_0 [t_item_202611, t_item_202612] ends with 202701");
  }

  @Test
  void badInputIsOneLineNamingWhatIsWrong() throws Exception {
    Path none = dir.resolve("none.yaml");
    Files.writeString(none, "rules:\n- !SHARDING\n  tables:\n    t_order:\n      actualDataNodes: ds_0.t_order\n");
    CliRun run = CliRun.of("tables", "--config", none.toString());
    assertThat(run.status()).isEqualTo(GeneIdCli.BAD_INPUT);
    assertThat(run.err()).isEqualTo("gene-id tables: " + none + " routes no table by GENE_INTERVAL at the table"
        + " level\n");
    CliRun zero = CliRun.of("tables", "--config", none.toString(), "--intervals", "0");
    assertThat(zero.err()).isEqualTo("gene-id tables: --intervals must be in [1, 1000] but was 0\n");
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, """
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_0.t_order_202611
              tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_month}}
          shardingAlgorithms:
            by_month: {type: GENE_INTERVAL, props: {datetime-lower: '2026-11-15 00:00:00', datetime-interval-unit: MONTHS}}
        """);
    CliRun wrong = CliRun.of("tables", "--config", bad.toString());
    assertThat(wrong.err()).isEqualTo("gene-id tables: " + bad + ": GENE_INTERVAL 'by_month' property"
        + " 'datetime-lower' must be the start of a month (day 1, 00:00:00) for datetime-interval-unit MONTHS but was"
        + " '2026-11-15T00:00'\n");
  }
}
