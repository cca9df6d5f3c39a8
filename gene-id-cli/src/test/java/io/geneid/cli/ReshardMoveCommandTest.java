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

/** {@code reshard} on the H2 fixture, the map in an H2 database. */
class ReshardMoveCommandTest extends AbstractReshardMoveCommandTest {

  @Test
  void plansWithRowCountsMovesShowsStatusAndCleansUp() throws Exception {
    CliRun plan = CliRun.of("reshard", "plan", "--config", yaml.toString(), "--algorithm", "gene_db", "--to", "4",
        "--count-rows");
    assertThat(plan).isEqualTo(new CliRun(0, """
        current map                version 0, 2 targets: 0=0-6/2; 1=1-7/2
        new map                    version 1, 4 targets: 0=0,4; 1=1,5; 2=2,6; 3=3,7
        moves                      4 of 8 buckets (50.0% of the data with evenly filled buckets)
        rows                       108 in 2 tables [t_order, t_item]
            buckets 0-7                    3        6        9       12       15       18       21       24
            0 -> 2                 2 buckets: 2,6, 30 rows
            1 -> 3                 2 buckets: 3,7, 36 rows
        rows moving                66 of 108 (61.1%)
        yaml                       type: GENE_BUCKET, props: {gene-bits: 3, bucket-map: "0=0,4; 1=1,5; 2=2,6; 3=3,7"}
        """, ""));

    CliRun status = CliRun.of(args("status"));
    assertThat(status.status()).as(status.err()).isZero();
    assertThat(status.out()).contains("map                        none stored yet; the YAML's is version 0, 2 targets")
        .contains("last move                  none recorded");

    CliRun move = CliRun.of(args("move", "--to", "4", "--settle", "0ms", "--batch-size", "2"));
    assertThat(move.status()).as(move.err()).isZero();
    assertThat(move.out())
        .contains("family                     t_order (key id, table t_order), t_item (key order_id, table GENE_MOD"
            + " 'gene_table')\n")
        .contains("stored                     the map of 'gene_db' in app.yaml as version 1 (the store had none)\n")
        .contains("moves                      4 of 8 buckets\n")
        .contains("warning                    no application routes with map 'orders'")
        .contains("moved bucket 2 (0 -> 2)    buckets 1/4, 9 rows, ")
        .contains("moved bucket 7 (1 -> 3)    buckets 4/4, 66 rows, ")
        .contains("done                       4 buckets moved, 66 rows copied")
        .contains("yaml                       type: GENE_BUCKET, props: {gene-bits: 3, bucket-map: \"0=0,4; 1=1,5;"
            + " 2=2,6; 3=3,7\"}");
    for (int b = 0; b < 8; b++) {
      int on = b % 4;
      assertThat(count(on, "t_order", "id", b)).as("orders of bucket %d on ds_%d", b, on).isEqualTo(b + 1);
      assertThat(count(on, "t_item_" + (b / 2) % 2, "order_id", b)).isEqualTo(2L * (b + 1));
    }
    assertThat(count(0, "t_order", "id", 2)).as("gone from the old database's routed table").isZero();
    assertThat(count(0, "t_order_gid_aside", "id", 2)).as("set aside there until cleanup").isEqualTo(3);

    status = CliRun.of(args("status"));
    assertThat(status.out())
        .contains("map                        version 17, 4 targets: 0=0,4; 1=1,5; 2=2,6; 3=3,7\n")
        .contains("    NORMAL                 4\n")
        .contains("    FROZEN                 0\n")
        .contains("    MOVED                  4: 2-3,6-7\n")
        .contains("routers                    none has reported\n")
        .containsPattern("last move                  finished: buckets 4/4, 66 rows, \\d+ rows/s, time left 0s\n")
        .contains("map version 17)");

    CliRun again = CliRun.of(args("move", "--to", "4"));
    assertThat(again.out()).contains("done                       nothing to move: the stored map is the new map");

    CliRun cleanup = CliRun.of(args("cleanup"));
    assertThat(cleanup.status()).as(cleanup.err()).isZero();
    assertThat(cleanup.out()).contains("cleanup                    66 rows of 4 moved buckets deleted from their old"
        + " databases [0, 1, 2, 3]; map version 21"); // one compare-and-set per bucket (#38)
    for (int b = 0; b < 8; b++) {
      for (int i = 0; i < 4; i++) {
        assertThat(count(i, "t_order", "id", b)).as("bucket %d on ds_%d", b, i).isEqualTo(i == b % 4 ? b + 1 : 0);
      }
    }
    assertThat(CliRun.of(args("status")).out()).contains("    MOVED                  0\n");
  }

  @Test
  void takesTheMapStoreFromTheAlgorithmsProperties() throws Exception {
    Files.writeString(yaml, Files.readString(yaml).replace("""
                sharding-count: 2
                gene-bits: 3
        """, """
                sharding-count: 2
                gene-bits: 3
                map-store: jdbc
                map-store-url: "%s"
                map-store-username: sa
                map-store-password: "$${%s_PW}"
                map-store-table: shop_map
                map-name: shop
        """.formatted(url("props_store"), prefix)));
    CliRun move = CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db", "--to", "4",
        "--settle", "0ms");
    assertThat(move.status()).as(move.err()).isZero();
    assertThat(move.out()).startsWith("map store                  h2:mem:" + prefix + "_props_store, table shop_map,"
        + " map 'shop'\n");
    try (HikariDataSource store = new HikariDataSource(hikari(url("props_store")));
         Connection c = store.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT name, version FROM shop_map ORDER BY name")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1) + " " + rs.getLong(2)).isEqualTo("shop 17");
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).as("the map the run moves to").isEqualTo("shop.next");
    }
  }

  /**
   * Issue #38, scenario 6: two algorithms follow one map (same map store and map-name), gene_db for t_order and
   * gene_item_db for t_item. A move through either moves both families; a move through the other then has nothing
   * left on the old nodes; cleanup through either deletes the set-aside rows of both.
   */
  @Test
  void aMapFollowedByTwoAlgorithmsMovesAsAWhole() throws Exception {
    String props = """
                map-store: jdbc
                map-store-url: "%s"
                map-store-username: sa
                map-name: shop
        """.formatted(url("shared_store"));
    Files.writeString(yaml, Files.readString(yaml).replace("""
                  shardingColumn: order_id
                  shardingAlgorithmName: gene_db
        """, """
                  shardingColumn: order_id
                  shardingAlgorithmName: gene_item_db
        """).replace("""
                sharding-count: 2
                gene-bits: 3
            gene_table:
        """, """
                sharding-count: 2
                gene-bits: 3
        """ + props + """
            gene_item_db:
              type: GENE_BUCKET
              props:
                sharding-count: 2
                gene-bits: 3
        """ + props + """
            gene_table:
        """));
    CliRun move = CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db", "--to", "4",
        "--settle", "0ms");
    assertThat(move.status()).as(move.err()).isZero();
    assertThat(move.out()).contains("family                     t_order (key id, table t_order), t_item (key"
        + " order_id, table GENE_MOD 'gene_table', by 'gene_item_db')\n")
        .contains("done                       4 buckets moved, 66 rows copied");
    for (int b = 0; b < 8; b++) {
      int on = b % 4;
      assertThat(count(on, "t_order", "id", b)).as("orders of bucket %d on ds_%d", b, on).isEqualTo(b + 1);
      assertThat(count(on, "t_item_" + (b / 2) % 2, "order_id", b)).as("items of bucket %d on ds_%d", b, on)
          .isEqualTo(2L * (b + 1));
    }

    CliRun second = CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_item_db", "--to",
        "4", "--settle", "0ms");
    assertThat(second.status()).as(second.err()).isZero();
    assertThat(second.out()).contains("done                       nothing to move: the stored map is the new map");

    CliRun cleanup = CliRun.of("reshard", "cleanup", "--config", yaml.toString(), "--algorithm", "gene_item_db");
    assertThat(cleanup.status()).as(cleanup.err()).isZero();
    assertThat(cleanup.out()).contains("66 rows of 4 moved buckets deleted");
    for (int b = 0; b < 8; b++) {
      for (int i = 0; i < 4; i++) {
        assertThat(count(i, "t_order", "id", b)).as("orders of bucket %d on ds_%d", b, i)
            .isEqualTo(i == b % 4 ? b + 1 : 0);
        assertThat(count(i, "t_item_" + (b / 2) % 2, "order_id", b)).as("items of bucket %d on ds_%d", b, i)
            .isEqualTo(i == b % 4 ? 2L * (b + 1) : 0);
      }
    }
  }

  /** An algorithm that follows the same map with other gene bits cannot move with it: refused, naming both. */
  @Test
  void refusesAMapWhoseFollowersDisagree() throws Exception {
    String props = """
                map-store: jdbc
                map-store-url: "%s"
                map-name: shop
        """.formatted(url("shared_store"));
    Files.writeString(yaml, Files.readString(yaml).replace("""
                  shardingColumn: order_id
                  shardingAlgorithmName: gene_db
        """, """
                  shardingColumn: order_id
                  shardingAlgorithmName: gene_item_db
        """).replace("""
                sharding-count: 2
                gene-bits: 3
            gene_table:
        """, """
                sharding-count: 2
                gene-bits: 3
        """ + props + """
            gene_item_db:
              type: GENE_BUCKET
              props:
                sharding-count: 2
                gene-bits: 4
        """ + props + """
            gene_table:
        """));
    CliRun move = CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db", "--to", "4");
    assertThat(move.status()).isEqualTo(2);
    assertThat(move.err()).contains("'gene_item_db' follows map 'shop' of the same map store as 'gene_db' but has"
        + " gene-bits 4, not 3");
  }

  @Test
  void explainsWhatTheYamlLacks() throws Exception {
    assertThat(CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db", "--to", "4"))
        .isEqualTo(new CliRun(2, "", "gene-id reshard move: no map store: give --map-store-url <jdbc url or redis"
            + " uri>, or the property map-store-url of 'gene_db' in " + yaml + "\n"));
    assertThat(CliRun.of(args("move", "--to", "4", "--bucket-map", "0=0-7")).err())
        .isEqualTo("gene-id reshard move: give the new map by exactly one of --to <M> and --bucket-map <map>, but both"
            + " were given\n");
    assertThat(CliRun.of(args("move", "--to", "8")).err())
        .isEqualTo("gene-id reshard move: no data source ends with _4 among [ds_0, ds_1, ds_2, ds_3]: add the new"
            + " databases to dataSources of the YAML before moving buckets to them\n");
    HikariConfig storeConfig = new HikariConfig();
    storeConfig.setJdbcUrl(url("store")); // as --map-store-url: H2's default user
    try (HikariDataSource storePool = new HikariDataSource(storeConfig)) {
      assertThat(JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build()
          .compareAndSet("g4", -1, BucketMap.ofMod(4, 2, 1).withVersion(1))).isTrue();
    }
    assertThat(CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db", "--map-store-url",
        url("store"), "--map-name", "g4", "--to", "4").err())
        .isEqualTo("gene-id reshard move: map 'g4' in the store has gene-bits 4 but 'gene_db' in " + yaml + " has 3:"
            + " is --map-name the application's map?\n");
    assertThat(CliRun.of(args("move", "--to", "4", "--batch-size", "0")).err())
        .isEqualTo("gene-id reshard move: --batch-size must be in [1, 100000] but was 0\n");
    assertThat(CliRun.of("reshard", "status", "--config", yaml.toString(), "--algorithm", "gene_table",
        "--map-store-url", url("store")).err())
        .isEqualTo("gene-id reshard status: " + yaml + ": no table's databaseStrategy uses sharding algorithm"
            + " 'gene_table', so there is nothing to move\n");
    Files.writeString(yaml, Files.readString(yaml).replace("password: \"$${" + prefix + "_PW}\"",
        "password: \"$${NOT_SET_" + prefix + "}\""));
    assertThat(CliRun.of(args("move", "--to", "4")).err())
        .isEqualTo("gene-id reshard move: password of data source ds_0 refers to $${NOT_SET_" + prefix + "}, which is"
            + " neither an environment variable nor a system property, and has no default ($${NOT_SET_" + prefix
            + "::default})\n");
  }
}
