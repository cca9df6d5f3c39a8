package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import java.time.Instant;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GeneIdCliTest {

  private static final GeneIdLayout DEFAULTS = GeneIdLayout.defaults();

  // ---------------------------------------------------------------- decode

  @Test
  void decodesIdsInUtcAndLocalTime() {
    long id = DEFAULTS.encode(new GeneIdParts(Instant.parse("2026-11-21T09:30:15.123Z"), 37, 200, 42));
    CliRun run = CliRun.of("decode", Long.toString(id), "1", "--zone", "Asia/Shanghai");
    assertThat(run.status()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).isEqualTo("""
        layout                     T=41 W=8 S=8 G=6, epoch 2025-01-01T00:00:00Z

        id                         %d
        timestamp                  2026-11-21T09:30:15.123Z
        local                      2026-11-21T17:30:15.123+08:00 Asia/Shanghai
        worker                     37
        sequence                   200
        gene                       42

        id                         1
        timestamp                  2025-01-01T00:00:00.000Z
        local                      2025-01-01T08:00:00.000+08:00 Asia/Shanghai
        worker                     0
        sequence                   0
        gene                       1
        """.formatted(id));
  }

  @Test
  void decodesWithAnotherLayoutFromFlags() {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(Instant.parse("2020-01-01T00:00:00Z")).timestampBits(41)
        .workerBits(10).sequenceBits(12).geneBits(0).build();
    long id = layout.encode(new GeneIdParts(Instant.parse("2026-01-02T03:04:05.006Z"), 1023, 4095, 0));
    CliRun run = CliRun.of("decode", "--epoch", "2020-01-01", "--worker-bits", "10", "--sequence-bits", "12",
        "--gene-bits", "0", "--zone", "UTC", Long.toString(id));
    assertThat(run.status()).isZero();
    assertThat(run.out()).contains("layout                     T=41 W=10 S=12 G=0, epoch 2020-01-01T00:00:00Z\n")
        .contains("timestamp                  2026-01-02T03:04:05.006Z\n")
        .contains("worker                     1023\n")
        .contains("sequence                   4095\n")
        .contains("gene                       0\n");
  }

  @Test
  void flagsATimestampInTheFuture() {
    long id = DEFAULTS.encode(new GeneIdParts(Instant.parse("2027-01-01T00:00:00Z"), 1, 1, 1));
    CliRun run = CliRun.of("decode", Long.toString(id), "--zone", "UTC");
    assertThat(run.status()).isZero();
    assertThat(run.out()).contains(
        "note                       this timestamp is 40 days in the future: was the id made with another layout?");
  }

  @Test
  void decodesStringIdsReadingTheirFormatFromTheirShape() {
    long id = DEFAULTS.encode(new GeneIdParts(Instant.parse("2026-11-21T09:30:15.123Z"), 37, 200, 42));
    String dated = io.geneid.core.GeneIdStringFormat.builder().prefix("ORD").date(DEFAULTS).build().format(id);
    String plain = io.geneid.core.GeneIdStringFormat.plain().format(id);
    CliRun run = CliRun.of("decode", dated, plain, "--zone", "UTC");
    assertThat(run.status()).isZero();
    assertThat(run.out()).contains("""
        string id                  %s
        prefix                     ORD
        date part                  yes, the id's UTC day
        id                         %d
        timestamp                  2026-11-21T09:30:15.123Z
        """.formatted(dated, id)).contains("""
        string id                  %s
        prefix                     (none)
        date part                  no
        id                         %d
        """.formatted(plain, id)).contains("gene                       42\n");
    assertThat(dated).startsWith("ORD20261121");
    String altered = "ORD20261122" + dated.substring(11);
    CliRun bad = CliRun.of("decode", altered);
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).startsWith("gene-id decode: id must be a whole number in [0, 9223372036854775807] or a"
        + " string id (a prefix, an optional yyyyMMdd date and 13 base-32 digits) but was '" + altered
        + "': string id '" + altered + "' has the date part 20261122 but its id");
    CliRun configured = CliRun.of("decode", "--string-id-prefix", "INV", dated);
    assertThat(configured.status()).isEqualTo(2);
    assertThat(configured.err()).isEqualTo("gene-id decode: id must be a whole number in [0, 9223372036854775807] or"
        + " a string id (of the format --string-id-prefix and --string-id-date give) but was '" + dated + "': string"
        + " id '" + dated + "' must have 16 characters (prefix 'INV', 13 base-32 digits) but has 24\n");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "abc                  | gene-id decode: id must be a whole number in [0, 9223372036854775807] but was 'abc'",
      "12.5                 | gene-id decode: id must be a whole number in [0, 9223372036854775807] but was '12.5'",
      "-5                   | gene-id decode: id must not be negative but was -5",
      "9223372036854775808  | gene-id decode: id must be in [0, 9223372036854775807] but was 9223372036854775808",
  })
  void badIdsExitTwoWithOneLine(String id, String message) {
    CliRun run = CliRun.of("decode", "1", id);
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo(message + "\n");
  }

  @Test
  void usageErrorsExitTwoWithOneLine() {
    assertThat(CliRun.of("decode")).isEqualTo(new CliRun(2, "",
        "gene-id decode: Missing required parameter: '<id>' (see gene-id decode --help)\n"));
    assertThat(CliRun.of("decode", "1", "--gene-bits", "six")).isEqualTo(new CliRun(2, "",
        "gene-id decode: Invalid value for option '--gene-bits': 'six' is not an int (see gene-id decode --help)\n"));
    assertThat(CliRun.of("decode", "1", "--frobnicate")).isEqualTo(new CliRun(2, "",
        "gene-id decode: Unknown option: '--frobnicate' (see gene-id decode --help)\n"));
    assertThat(CliRun.of("explode")).isEqualTo(new CliRun(2, "",
        "gene-id: Unmatched argument at index 0: 'explode' (see gene-id --help)\n"));
    assertThat(CliRun.of()).isEqualTo(new CliRun(2, "",
        "gene-id: a command is required: decode, gene, shard, layout, reshard or tables (see gene-id --help)\n"));
  }

  @Test
  void anInvalidLayoutExitsTwoNamingTheRule() {
    assertThat(CliRun.of("decode", "1", "--gene-bits", "7")).isEqualTo(new CliRun(2, "",
        "gene-id decode: invalid layout (from flags): timestamp-bits + worker-bits + sequence-bits + gene-bits must be"
            + " 63 (the defaults are 41 + 8 + 8 + 6) but was 64 (41 + 8 + 8 + 7)\n"));
    assertThat(CliRun.of("decode", "1", "--epoch", "yesterday")).isEqualTo(new CliRun(2, "",
        "gene-id decode: --epoch must be an ISO-8601 instant such as 2025-01-01T00:00:00Z, a date such as 2025-01-01"
            + " (UTC) or Unix milliseconds but was 'yesterday'\n"));
    assertThat(CliRun.of("layout", "--gene-bits", "17", "--sequence-bits", "-3")).isEqualTo(new CliRun(2, "",
        "gene-id layout: invalid layout (from flags): sequence-bits must be in [0, 28] but was -3\n"));
  }

  // ---------------------------------------------------------------- gene

  @Test
  void theGeneOfANumericKeyIsItsLowBits() {
    assertThat(CliRun.of("gene", "12345")).isEqualTo(new CliRun(0, """
        key                        12345
        kind                       number
        rule                       low 6 bits of the number (key & 63)
        gene                       57
        """, ""));
  }

  @Test
  void theGeneOfAStringKeyIsItsCrc32c() {
    long expected = DEFAULTS.geneOf("order-2024-0001");
    assertThat(CliRun.of("gene", "order-2024-0001")).isEqualTo(new CliRun(0, """
        key                        order-2024-0001
        kind                       string
        rule                       CRC-32C of the UTF-8 bytes, low 6 bits
        gene                       %d
        """.formatted(expected), ""));
    assertThat(CliRun.of("gene", "--string", "12345").out())
        .contains("kind                       string\n")
        .contains("gene                       " + DEFAULTS.geneOf("12345") + "\n");
  }

  @Test
  void aUuidKeyHashesItsCanonicalLowerCaseString() {
    String upper = "0BA7C6F2-3F9A-4E2B-9C1D-2F3A4B5C6D7E";
    CliRun run = CliRun.of("gene", "--gene-bits", "8", "--sequence-bits", "6", upper);
    assertThat(run.status()).isZero();
    GeneIdLayout g8 = DEFAULTS.toBuilder().geneBits(8).sequenceBits(6).build();
    assertThat(run.out())
        .contains("kind                       UUID\n")
        .contains("rule                       CRC-32C of the UTF-8 bytes of \"" + upper.toLowerCase() + "\", low 8 bits")
        .contains("gene                       " + g8.geneOfKey(java.util.UUID.fromString(upper)) + "\n");
  }

  @Test
  void badKeysExitTwo() {
    assertThat(CliRun.of("gene", "-5")).isEqualTo(new CliRun(2, "",
        "gene-id gene: parent key must not be negative but was -5; pass --string to hash it as text\n"));
    assertThat(CliRun.of("gene", "99999999999999999999")).isEqualTo(new CliRun(2, "",
        "gene-id gene: parent key must be in [0, 9223372036854775807] but was 99999999999999999999; pass --string"
            + " to hash it as text\n"));
    assertThat(CliRun.of("gene").status()).isEqualTo(2);
  }

  @Test
  void withoutGeneBitsEveryKeyHasGeneZero() {
    CliRun run = CliRun.of("gene", "--gene-bits", "0", "--sequence-bits", "14", "abc");
    assertThat(run.out()).contains("rule                       none: the layout has no gene bits (G=0), every key"
        + " has gene 0\ngene                       0\n");
  }

  // ---------------------------------------------------------------- shard --config sharding.yaml

  private static final String SHARDING_YAML = """
      dataSources:
        ds_0: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource}
        ds_1: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource}
      rules:
      - !SHARDING
        tables:
          t_order:
            actualDataNodes: ds_${0..1}.t_order_${0..1}
            databaseStrategy:
              standard: {shardingColumn: id, shardingAlgorithmName: db_gene}
            tableStrategy:
              standard: {shardingColumn: id, shardingAlgorithmName: table_gene}
            keyGenerateStrategy: {column: id, keyGeneratorName: gene}
          t_item:
            actualDataNodes: ds_$->{0..1}.t_item_$->{['0', '1']}
            databaseStrategy:
              complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: db_gene}
            tableStrategy:
              complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: table_gene}
          t_log:
            actualDataNodes: ds_0.t_log_0,ds_1.t_log_1
            databaseStrategy:
              standard: {shardingColumn: id, shardingAlgorithmName: db_mod}
          t_gap:
            actualDataNodes: ds_${0..1}.t_gap_${[0, 2]}
            databaseStrategy:
              standard: {shardingColumn: id, shardingAlgorithmName: db_gene}
            tableStrategy:
              standard: {shardingColumn: id, shardingAlgorithmName: table_gene}
        shardingAlgorithms:
          db_gene: {type: GENE_MOD, props: {sharding-count: 2}}
          table_gene: {type: GENE_MOD, props: {sharding-count: 2, gene-divisor: 2}}
          db_mod: {type: MOD, props: {sharding-count: 2}}
        keyGenerators:
          gene: {type: GENE_SNOWFLAKE, props: {worker-id: '1'}}
      """;

  @Test
  void namesTheDataNodeOfAnAutoTableRoutedByGeneModAuto(@TempDir Path dir) throws Exception {
    Path yaml = Files.writeString(dir.resolve("auto.yaml"), """
        dataSources:
          ds_0: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource}
          ds_1: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource}
        rules:
        - !SHARDING
          autoTables:
            t_order:
              actualDataSources: ds_0,ds_1
              shardingStrategy:
                standard: {shardingColumn: id, shardingAlgorithmName: gene_auto}
            t_item:
              actualDataSources: ds_${0..1}
              shardingStrategy:
                complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: gene_auto}
            t_log:
              shardingStrategy:
                standard: {shardingColumn: id, shardingAlgorithmName: mod}
          shardingAlgorithms:
            gene_auto: {type: GENE_MOD_AUTO, props: {sharding-count: 4}}
            mod: {type: MOD, props: {sharding-count: 4}}
        """);
    // gene 6: table 6 % 4 = 2, which ShardingSphere places in ds_(2 % 2) = ds_0; gene 5: table 1 in ds_1
    assertThat(CliRun.of("shard", "6", "5", "--config", yaml.toString()).out()).isEqualTo("""
        id                         6
        gene                       6
        t_order                    ds_0.t_order_2
        t_item                     ds_0.t_item_2
        t_log                      not routed by GENE_MOD (table level uses MOD ('mod'))

        id                         5
        gene                       5
        t_order                    ds_1.t_order_1
        t_item                     ds_1.t_item_1
        t_log                      not routed by GENE_MOD (table level uses MOD ('mod'))
        """);
  }

  @Test
  void namesTheDataNodeOfEachLogicTableFromAShardingSphereYaml(@TempDir Path dir) throws Exception {
    Path yaml = Files.writeString(dir.resolve("sharding.yaml"), SHARDING_YAML);
    // gene 6: database 6 % 2 = 0, table (6 / 2) % 2 = 1; gene 5: database 1, table (5 / 2) % 2 = 0
    assertThat(CliRun.of("shard", "6", "5", "--config", yaml.toString())).isEqualTo(new CliRun(0, """
        id                         6
        gene                       6
        t_order                    ds_0.t_order_1
        t_item                     ds_0.t_item_1
        t_log                      not routed by GENE_MOD (database level uses MOD ('db_mod'))
        t_gap                      cannot route: no target ends with _1 among [t_gap_0, t_gap_2] \
        (sharding-count=2, gene-divisor=2, gene-bits=6)

        id                         5
        gene                       5
        t_order                    ds_1.t_order_0
        t_item                     ds_1.t_item_0
        t_log                      not routed by GENE_MOD (database level uses MOD ('db_mod'))
        t_gap                      ds_1.t_gap_0
        """, "note: " + yaml + " sets no layout key (epoch, timestamp-bits, worker-bits, sequence-bits, gene-bits at"
        + " the top level, under gene-id or under props): using the default layout\n"));
    assertThat(CliRun.of("shard", "6", "--config", yaml.toString(), "--table", "t_item").out())
        .isEqualTo("id                         6\ngene                       6\nt_item                     ds_0.t_item_1\n");
    assertThat(CliRun.of("shard", "6", "--config", yaml.toString(), "--table", "t_nope").err()).isEqualTo(
        "gene-id shard: --table t_nope is not a logic table of " + yaml + "; it has [t_order, t_item, t_log, t_gap]\n");
  }

  @Test
  void shardingYamlMistakesAreNamed(@TempDir Path dir) throws Exception {
    Path groovy = Files.writeString(dir.resolve("groovy.yaml"),
        SHARDING_YAML.replace("ds_${0..1}.t_order_${0..1}", "ds_${0..1}.t_order_${(0..3).findAll { it % 2 }}"));
    assertThat(CliRun.of("shard", "6", "--config", groovy.toString()).err()).isEqualTo("gene-id shard:"
        + " actualDataNodes of t_order: cannot expand ${(0..3).findAll { it % 2 }} (the command line understands"
        + " ${a..b} and ${[x, y]}; write other expressions out as a comma-separated list)\n");
    Path noCount = Files.writeString(dir.resolve("nocount.yaml"),
        SHARDING_YAML.replace("{type: GENE_MOD, props: {sharding-count: 2}}", "{type: GENE_MOD, props: {}}"));
    assertThat(CliRun.of("shard", "6", "--config", noCount.toString()).err()).isEqualTo("gene-id shard: " + noCount
        + ": GENE_MOD 'db_gene' needs sharding-count as a whole number but was missing\n");
    Path layoutOnly = Files.writeString(dir.resolve("layout.yaml"), "gene-id:\n  gene-bits: 6\n");
    assertThat(CliRun.of("shard", "6", "--config", layoutOnly.toString()).err()).isEqualTo("gene-id shard:"
        + " --sharding-count is required unless --config names a ShardingSphere YAML with sharded tables ("
        + layoutOnly + " has none)\n");
  }

  // ---------------------------------------------------------------- shard

  @Test
  void theTargetIsTheGeneModuloTheShardingCount() {
    long id = DEFAULTS.encode(new GeneIdParts(Instant.parse("2026-11-21T09:30:15.123Z"), 37, 200, 42));
    assertThat(CliRun.of("shard", Long.toString(id), "--sharding-count", "4")).isEqualTo(new CliRun(0, """
        id                         %d
        gene                       42
        sharding-count             4
        target index               2 (gene 42 %% 4)
        """.formatted(id), ""));
  }

  @Test
  void aGeneDivisorGivesTheSecondLevelsIndexAsGeneModDoes() {
    // two databases, two tables each, table suffixes repeating per database: the table level divides by 2
    assertThat(CliRun.of("shard", "6", "--sharding-count", "2", "--gene-divisor", "2")).isEqualTo(new CliRun(0, """
        id                         6
        gene                       6
        sharding-count             2
        gene-divisor               2
        target index               1 ((gene 6 / 2) % 2)
        """, ""));
    assertThat(CliRun.of("shard", "6", "--sharding-count", "8", "--gene-divisor", "16")).isEqualTo(new CliRun(2, "",
        "gene-id shard: sharding-count * gene-divisor must be at most 2^gene-bits = 64 but was 8 * 16 = 128: indexes"
            + " above 3 would never be used (G=6)\n"));
  }

  @Test
  void anUnevenShardingCountIsPointedOut() {
    CliRun run = CliRun.of("shard", "63", "64", "--sharding-count", "5");
    assertThat(run.status()).isZero();
    assertThat(run.out()).isEqualTo("""
        id                         63
        gene                       63
        sharding-count             5
        target index               3 (gene 63 % 5)

        id                         64
        gene                       0
        sharding-count             5
        target index               0 (gene 0 % 5)

        note                       64 genes do not split evenly over 5 targets: targets 0 to 3 get 13 genes, target\
         4 gets 12; a sharding-count that divides 64 balances them
        """);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0   | gene-id shard: sharding-count must be in [1, 64] but was 0: with G=6 there are 64 genes, and a target no"
          + " gene maps to is never used",
      "65  | gene-id shard: sharding-count must be in [1, 64] but was 65: with G=6 there are 64 genes, and a target"
          + " no gene maps to is never used",
      "-1  | gene-id shard: sharding-count must not be negative but was -1",
      "two | gene-id shard: sharding-count must be a whole number in [0, 9223372036854775807] but was 'two'",
  })
  void aShardingCountOutOfRangeExitsTwo(String count, String message) {
    assertThat(CliRun.of("shard", "1", "--sharding-count", count)).isEqualTo(new CliRun(2, "", message + "\n"));
  }

  @Test
  void shardNeedsAShardingCount() {
    assertThat(CliRun.of("shard", "1")).isEqualTo(new CliRun(2, "",
        "gene-id shard: --sharding-count is required unless --config names a ShardingSphere YAML with sharded"
            + " tables\n"));
  }

  // ---------------------------------------------------------------- layout

  @Test
  void reportsTheCapacityOfTheDefaultLayout() {
    assertThat(CliRun.of("layout")).isEqualTo(new CliRun(0, """
        layout                     T=41 W=8 S=8 G=6, epoch 2025-01-01T00:00:00Z
        timestamp runs out         2094-09-07T15:47:35.552Z (69.7 years after the epoch, 67.8 years from now)
        workers                    256 (worker ids 0 to 255)
        genes                      64 (sharding counts that divide 64 balance evenly)
        ids per second per gene    256,000 (256 per ms)
        ids per second per worker  16,384,000 (16,384 per ms)
        JavaScript-safe until      2025-01-25T20:31:23.648Z (passed: ids are above 2^53 - 1, send them to\
         JavaScript as strings)
        """, ""));
  }

  @Test
  void warnsAboutALayoutThatRunsOutSoonAndShowsFutureJavaScriptSafety() {
    CliRun run = CliRun.of("layout", "--epoch", "2026-11-01", "--timestamp-bits", "38", "--worker-bits", "4",
        "--sequence-bits", "6", "--gene-bits", "15");
    assertThat(run.status()).isZero();
    assertThat(run.out()).isEqualTo("""
        layout                     T=38 W=4 S=6 G=15, epoch 2026-11-01T00:00:00Z
        timestamp runs out         2035-07-18T10:58:26.944Z (8.7 years after the epoch, 8.7 years from now)
        workers                    16 (worker ids 0 to 15)
        genes                      32,768 (sharding counts that divide 32,768 balance evenly)
        ids per second per gene    64,000 (64 per ms)
        ids per second per worker  2,097,152,000 (2,097,152 per ms)
        JavaScript-safe until      2026-11-04T02:33:55.456Z (passed: ids are above 2^53 - 1, send them to\
         JavaScript as strings)
        """);
    CliRun soon = CliRun.of("layout", "--epoch", "2026-01-01", "--timestamp-bits", "36", "--worker-bits", "13",
        "--sequence-bits", "4", "--gene-bits", "10");
    assertThat(soon.out()).contains("""
        timestamp runs out         2028-03-06T08:44:36.736Z (2.2 years after the epoch, 1.3 years from now)
        """).contains("""
        warning                    the timestamp field of GeneIdLayout[epoch=2026-01-01T00:00:00Z, T=36, W=13, S=4,\
         G=10] runs out at 2028-03-06T08:44:36.736Z, in 470 days (capacity warning horizon 1826 days): no id can\
         be issued after that; plan the move to a layout with more timestampBits or a later epoch before then
        """);
    CliRun jsFriendly = CliRun.of("layout", "--timestamp-bits", "49", "--worker-bits", "5", "--sequence-bits", "5",
        "--gene-bits", "4");
    assertThat(jsFriendly.out()).contains("JavaScript-safe until      2042-06-03T21:56:53.888Z (15.5 years from now;"
        + " after that ids exceed 2^53 - 1)\n");
  }

  @Test
  void reportsTheJavascriptSafePreset() {
    CliRun run = CliRun.of("layout", "--preset", "javascript-safe");
    assertThat(run.status()).isZero();
    assertThat(run.out()).startsWith("layout                     T=51 W=4 S=4 G=4, epoch 2025-01-01T00:00:00Z\n")
        .contains("JavaScript-safe until      2094-09-07T15:47:35.552Z (67.8 years from now;"
            + " after that ids exceed 2^53 - 1)\n");
    assertThat(CliRun.of("layout", "--preset", "javascript-safe", "--timestamp-bits", "50", "--gene-bits", "5").out())
        .as("flags override the preset").contains("T=50 W=4 S=4 G=5");
    assertThat(CliRun.of("layout", "--preset", "browser"))
        .isEqualTo(new CliRun(2, "", "gene-id layout: --preset must be default or javascript-safe but was 'browser'\n"));
  }

  @Test
  void helpAndVersionExitZero() {
    assertThat(CliRun.of("--help").out()).startsWith("Usage: gene-id [-hV] [--zone=<zone>] COMMAND");
    assertThat(CliRun.of("decode", "--help").out()).contains("--config=<file>").contains("--gene-bits=<G>");
    assertThat(CliRun.of("--version")).isEqualTo(new CliRun(0, "gene-id (development build)\n", ""));
  }
}
