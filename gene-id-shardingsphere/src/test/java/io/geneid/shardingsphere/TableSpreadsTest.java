package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneSpread;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.junit.jupiter.api.Test;

/** One spread per logical table, as ShardingSphere names it. */
class TableSpreadsTest {

  private static AlgorithmSQLContext table(String name) {
    return new AlgorithmSQLContext("db", "public", name, "id");
  }

  @Test
  void oneSpreadPerTableWhateverTheCaseOfItsName() {
    TableSpreads spreads = new TableSpreads();
    GeneSpread orders = spreads.spreadFor(table("t_order"), 6);
    assertThat(spreads.spreadFor(table("T_ORDER"), 6)).isSameAs(orders);
    assertThat(spreads.spreadFor(table(" t_order "), 6)).isSameAs(orders);
    assertThat(spreads.spreadFor(table("t_payment"), 6)).isNotSameAs(orders);
    assertThat(orders.geneBits()).isEqualTo(6);
  }

  @Test
  void anInsertWithoutATableNameSharesOneSpread() {
    TableSpreads spreads = new TableSpreads();
    GeneSpread none = spreads.spreadFor(null, 6);
    assertThat(spreads.spreadFor(table(null), 6)).isSameAs(none);
    assertThat(spreads.spreadFor(table("t_order"), 6)).isNotSameAs(none);
  }

  @Test
  void aGeneratorWithOtherGeneBitsGetsAFreshSpread() {
    TableSpreads spreads = new TableSpreads();
    GeneSpread six = spreads.spreadFor(table("t_order"), 6);
    GeneSpread eight = spreads.spreadFor(table("t_order"), 8);
    assertThat(eight.geneBits()).isEqualTo(8);
    assertThat(spreads.spreadFor(table("t_order"), 8)).isSameAs(eight).isNotSameAs(six);
  }
}
