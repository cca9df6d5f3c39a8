package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.snowflake.LeasedGeneGenerator;
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
        .hasMessage("GENE_SNOWFLAKE has no property 'workers'; allowed: worker-assigner, worker-id, epoch,"
            + " timestamp-bits, worker-bits, sequence-bits, gene-bits, max-borrow-millis, string-ids, string-id-prefix,"
            + " string-id-date");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "lease-ttl", "5s"))
        .hasMessageStartingWith("GENE_SNOWFLAKE has no property 'lease-ttl'; allowed: worker-assigner, worker-id,");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "gene-bits", 17))
        .hasMessage("GENE_SNOWFLAKE property 'gene-bits' must be in [0, 16] but was 17");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "max-borrow-millis", -1))
        .hasMessage("GENE_SNOWFLAKE property 'max-borrow-millis' must be in [0, 60000] but was -1");
    assertThatThrownBy(() -> algorithm("worker-id", "one"))
        .hasMessage("GENE_SNOWFLAKE property 'worker-id' must be a whole number in [0, 255] but was 'one'");
    assertThatThrownBy(() -> algorithm("worker-id", 1, "gene-bits", 7))
        .hasMessage("GENE_SNOWFLAKE properties timestamp-bits + worker-bits + sequence-bits + gene-bits must be 63"
            + " (the defaults are 41 + 8 + 8 + 6) but was 64 (41 + 8 + 8 + 7)");
    assertThat(algorithm("worker-id", 1, "epoch", "Wed Jan 01 00:00:00 UTC 2025").layout().epoch())
        .isEqualTo(Instant.parse("2025-01-01T00:00:00Z")); // ShardingSphere's text of an unquoted YAML timestamp
    assertThatThrownBy(() -> algorithm("worker-id", 1, "epoch", "1735689600"))
        .hasMessage("GENE_SNOWFLAKE property 'epoch' must be Unix milliseconds from 2000-01-01T00:00:00Z on, an"
            + " ISO-8601 instant or a date but was 1735689600 (1970-01-21T02:08:09.600Z): that looks like seconds;"
            + " write 1735689600000 or 2025-01-01T00:00:00Z");
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

  // ---------------------------------------------------------------- leased worker ids

  private static final String NOWHERE = "redis://127.0.0.1:1"; // nothing listens on port 1

  @Test
  void aLeasedConfigurationIsCheckedAtInitWithoutReachingTheStoreWhichIsReachedOnFirstUse() {
    String space = "gid_ss_unit_" + System.nanoTime();
    GeneSnowflakeKeyGenerateAlgorithm algorithm = algorithm("worker-assigner", "redis", "redis-uri", NOWHERE,
        "space", space, "lease-ttl", "1s", "lease-acquire-timeout", "0s", "gene-bits", 6);
    assertThat(algorithm.layout()).isEqualTo(GeneIdLayout.defaults());
    assertThat(algorithm).hasToString("GENE_SNOWFLAKE[worker-assigner=redis, space=" + space + ", "
        + GeneIdLayout.defaults() + ", maxBorrowMillis=10]");
    assertThat(GeneIdRegistry.allShared()).noneMatch(g -> g instanceof LeasedGeneGenerator
        && ((LeasedGeneGenerator) g).space().equals(space));
    assertThatThrownBy(() -> keys(algorithm, 1))
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("cannot reach the worker-id lease store, Redis at redis://127.0.0.1:1");
  }

  @Test
  void badLeasePropertiesFailAtInitNamingTheProperty() {
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "space", "s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_SNOWFLAKE property 'redis-uri' is required: a Redis URI such as redis://127.0.0.1:6379/0");
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "redis-uri", NOWHERE, "lease-ttl", "soon"))
        .hasMessage("GENE_SNOWFLAKE property 'lease-ttl' must be a duration such as 30s, 1500ms or PT30S but was 'soon'");
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "redis-uri", NOWHERE, "lease-ttl", "10ms"))
        .hasMessage("GENE_SNOWFLAKE property 'lease-ttl' must be in [100ms, 3600000ms] but was 10ms");
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "redis-uri", NOWHERE, "space", "a b"))
        .hasMessage("GENE_SNOWFLAKE property 'space' must be 1 to 64 characters of A-Z a-z 0-9 . _ - but was 'a b'");
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "redis-uri", NOWHERE, "lease-ttl", "3s",
        "lease-renew-interval", "3s"))
        .hasMessage("GENE_SNOWFLAKE property 'lease-renew-interval' must be in [10ms, 3000ms) (below lease-ttl) but was 3000ms");
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "redis-uri", "http://x"))
        .hasMessageStartingWith("GENE_SNOWFLAKE property 'redis-uri' must be a Redis URI such as redis://127.0.0.1:6379/0 or"
            + " redis://:password@host:6379/0 but was 'http://x' (");
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "redis-uri", NOWHERE, "worker-id", 3))
        .hasMessage("GENE_SNOWFLAKE with worker-assigner=redis has no property 'worker-id'; allowed:"
            + " clock-backwards-max-wait, epoch, gene-bits, lease-acquire-timeout, lease-owner, lease-renew-interval,"
            + " lease-ttl, max-borrow-millis, redis-key-prefix, redis-timeout, redis-uri, sequence-bits, space,"
            + " timestamp-bits, worker-assigner, worker-bits, worker-id-max, worker-id-min");
    assertThatThrownBy(() -> algorithm("worker-assigner", "jdbc", "jdbc-url", "mariadb://x"))
        .hasMessage("GENE_SNOWFLAKE property 'jdbc-url' must be a JDBC URL starting with jdbc: but was 'mariadb://x'");
    assertThatThrownBy(() -> algorithm("worker-assigner", "jdbc", "jdbc-url", "jdbc:h2:mem:x",
        "jdbc-create-table", "yes"))
        .hasMessage("GENE_SNOWFLAKE property 'jdbc-create-table' must be true or false but was 'yes'");
    assertThatThrownBy(() -> algorithm("worker-assigner", "jdbc", "jdbc-url", "jdbc:h2:mem:x",
        "jdbc-table", "drop table"))
        .hasMessageStartingWith("GENE_SNOWFLAKE: jdbc-table must be a plain SQL name");
    assertThatThrownBy(() -> algorithm("worker-assigner", "zookeeper"))
        .hasMessage("GENE_SNOWFLAKE: worker-assigner must be one of [jdbc, redis, static] but was 'zookeeper'");
    assertThatThrownBy(() -> algorithm("worker-assigner", "redis", "redis-uri", NOWHERE, "worker-bits", 4,
        "timestamp-bits", 45, "worker-id-min", 16))
        .hasMessage("GENE_SNOWFLAKE property 'worker-id-min' must be in [0, 15] (the layout's worker ids; space"
            + " 'default') but was 16");
  }
}
