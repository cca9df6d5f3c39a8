package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 20: one thread inserts one row into each of two or three root tables in turn (what a request handler does),
 * through ShardingSphere over 2, 3, 4 and 8 databases routed by {@code GENE_MOD} (the gene modulo the database
 * count), all tables sharing one key generator. Every table must balance over the databases on its own.
 *
 * <p>Each table gets {@value #ROUNDS} rows, a whole number of cycles of the 64 genes (G = 6), so a per-table spread
 * that hands every gene out once per cycle puts exactly {@code ROUNDS / 64 * |{g < 64 : g % n == shard}|} rows on
 * each shard: max/min 1.00 for 2, 4 and 8 shards, 22/21 = 1.048 for 3. The test asserts those exact counts.
 */
class AlternatingTablesBalanceTest {

  private static final int ROUNDS = 256;
  private static final int GENES = 64;
  private static final List<String> TABLES = List.of("t_order", "t_payment", "t_refund");

  @ParameterizedTest(name = "{0} tables over {1} shards, {2}")
  @CsvSource({
      "2, 2, GENE_SNOWFLAKE", "2, 3, GENE_SNOWFLAKE", "2, 4, GENE_SNOWFLAKE", "2, 8, GENE_SNOWFLAKE",
      "3, 2, GENE_SNOWFLAKE", "3, 3, GENE_SNOWFLAKE", "3, 4, GENE_SNOWFLAKE", "3, 8, GENE_SNOWFLAKE",
      "2, 2, GENE_SEGMENT", "2, 4, GENE_SEGMENT", "3, 3, GENE_SEGMENT", "3, 8, GENE_SEGMENT"})
  void everyTableBalancesOnItsOwnWhenOneThreadInsertsIntoSeveralInTurn(int tableCount, int shards, String type)
      throws Exception {
    List<String> tables = TABLES.subList(0, tableCount);
    Map<String, int[]> counts = insertInTurnAndCount(tables, shards, type);
    int[] expected = IntStream.range(0, shards)
        .map(s -> ROUNDS / GENES * (int) IntStream.range(0, GENES).filter(g -> g % shards == s).count()).toArray();
    System.out.printf("issue 20: %s, %d tables in turn over %d shards, %d rows each: %s (expected each %s)%n", type,
        tableCount, shards, ROUNDS, describe(counts), describe(expected));
    for (String table : tables) {
      assertThat(counts.get(table)).as("rows of %s per shard", table).containsExactly(expected);
    }
  }

  static String describe(Map<String, int[]> counts) {
    return counts.entrySet().stream().map(e -> e.getKey() + " " + describe(e.getValue()))
        .collect(Collectors.joining(", "));
  }

  static String describe(int[] perShard) {
    int max = IntStream.of(perShard).max().orElse(0);
    int min = IntStream.of(perShard).min().orElse(0);
    return IntStream.of(perShard).mapToObj(Integer::toString).collect(Collectors.joining("/", "[", "]"))
        + " max/min " + (min == 0 ? "inf" : String.format("%.2f", (double) max / min));
  }

  private static Map<String, int[]> insertInTurnAndCount(List<String> tables, int shards, String type)
      throws Exception {
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, shards, 0)) {
      for (String ds : databases.dataSources.keySet()) {
        try (Connection c = databases.physical(ds).getConnection(); Statement s = c.createStatement()) {
          for (String table : tables) {
            s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, note VARCHAR(64) NOT NULL)");
          }
        }
      }
      DataSource sharded = databases.shardingSphere(rules(tables, shards, type));
      try (Connection c = sharded.getConnection()) {
        List<PreparedStatement> inserts = new ArrayList<>();
        for (String table : tables) {
          inserts.add(c.prepareStatement("INSERT INTO " + table + " (note) VALUES (?)"));
        }
        for (int i = 0; i < ROUNDS; i++) {
          for (PreparedStatement ps : inserts) {
            ps.setString(1, "r" + i);
            ps.executeUpdate();
          }
        }
        for (PreparedStatement ps : inserts) {
          ps.close();
        }
      }
      Map<String, int[]> counts = new LinkedHashMap<>();
      for (String table : tables) {
        int[] perShard = new int[shards];
        for (int d = 0; d < shards; d++) {
          try (Connection c = databases.physical("ds_" + d).getConnection(); Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            perShard[d] = rs.getInt(1);
          }
        }
        counts.put(table, perShard);
      }
      return counts;
    }
  }

  /** Every table on ds_0..ds_(n-1), one physical table per database, GENE_MOD over the databases. */
  private static String rules(List<String> tables, int shards, String type) {
    StringBuilder y = new StringBuilder("databaseName: gene_alt\nrules:\n- !SHARDING\n  tables:\n");
    for (String table : tables) {
      y.append("    ").append(table).append(":\n")
          .append("      actualDataNodes: ds_${0..").append(shards - 1).append("}.").append(table).append('\n')
          .append("      databaseStrategy:\n        standard:\n          shardingColumn: id\n")
          .append("          shardingAlgorithmName: gene_db\n")
          .append("      keyGenerateStrategy:\n        column: id\n        keyGeneratorName: ids\n");
    }
    y.append("  shardingAlgorithms:\n    gene_db:\n      type: GENE_MOD\n      props:\n        sharding-count: ")
        .append(shards).append('\n');
    y.append("  keyGenerators:\n    ids:\n      type: ").append(type).append("\n      props:\n");
    if (type.equals("GENE_SNOWFLAKE")) {
      y.append("        worker-id: 1\n");
    } else {
      // one counter shared by every table (an explicit biz-tag), in a segment table on an H2 of its own
      String run = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
      y.append("        segment-store: jdbc\n")
          .append("        jdbc-url: \"jdbc:h2:mem:gid_alt_seg_").append(run).append(";DB_CLOSE_DELAY=-1\"\n")
          .append("        jdbc-create-table: true\n")
          .append("        biz-tag: alt_").append(run).append('\n');
    }
    y.append("props:\n  sql-show: false\n");
    return y.toString();
  }
}
