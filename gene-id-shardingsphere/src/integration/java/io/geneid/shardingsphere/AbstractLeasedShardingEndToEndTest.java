package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * GENE_SNOWFLAKE with a leased worker id ({@code worker-assigner: redis | jdbc}) through the ShardingSphere driver:
 * the same orders and items as every end-to-end test, then the ids are checked against the one lease of the run.
 */
abstract class AbstractLeasedShardingEndToEndTest extends AbstractShardingEndToEndTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  /** A pool name unique to this run. */
  final String space = "gid_ss_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
      .toLowerCase(Locale.ROOT);

  /** The GENE_SNOWFLAKE props, one {@code key: value} per line. */
  abstract String keyGeneratorProps();

  /** The worker ids the store holds an unexpired lease on in {@link #space}. */
  abstract List<Long> leasedInStore() throws Exception;

  /** Frees what the store holds for this run. */
  abstract void cleanStore() throws Exception;

  @Override
  Backend backend() {
    return Backend.H2;
  }

  @Override
  String rules() {
    return Rules.withKeyGenerator("GENE_SNOWFLAKE", keyGeneratorProps());
  }

  @Override
  void afterStop() throws Exception {
    try {
      leasedGenerators().forEach(LeasedGeneGenerator::close); // releases the lease, stops the renewal thread
    } finally {
      cleanStore();
    }
  }

  /** The leased generators of this JVM in {@link #space}. */
  List<LeasedGeneGenerator> leasedGenerators() {
    List<LeasedGeneGenerator> result = new ArrayList<>();
    GeneIdRegistry.allShared().forEach(g -> {
      if (g instanceof LeasedGeneGenerator && ((LeasedGeneGenerator) g).space().equals(space)) {
        result.add((LeasedGeneGenerator) g);
      }
    });
    return result;
  }

  @Test
  void everyIdCarriesTheLeasedWorkerIdAndEveryInstanceSharesTheOneLease() throws Exception {
    List<LeasedGeneGenerator> generators = leasedGenerators();
    assertThat(generators).as("leased generators of space %s", space).hasSize(1);
    LeasedGeneGenerator leased = generators.get(0);
    long workerId = leased.workerId();
    assertThat(leasedInStore()).containsExactly(workerId);

    List<Long> ids = new ArrayList<>(orderIds);
    ids.addAll(itemIds);
    assertThat(ids).hasSize(10 + 17).doesNotHaveDuplicates()
        .allSatisfy(id -> assertThat(LAYOUT.decode(id).workerId()).as("worker id of %d", id).isEqualTo(workerId));

    // the rule's instance, and any other instance configured alike (ShardingSphere's checker), share it
    GeneSnowflakeKeyGenerateAlgorithm rule = (GeneSnowflakeKeyGenerateAlgorithm) Rules.keyGenerator(sharded(), "ids");
    assertThat(rule.generator()).isSameAs(leased);
    GeneSnowflakeKeyGenerateAlgorithm another = new GeneSnowflakeKeyGenerateAlgorithm();
    another.init(Rules.properties(keyGeneratorProps()));
    assertThat(another.generator()).isSameAs(leased);
    assertThat(leasedInStore()).containsExactly(workerId);
    // each instance holds a counted handle: closing one (as a Spring context closing its bean would) leaves the
    // shared generator, and its lease, to the others (#11 scenario 10)
    another.close();
    assertThat(leased.isIssuing()).isTrue();
    assertThat(rule.generateKeys(null, 2)).hasSize(2);
    assertThat(leasedInStore()).containsExactly(workerId);
  }
}
