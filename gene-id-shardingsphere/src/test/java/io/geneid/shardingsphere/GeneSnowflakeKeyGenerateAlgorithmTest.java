package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdRegistry;
import io.geneid.core.GeneSnowflakeGenerator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.infra.spi.type.typed.TypedSPILoader;
import org.junit.jupiter.api.Test;

@SuppressWarnings("try") // a GeneContext scope is used by being open
class GeneSnowflakeKeyGenerateAlgorithmTest {

  private static final AlgorithmSQLContext CONTEXT = new AlgorithmSQLContext("db", "public", "t_item", "id");

  static GeneSnowflakeKeyGenerateAlgorithm algorithm(Object... keyValues) {
    Properties props = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    GeneSnowflakeKeyGenerateAlgorithm algorithm = new GeneSnowflakeKeyGenerateAlgorithm();
    algorithm.init(props);
    return algorithm;
  }

  @SuppressWarnings("unchecked")
  private static List<Long> keys(KeyGenerateAlgorithm algorithm, int count) {
    return new ArrayList<>((java.util.Collection<Long>) algorithm.generateKeys(CONTEXT, count));
  }

  @Test
  void isFoundByShardingSphereUnderItsType() {
    Properties props = new Properties();
    props.setProperty("worker-id", "11");
    KeyGenerateAlgorithm algorithm = TypedSPILoader.getService(KeyGenerateAlgorithm.class, "GENE_SNOWFLAKE", props);
    assertThat(algorithm).isInstanceOf(GeneSnowflakeKeyGenerateAlgorithm.class);
    assertThat(keys(algorithm, 3)).hasSize(3).doesNotHaveDuplicates().allMatch(id -> id > 0);
  }

  @Test
  void initHasNoSideEffectAndEveryInstanceSharesTheRegistryGenerator() {
    GeneIdLayout layout = GeneIdLayout.defaults();
    GeneSnowflakeKeyGenerateAlgorithm checker = algorithm("worker-id", 201);
    GeneSnowflakeKeyGenerateAlgorithm rule = algorithm("worker-id", "201");
    assertThat(GeneIdRegistry.find(layout, 201)).isEmpty();
    List<Long> ids = new ArrayList<>(keys(rule, 100));
    GeneSnowflakeGenerator shared = GeneIdRegistry.find(layout, 201).orElseThrow();
    assertThat(GeneSnowflakeGenerator.builder().workerId(201).build()).isSameAs(shared);
    ids.addAll(keys(checker, 100));
    for (int i = 0; i < 100; i++) {
      ids.add(shared.nextId());
    }
    assertThat(ids).doesNotHaveDuplicates();
    assertThat(ids).allMatch(id -> layout.decode(id).workerId() == 201);
  }

  @Test
  void withoutAScopeRootIdsSpreadOverTheGenes() {
    GeneIdLayout layout = GeneIdLayout.defaults();
    Set<Long> genes = new HashSet<>();
    keys(algorithm("worker-id", 202), 64).forEach(id -> genes.add(layout.geneOf(id)));
    assertThat(genes).hasSize(64);
  }

  @Test
  void insideAScopeEveryIdCarriesTheParentsGeneAndInheritEachGivesOneParentPerRow() {
    GeneIdLayout layout = GeneIdLayout.defaults();
    GeneSnowflakeKeyGenerateAlgorithm algorithm = algorithm("worker-id", 203);
    long order = (123_456L << 6) | 41;
    try (var scope = GeneContext.inherit(order)) {
      assertThat(keys(algorithm, 5)).extracting(layout::geneOf).containsOnly(41L);
    }
    try (var scope = GeneContext.inheritEach(List.of(7L, 8L, "customer-1"))) {
      assertThat(keys(algorithm, 3)).extracting(layout::geneOf)
          .containsExactly(7L, 8L, layout.geneOf("customer-1"));
    }
    assertThatThrownBy(() -> {
      try (var scope = GeneContext.inheritEach(List.of(7L, 8L))) {
        keys(algorithm, 3);
      }
    }).isInstanceOf(IllegalStateException.class)
        .hasMessage("GeneContext scope holds 2 parent keys but id number 3 was requested");
  }

  @Test
  void aCustomLayoutIsHonoured() {
    GeneSnowflakeKeyGenerateAlgorithm algorithm = algorithm("worker-id", 3, "epoch", "2024-06-01T00:00:00Z",
        "timestamp-bits", 42, "worker-bits", 5, "sequence-bits", 8, "gene-bits", 8, "max-borrow-millis", 20);
    GeneIdLayout layout = algorithm.layout();
    assertThat(layout).isEqualTo(new GeneIdLayout(Instant.parse("2024-06-01T00:00:00Z"), 42, 5, 8, 8));
    long id;
    try (var scope = GeneContext.inherit(0xABL)) {
      id = keys(algorithm, 1).get(0);
    }
    assertThat(layout.decode(id).gene()).isEqualTo(0xAB);
    assertThat(layout.decode(id).workerId()).isEqualTo(3);
    assertThat(algorithm("worker-id", 1, "epoch", "2024-06-01").layout().epoch())
        .isEqualTo(Instant.parse("2024-06-01T00:00:00Z"));
    assertThat(algorithm("worker-id", 1, "epoch", "1717200000000").layout().epoch())
        .isEqualTo(Instant.parse("2024-06-01T00:00:00Z"));
  }

  @Test
  void badPropertiesFailAtInitNamingThePropertyAndTheAllowedValues() {
    assertThatThrownBy(() -> algorithm())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_SNOWFLAKE property 'worker-id' is required: a whole number in [0, 255]");
    assertThatThrownBy(() -> algorithm("worker-id", 256))
        .hasMessage("GENE_SNOWFLAKE property 'worker-id' must be in [0, 255] but was 256");
    assertThatThrownBy(() -> algorithm("worker-id", 32, "worker-bits", 5, "timestamp-bits", 44))
        .hasMessage("GENE_SNOWFLAKE property 'worker-id' must be in [0, 31] but was 32");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "workers", 5))
        .hasMessage("GENE_SNOWFLAKE has no property 'workers'; allowed: worker-id, epoch, timestamp-bits,"
            + " worker-bits, sequence-bits, gene-bits, max-borrow-millis");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "gene-bits", 17))
        .hasMessage("GENE_SNOWFLAKE property 'gene-bits' must be in [0, 16] but was 17");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "max-borrow-millis", -1))
        .hasMessage("GENE_SNOWFLAKE property 'max-borrow-millis' must be in [0, 60000] but was -1");
    assertThatThrownBy(() -> algorithm("worker-id", "one"))
        .hasMessage("GENE_SNOWFLAKE property 'worker-id' must be a whole number in [0, 255] but was 'one'");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "gene-bits", 7))
        .hasMessage("GENE_SNOWFLAKE properties epoch=2025-01-01T00:00:00Z, timestamp-bits=41, worker-bits=8,"
            + " sequence-bits=8, gene-bits=7 make no valid layout: timestampBits + workerBits + sequenceBits +"
            + " geneBits must be 63 but was 64 (41 + 8 + 8 + 7) (the four widths must add up to 63; defaults 41, 8,"
            + " 8, 6)");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "epoch", "yesterday"))
        .hasMessageStartingWith("GENE_SNOWFLAKE property 'epoch' must be an ISO-8601 instant such as"
            + " 2025-01-01T00:00:00Z, a date such as 2025-01-01 (UTC) or Unix milliseconds but was 'yesterday'");
  }

  @Test
  void aConflictWithTheGeneratorTheJvmAlreadyHasFailsAtInit() {
    GeneSnowflakeGenerator.builder().workerId(204).maxBorrowMillis(50).build();
    assertThatThrownBy(() -> algorithm("worker-id", 204))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("GENE_SNOWFLAKE with worker-id=204, max-borrow-millis=10 and GeneIdLayout[")
        .hasMessageContaining("conflicts with the generator this JVM already has for that worker id");
    assertThat(keys(algorithm("worker-id", 204, "max-borrow-millis", 50), 1)).hasSize(1);
  }
}
