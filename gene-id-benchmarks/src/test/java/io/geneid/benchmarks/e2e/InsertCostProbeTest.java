package io.geneid.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The probe on H2 with tiny counts: figures for every rule set, and the complex strategy's extra allocation. */
class InsertCostProbeTest {

  @Test
  void theComplexStrategyAllocatesMorePerOrderThanTheStandardOne() throws Exception {
    List<InsertCostProbe.Cost> costs = InsertCostProbe.measure(E2eDatabases.Server.H2, E2eRules.Shape.of("2x2"),
        List.of(E2eRules.USUAL, E2eRules.GENE, E2eRules.GENE_STANDARD, E2eRules.GENE_AUTO), 2, 20);
    assertThat(costs).extracting(InsertCostProbe.Cost::rules)
        .containsExactly(E2eRules.USUAL, E2eRules.GENE, E2eRules.GENE_STANDARD, E2eRules.GENE_AUTO);
    assertThat(costs).allSatisfy(c -> {
      assertThat(c.min()).isPositive().isLessThanOrEqualTo(c.p25());
      assertThat(c.kilobytes()).isPositive();
    });
    // ShardingSphere 5.5.2 builds a ComplexShardingStrategy and splits its columns for every item INSERT
    assertThat(costs.get(1).kilobytes()).isGreaterThan(costs.get(2).kilobytes() + 3);
    // autoTables: one complex strategy per statement instead of a database and a table one
    assertThat(costs.get(1).kilobytes()).isGreaterThan(costs.get(3).kilobytes() + 1);
    String table = InsertCostProbe.table(E2eDatabases.Server.H2, E2eRules.Shape.of("2x2"), 2, 20, costs);
    assertThat(table).contains("| usual |", "| gene |", "| gene-standard |", "| gene-auto |", "| +0 |");
  }

  @Test
  void roundsAndOrdersMustBePositive() {
    assertThatThrownBy(() -> InsertCostProbe.measure(E2eDatabases.Server.H2, E2eRules.Shape.of("2x2"),
        List.of(E2eRules.GENE), 0, 10)).hasMessage("rounds and orders must be >= 1 but were 0 and 10");
  }
}
