package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.client.FakeServer;
import io.geneid.client.GeneServerUnavailableException;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.Genes;
import io.geneid.core.testing.TestTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.infra.spi.type.typed.TypedSPILoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * GENE_SERVER on its own, over a {@link FakeServer} of the documented HTTP shapes (the client against the real
 * server: gene-id-client's {@code GeneIdClientServerTest}).
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class GeneServerKeyGenerateAlgorithmTest {

  private FakeServer server;

  @BeforeEach
  void start() throws Exception {
    server = new FakeServer(GeneIdLayout.defaults(), 3);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static AlgorithmSQLContext table(String name) {
    return new AlgorithmSQLContext("db", "public", name, "id");
  }

  private static Properties props(Object... keyValues) {
    Properties props = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    return props;
  }

  private static GeneServerKeyGenerateAlgorithm algorithm(Object... keyValues) {
    GeneServerKeyGenerateAlgorithm algorithm = new GeneServerKeyGenerateAlgorithm();
    algorithm.init(props(keyValues));
    return algorithm;
  }

  @SuppressWarnings("unchecked")
  private static List<Comparable<?>> keys(KeyGenerateAlgorithm algorithm, String table, int count) {
    return new ArrayList<>((Collection<Comparable<?>>) algorithm.generateKeys(table(table), count));
  }

  @Test
  void isFoundByShardingSphereAndSpreadsTheRootRowsOfEachTableOverAllGenes() {
    KeyGenerateAlgorithm algorithm = TypedSPILoader.getService(KeyGenerateAlgorithm.class, "GENE_SERVER",
        props("server-urls", server.url(), "batch-size", "100"));
    assertThat(algorithm).isInstanceOf(GeneServerKeyGenerateAlgorithm.class);
    Set<Long> genes = new HashSet<>();
    Set<Object> all = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      long id = (Long) keys(algorithm, "t_order", 1).get(0);
      genes.add(id & 63);
      assertThat(all.add(id)).isTrue();
    }
    assertThat(genes).as("one thread, one table: every gene once per 64 rows").hasSize(64);
    List<Comparable<?>> batch = keys(algorithm, "t_order", 64);
    assertThat(batch.stream().map(id -> (Long) id & 63).distinct().count()).isEqualTo(64);
    assertThat(all.addAll(batch)).isTrue();
    assertThat(all).hasSize(128);
  }

  @Test
  void insideAScopeEveryKeyCarriesTheParentsGene() {
    GeneServerKeyGenerateAlgorithm algorithm = algorithm("server-urls", server.url());
    try (var scope = GeneContext.inherit("customer-42")) {
      for (Comparable<?> id : keys(algorithm, "t_order", 10)) {
        assertThat((Long) id & 63).isEqualTo(Genes.of("customer-42", 6));
      }
    }
    try (var scope = GeneContext.inheritEach(List.of(1L, 2L, 65L))) {
      assertThat(keys(algorithm, "t_order_item", 3)).extracting(id -> (Long) id & 63).containsExactly(1L, 2L, 1L);
    }
  }

  @Test
  void segmentIdsOfTheLogicalTableOrOfABizTag() {
    GeneServerKeyGenerateAlgorithm byTable = algorithm("server-urls", server.url(), "ids", "segment");
    List<Comparable<?>> ids = keys(byTable, "T_Order", 5);
    assertThat(ids).extracting(id -> (Long) id >>> 6).doesNotHaveDuplicates();
    try (var scope = GeneContext.inherit(7L)) {
      assertThat(keys(byTable, "t_order", 3)).extracting(id -> (Long) id & 63).containsOnly(7L);
    }
    GeneServerKeyGenerateAlgorithm tagged = algorithm("server-urls", server.url(), "ids", "segment", "biz-tag",
        "order", "string-ids", "true", "string-id-prefix", "ORD");
    assertThat(keys(tagged, "t_order", 2)).allSatisfy(id -> assertThat((String) id).startsWith("ORD").hasSize(16));
  }

  @Test
  void whenTheServersDoNotAnswerTheInsertFailsNamingThem() {
    server.mode = FakeServer.Mode.UNAVAILABLE;
    GeneServerKeyGenerateAlgorithm algorithm = algorithm("server-urls", server.url() + ", http://127.0.0.1:1",
        "retry-rounds", "0", "request-timeout", TestTime.seconds(3).toMillis() + "ms"); // the 503 must come in time
    assertThatThrownBy(() -> keys(algorithm, "t_order", 1))
        .isInstanceOf(GeneServerUnavailableException.class)
        .hasMessageContaining(server.url() + " (HTTP 503 unavailable")
        .hasMessageContaining("http://127.0.0.1:1 (");
  }

  @Test
  void badPropertiesAreNamed() {
    assertThatThrownBy(() -> algorithm())
        .hasMessageContaining("GENE_SERVER property 'server-urls' is required");
    assertThatThrownBy(() -> algorithm("server-urls", "ftp://x"))
        .hasMessageStartingWith("GENE_SERVER: address must be an http or https URL");
    assertThatThrownBy(() -> algorithm("server-urls", server.url(), "ids", "leaf"))
        .hasMessage("GENE_SERVER property 'ids' must be snowflake or segment but was 'leaf'");
    assertThatThrownBy(() -> algorithm("server-urls", server.url(), "biz-tag", "order"))
        .hasMessage("GENE_SERVER property 'biz-tag' names a segment key: set 'ids' to segment");
    assertThatThrownBy(() -> algorithm("server-urls", server.url(), "ids", "segment", "biz-tag", "a b"))
        .hasMessage("GENE_SERVER property 'biz-tag': segment key must be 1 to 128 of A-Z a-z 0-9 . _ - : but was"
            + " 'a b'");
    assertThatThrownBy(() -> algorithm("server-urls", server.url(), "batch-size", "0"))
        .hasMessageContaining("batch-size").hasMessageContaining("[1, 65536]");
    assertThatThrownBy(() -> algorithm("server-urls", server.url(), "worker-id", "1"))
        .hasMessageContaining("GENE_SERVER has no property 'worker-id'");
    assertThat(algorithm("server-urls", server.url(), "bearer-token", "s3cret").toString())
        .doesNotContain("s3cret").contains("bearer-token=(set)");
  }
}
