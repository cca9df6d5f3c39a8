package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Bad configurations stop ShardingSphere's start-up (or {@link GeneShardingCheck#verify}) with a clear message. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StartUpCheckTest {

  private static final String DIVISOR_2 = "sharding-count: 2\n        gene-divisor: 2";

  private ShardedDatabases databases;

  @BeforeAll
  void start() throws SQLException {
    databases = new ShardedDatabases(Backend.H2, 2, 2);
  }

  @AfterAll
  void stop() throws SQLException {
    databases.close();
  }

  /** The first exception in the chain thrown by {@code startUp} that is ours. */
  private static Throwable failure(ThrowingCallable startUp) {
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(startUp);
    assertThat(thrown).as("start-up must fail").isNotNull();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException || t instanceof IllegalStateException) {
        return t;
      }
    }
    throw new AssertionError("no IllegalArgumentException or IllegalStateException in the chain", thrown);
  }

  /**
   * A plain YAML file (no Spring, no call to {@link GeneShardingCheck}): a key generator whose ids carry 5 gene bits
   * over a {@code GENE_MOD} that reads its default 6 would split children from their parents, so building the data
   * source fails, listing the mistake as the Spring starter lists it (#42 item 6).
   */
  @Test
  void aPlainYamlDataSourceWhoseKeyGeneratorHasOtherGeneBitsIsRefusedWhenBuilt() {
    String yaml = """
        databaseName: gene_plain
        dataSources:
          ds_0: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, driverClassName: org.h2.Driver,
                 jdbcUrl: 'jdbc:h2:mem:gid_plain_yaml_0;DB_CLOSE_DELAY=-1', username: sa, password: ''}
          ds_1: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, driverClassName: org.h2.Driver,
                 jdbcUrl: 'jdbc:h2:mem:gid_plain_yaml_1;DB_CLOSE_DELAY=-1', username: sa, password: ''}
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_${0..1}.t_order
              databaseStrategy:
                standard: {shardingColumn: id, shardingAlgorithmName: gene_db}
              keyGenerateStrategy: {column: id, keyGeneratorName: ids}
          shardingAlgorithms:
            gene_db:
              type: GENE_MOD
              props: {sharding-count: 2}
          keyGenerators:
            ids:
              type: GENE_SNOWFLAKE
              props: {worker-id: '1', gene-bits: 5, timestamp-bits: 42}
        """;
    assertThatThrownBy(() -> YamlShardingSphereDataSourceFactory.createDataSource(
        yaml.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the ShardingSphere data source of database 'gene_plain' has gene sharding mistakes (set the"
            + " system property gene-id.sharding-check=false to start anyway):\n"
            + "  - t_order: key generator 'ids' issues ids with gene-bits=5 but GENE_MOD[sharding-count=2,"
            + " gene-divisor=1, gene-bits=6] reads gene-bits=6; set the same gene-bits on both");
  }

  /** The gene algorithms of a rule, for comparing with ids no key generator of the rule describes (#30). */
  @Test
  void geneAlgorithmsListsEachWithItsGeneBitsWhereTheyComeFromAndItsTables() throws Exception {
    DataSource set = databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1\ngene-bits: 4\n"
        + "timestamp-bits: 43", "sharding-count: 2\n        gene-bits: 4",
        "sharding-count: 2\n        gene-divisor: 2\n        gene-bits: 4"));
    assertThat(GeneShardingCheck.geneAlgorithms(set)).extracting(GeneShardingCheck.GeneAlgorithm::name,
        GeneShardingCheck.GeneAlgorithm::algorithm, GeneShardingCheck.GeneAlgorithm::geneBits,
        GeneShardingCheck.GeneAlgorithm::geneBitsSet).containsExactlyInAnyOrder(
            Tuple.tuple("gene_db", "GENE_MOD[sharding-count=2, gene-divisor=1, gene-bits=4]",
                4, true),
            Tuple.tuple("gene_table",
                "GENE_MOD[sharding-count=2, gene-divisor=2, gene-bits=4]", 4, true));
    assertThat(GeneShardingCheck.geneAlgorithms(set)).allSatisfy(a ->
        assertThat(a.tables()).containsExactlyInAnyOrder("t_order", "t_item"));
    DataSource defaults = databases.shardingSphere(Rules.gene());
    assertThat(GeneShardingCheck.geneAlgorithms(defaults)).extracting(GeneShardingCheck.GeneAlgorithm::geneBits,
        GeneShardingCheck.GeneAlgorithm::geneBitsSet).containsOnly(Tuple.tuple(6, false));
  }

  /** YAML hands an unquoted timestamp or date over as a java.util.Date, whose text the user never wrote. */
  @Test
  void anUnquotedEpochIsAccepted() throws Exception {
    for (String epoch : new String[] {"2025-01-01T00:00:00Z", "2025-01-01", "\"2025-01-01T00:00:00Z\""}) {
      DataSource ds = databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1\nepoch: " + epoch,
          "sharding-count: 2", DIVISOR_2));
      assertThat(GeneShardingCheck.problems(ds)).as(epoch).isEmpty();
    }
    DataSource leased = databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE",
        "worker-assigner: static\nworker-id: 2\nepoch: 2025-01-01T00:00:00Z", "sharding-count: 2",
        DIVISOR_2));
    assertThat(GeneShardingCheck.problems(leased)).isEmpty();
  }

  @Test
  void anUnknownKeyGeneratorPropertyFailsStartUp() {
    Throwable t = failure(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE",
        "worker-id: 1\nworker-bit: 8", "sharding-count: 2", DIVISOR_2)));
    assertThat(t).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_SNOWFLAKE has no property 'worker-bit'; allowed: worker-assigner, worker-id, epoch,"
            + " timestamp-bits, worker-bits, sequence-bits, gene-bits, max-borrow-millis, string-ids, string-id-prefix,"
            + " string-id-date");
  }

  @Test
  void aBadWorkerAssignerPropertyFailsStartUpNamingIt() {
    Throwable typo = failure(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE",
        "worker-assigner: redis\nredis-url: redis://127.0.0.1:6379", "sharding-count: 2", DIVISOR_2)));
    assertThat(typo).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("GENE_SNOWFLAKE with worker-assigner=redis has no property 'redis-url'; allowed: clock-backwards-max-wait, epoch,");
    Throwable ttl = failure(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE",
        "worker-assigner: redis\nredis-uri: redis://127.0.0.1:6379\nlease-ttl: forever", "sharding-count: 2",
        DIVISOR_2)));
    assertThat(ttl).hasMessage("GENE_SNOWFLAKE property 'lease-ttl' must be a duration such as 30s, 1500ms or PT30S but was"
        + " 'forever'");
  }

  @Test
  void aMissingWorkerIdFailsStartUp() {
    Throwable t = failure(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "gene-bits: 6",
        "sharding-count: 2", DIVISOR_2)));
    assertThat(t).hasMessage("GENE_SNOWFLAKE property 'worker-id' is required: a whole number in [0, 255]");
  }

  @Test
  void aBadSegmentPropertyFailsStartUpNamingIt() {
    Throwable t = failure(() -> databases.shardingSphere(Rules.withKeyGenerator("GENE_SEGMENT",
        "segment-store: redis\nredis-uri: redis://127.0.0.1:6379\nmin-step: 0")));
    assertThat(t).hasMessage("GENE_SEGMENT property 'min-step' must be in [1, 1000000000] but was 0");
  }

  @Test
  void segmentGeneBitsThatDifferFromTheAlgorithmsStopStartUp() {
    Throwable t = failure(() -> databases.shardingSphere(Rules.withKeyGenerator("GENE_SEGMENT",
        "segment-store: redis\nredis-uri: redis://127.0.0.1:1\ngene-bits: 4")));
    assertThat(t).hasMessageStartingWith("the ShardingSphere data source of database 'gene_e2e' has gene sharding"
        + " mistakes").hasMessageContaining("\n  - t_order: key generator 'ids' issues ids with gene-bits=4 but"
        + " GENE_MOD[sharding-count=2, gene-divisor=1, gene-bits=6] reads gene-bits=6; set the same gene-bits on both");
  }

  @Test
  void anUnknownShardingPropertyFailsStartUp() {
    Throwable t = failure(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1",
        "sharding-count: 2\n        divisor: 2", DIVISOR_2)));
    assertThat(t).hasMessage("GENE_MOD has no property 'divisor'; allowed: sharding-count, gene-bits, gene-divisor,"
        + " string-ids, string-id-prefix, string-id-date, epoch, timestamp-bits, worker-bits, sequence-bits");
  }

  @Test
  void aMissingShardingCountFailsStartUp() {
    Throwable t = failure(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1",
        "gene-bits: 6", DIVISOR_2)));
    assertThat(t).hasMessage("GENE_MOD property 'sharding-count' is required: a whole number in [1, 64]");
  }

  @Test
  void aShardingCountAboveTwoToTheGeneBitsFailsStartUp() {
    Throwable t = failure(() -> databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1",
        "sharding-count: 8\n        gene-bits: 2", DIVISOR_2)));
    assertThat(t).hasMessage("GENE_MOD property 'sharding-count' must be in [1, 4] but was 8");
  }

  /** With the check turned off the data source starts, and {@link GeneShardingCheck#verify} still reports. */
  @Test
  void geneBitsThatDifferBetweenGeneratorAndAlgorithmAreReportedWhenTheStartUpCheckIsOff() throws Exception {
    String rules = Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1\ngene-bits: 8\ntimestamp-bits: 39", "sharding-count: 2",
        DIVISOR_2);
    String line = "t_order: key generator 'ids' issues ids with gene-bits=8 but GENE_MOD[sharding-count=2,"
        + " gene-divisor=1, gene-bits=6] reads gene-bits=6; set the same gene-bits on both";
    assertThat(failure(() -> databases.shardingSphere(rules))).hasMessageContaining(line);
    DataSource ds;
    System.setProperty(GeneShardingCheckListener.SWITCH, "false");
    try {
      ds = databases.shardingSphere(rules);
    } finally {
      System.clearProperty(GeneShardingCheckListener.SWITCH);
    }
    assertThatThrownBy(() -> GeneShardingCheck.verify(ds))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("gene sharding configuration is wrong:")
        .hasMessageContaining(line)
        .hasMessageContaining("t_item: key generator 'ids' issues ids with gene-bits=8 but"
            + " GENE_MOD[sharding-count=2, gene-divisor=2, gene-bits=6] reads gene-bits=6");
  }

  @Test
  void theDiagonalIsReportedAsUnreachableNodes() throws Exception {
    DataSource ds = databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1", "sharding-count: 2",
        "sharding-count: 2"));
    assertThat(GeneShardingCheck.problems(ds)).containsExactly(
        "t_order: no gene ever routes to [ds_0.t_order_1, ds_1.t_order_0] (database GENE_MOD[sharding-count=2,"
            + " gene-divisor=1, gene-bits=6], table GENE_MOD[sharding-count=2, gene-divisor=1, gene-bits=6]); with"
            + " table suffixes that repeat in every database give the table level gene-divisor = the number of"
            + " databases",
        "t_item: no gene ever routes to [ds_0.t_item_1, ds_1.t_item_0] (database GENE_MOD[sharding-count=2,"
            + " gene-divisor=1, gene-bits=6], table GENE_MOD[sharding-count=2, gene-divisor=1, gene-bits=6]); with"
            + " table suffixes that repeat in every database give the table level gene-divisor = the number of"
            + " databases");
    assertThatThrownBy(() -> GeneShardingCheck.verify(ds)).hasMessageContaining("no gene ever routes to");
  }

  @Test
  void aShardingCountBelowTheNumberOfTablesLeavesTablesUnreachable() throws Exception {
    DataSource ds = databases.shardingSphere(Rules.yaml("GENE_SNOWFLAKE", "worker-id: 1", "sharding-count: 1",
        "sharding-count: 2"));
    assertThat(GeneShardingCheck.problems(ds)).hasSize(4)
        .anyMatch(p -> p.startsWith("t_order: target ds_1 ends with _1 but sharding-count is 1: no gene routes to it"))
        .filteredOn(p -> p.contains("no gene ever routes to")).hasSize(2)
        .allMatch(p -> p.contains("no gene ever routes to [ds_1."));
  }

  @Test
  void theStandardConfigurationPassesTheCheck() throws Exception {
    assertThat(GeneShardingCheck.problems(databases.shardingSphere(Rules.gene()))).isEmpty();
    assertThat(GeneShardingCheck.problems(databases.shardingSphere(Rules.snowflake()))).isEmpty();
  }

  @Test
  void aDataSourceThatIsNotShardingSphereIsRefused() {
    assertThatThrownBy(() -> GeneShardingCheck.problems(databases.physical("ds_0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a ShardingSphere-JDBC data source: ");
  }
}
