package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.Range;
import io.geneid.core.GeneIdLayout;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.junit.jupiter.api.Test;

class GeneModShardingAlgorithmTest {

  private static final List<String> DATABASES = List.of("ds_0", "ds_1");
  private static final List<String> TABLES = List.of("t_item_0", "t_item_1", "t_item_2", "t_item_3");
  private static final DataNodeInfo NODE = new DataNodeInfo("t_item_", 1, '0');

  static GeneModShardingAlgorithm algorithm(Object... keyValues) {
    Properties props = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    GeneModShardingAlgorithm algorithm = new GeneModShardingAlgorithm();
    algorithm.init(props);
    return algorithm;
  }

  private static PreciseShardingValue<Comparable<?>> precise(String column, Comparable<?> value) {
    return new PreciseShardingValue<>("t_item", column, NODE, value);
  }

  @Test
  void routesByTheGeneModuloTheShardingCount() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    long id = (12345L << 6) | 0b10_1110; // gene 46 -> 46 % 4 = 2
    assertThat(mod4.doSharding(TABLES, precise("id", id))).isEqualTo("t_item_2");
    assertThat(mod4.doSharding(TABLES, precise("id", 46))).isEqualTo("t_item_2");
    assertThat(mod4.doSharding(TABLES, precise("id", BigDecimal.valueOf(id)))).isEqualTo("t_item_2");
    assertThat(mod4.getType()).isEqualTo("GENE_MOD");
  }

  @Test
  void theGeneDivisorSpreadsTheTableLevelAcrossTheGenesTheDatabaseLevelAlreadyUsed() {
    GeneModShardingAlgorithm databases = algorithm("sharding-count", 2);
    GeneModShardingAlgorithm tables = algorithm("sharding-count", 2, "gene-divisor", 2);
    List<String> twoTables = List.of("t_item_0", "t_item_1");
    Map<String, Integer> nodes = new LinkedHashMap<>();
    for (long gene = 0; gene < 64; gene++) {
      nodes.merge(databases.doSharding(DATABASES, precise("id", gene)) + "."
          + tables.doSharding(twoTables, precise("id", gene)), 1, Integer::sum);
    }
    assertThat(nodes).containsOnly(Map.entry("ds_0.t_item_0", 16), Map.entry("ds_1.t_item_0", 16),
        Map.entry("ds_0.t_item_1", 16), Map.entry("ds_1.t_item_1", 16));
  }

  @Test
  void stringAndUuidKeysRouteByCrc32cLikeTheGenerator() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    GeneIdLayout layout = GeneIdLayout.defaults();
    String customer = "customer-42@example.com";
    UUID uuid = UUID.fromString("3f2504e0-4f89-11d3-9a0c-0305e82c3301");
    assertThat(mod4.doSharding(TABLES, precise("customer", customer)))
        .isEqualTo("t_item_" + layout.geneOf(customer) % 4);
    assertThat(mod4.doSharding(TABLES, precise("customer", uuid)))
        .isEqualTo("t_item_" + layout.geneOf(uuid.toString()) % 4);
  }

  @Test
  void targetCollectionsAreCheckedOnceEachAndRoutedAlikeWhateverTheirType() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    // ShardingSphere hands LinkedHashSets; others hand lists; two databases hand equal but distinct collections
    java.util.Set<String> set = new java.util.LinkedHashSet<>(TABLES);
    List<String> list = new java.util.ArrayList<>(TABLES);
    for (long gene = 0; gene < 64; gene++) {
      String expected = "t_item_" + gene % 4;
      assertThat(mod4.doSharding(set, precise("id", gene))).isEqualTo(expected);
      assertThat(mod4.doSharding(list, precise("id", gene))).isEqualTo(expected);
      assertThat(mod4.doSharding(set, complex(Map.of("id", List.of(gene), "order_id", List.of(gene + 64)))))
          .containsExactly(expected);
    }
    // a collection that grows is checked again: its new target ends with no index a gene reaches
    set.add("t_item_9");
    assertThatThrownBy(() -> mod4.doSharding(set, precise("id", 1L))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("target t_item_9 ends with _9 but sharding-count is 4: no gene routes to it");
    // a collection missing an index names it when a gene routes there
    List<String> three = List.of("t_item_0", "t_item_1", "t_item_2");
    assertThat(mod4.doSharding(three, precise("id", 2L))).isEqualTo("t_item_2");
    assertThatThrownBy(() -> mod4.doSharding(three, precise("id", 3L))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("routes to index 3 but no target ends with _3 among [t_item_0, t_item_1, t_item_2]");
  }

  @Test
  void rangesRouteToEveryTarget() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    assertThat(mod4.doSharding(TABLES, new RangeShardingValue<Comparable<?>>("t_item", "id", NODE,
        Range.closed(1L, 1000L)))).containsExactlyElementsOf(TABLES);
  }

  @Test
  void nullAndNonNumericValuesAreRefusedWithTheColumnAndValue() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    assertThatThrownBy(() -> mod4.doSharding(TABLES, precise("order_id", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_MOD: t_item.order_id is null; a sharding value must be a whole number, a String or a UUID");
    assertThatThrownBy(() -> mod4.doSharding(TABLES, precise("order_id", 1.5d)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_MOD: cannot route t_item.order_id = 1.5: parent key must be a whole number, a String or"
            + " a UUID but was java.lang.Double 1.5");
    assertThatThrownBy(() -> mod4.doSharding(TABLES, precise("order_id", new BigDecimal("2.5"))))
        .hasMessage("GENE_MOD: cannot route t_item.order_id = 2.5: parent key must be an integral number but was"
            + " 2.5");
  }

  @Test
  void aGeneWhoseIndexHasNoTargetIsAnErrorListingTheTargets() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    assertThatThrownBy(() -> mod4.doSharding(List.of("t_item_0", "t_item_2"), precise("id", 3L)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("GENE_MOD: t_item.id = 3 routes to index 3 but no target ends with _3 among"
            + " [t_item_0, t_item_2] (sharding-count=4, gene-divisor=1, gene-bits=6)");
    // suffixes are compared as numbers, not as text
    assertThat(algorithm("sharding-count", 16).doSharding(List.of("t_1", "t_11", "t_012"), precise("id", 11L)))
        .isEqualTo("t_11");
  }

  @Test
  void everyProblemOfATargetSetIsReportedOnItsFirstRoutingCall() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    // gene 0 has a target; the set is still refused as a whole, before a row of a bad gene arrives
    assertThatThrownBy(() -> mod4.doSharding(List.of("t_item_0", "a_1", "b_1", "t_item", "t_item_4"),
        precise("id", 0L)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("GENE_MOD (sharding-count=4, gene-divisor=1, gene-bits=6) cannot route to the targets [t_item_0,"
            + " a_1, b_1, t_item, t_item_4]: targets a_1 and b_1 both end with _1; target t_item does not end with"
            + " _<index>, so no gene routes to it; target t_item_4 ends with _4 but sharding-count is 4: no gene"
            + " routes to it");
  }

  @Test
  void complexRoutesAChildAndItsParentTogether() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    long order = (777L << 6) | 13; // gene 13 -> 1
    long item = (999L << 6) | 13;
    assertThat(mod4.doSharding(TABLES, complex(Map.of("ID", List.of(item), "order_id", List.of(order)))))
        .containsExactly("t_item_1");
    assertThat(mod4.doSharding(TABLES, complex(Map.of("order_id", List.of(order))))).containsExactly("t_item_1");
    assertThat(mod4.doSharding(TABLES, complex(Map.of("id", List.of(1L, 2L, 6L))))).containsExactly("t_item_1",
        "t_item_2");
    // a range on one column does not narrow; the other column does
    assertThat(mod4.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item", Map.of("order_id", List.of(order)),
        Map.of("id", Range.atLeast(5L))))).containsExactly("t_item_1");
    assertThat(mod4.doSharding(TABLES, new ComplexKeysShardingValue<Comparable<?>>("t_item", Map.of(),
        Map.of("id", Range.atLeast(5L))))).containsExactlyElementsOf(TABLES);
    // the same column in two cases is one column
    assertThat(mod4.doSharding(TABLES, complex(Map.of("ID", List.of(1L), "id", List.of(5L)))))
        .containsExactly("t_item_1");
  }

  @Test
  void complexValuesThatDisagreeAreAnErrorNamingBothValues() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    Map<String, List<Comparable<?>>> values = new LinkedHashMap<>();
    values.put("id", List.of(5L));
    values.put("order_id", List.of(6L));
    assertThatThrownBy(() -> mod4.doSharding(TABLES, complex(values)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_MOD: the sharding columns of t_item route to different targets: id = 5 routes to index 1"
            + " but order_id = 6 routes to index 2 (sharding-count=4, gene-divisor=1, gene-bits=6); a child id must"
            + " carry its parent's gene: insert the child inside GeneContext.inherit(parentId)");
  }

  @Test
  void complexValuesWithDifferentGenesAreRefusedEvenWhenTheyShareATarget() {
    GeneModShardingAlgorithm mod4 = algorithm("sharding-count", 4);
    Map<String, List<Comparable<?>>> values = new LinkedHashMap<>();
    values.put("id", List.of((999L << 6) | 1)); // gene 1 -> index 1
    values.put("order_id", List.of(5L)); // gene 5 -> index 1 too
    assertThatThrownBy(() -> mod4.doSharding(TABLES, complex(values)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_MOD: the sharding columns of t_item carry different genes: id = 63937 has gene 1 but"
            + " order_id = 5 has gene 5 (sharding-count=4, gene-divisor=1, gene-bits=6); they share a target only"
            + " by chance of the modulo and would split when the shard count changes. A child id must carry its"
            + " parent's gene: insert the child inside GeneContext.inherit(parentId)");
  }

  @Test
  void hintValuesRouteByGene() {
    GeneModShardingAlgorithm mod2 = algorithm("sharding-count", 2);
    assertThat(mod2.doSharding(DATABASES, new HintShardingValue<Comparable<?>>("t_item", "order_id",
        List.of(3L, 5L)))).containsExactly("ds_1");
    assertThat(mod2.doSharding(DATABASES, new HintShardingValue<Comparable<?>>("t_item", "order_id",
        List.of(3L, 4L)))).containsExactly("ds_1", "ds_0");
  }

  @Test
  void propertiesAreCheckedAtInit() {
    assertThatThrownBy(() -> algorithm())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_MOD property 'sharding-count' is required: a whole number in [1, 64]");
    assertThatThrownBy(() -> algorithm("sharding-count", 65))
        .hasMessage("GENE_MOD property 'sharding-count' must be in [1, 64] but was 65");
    assertThatThrownBy(() -> algorithm("sharding-count", 8, "gene-bits", 2))
        .hasMessage("GENE_MOD property 'sharding-count' must be in [1, 4] but was 8");
    assertThatThrownBy(() -> algorithm("sharding-count", "four"))
        .hasMessage("GENE_MOD property 'sharding-count' must be a whole number in [1, 64] but was 'four'");
    assertThatThrownBy(() -> algorithm("sharding-count", 2, "gene-bits", 17))
        .hasMessage("GENE_MOD property 'gene-bits' must be in [0, 16] but was 17");
    assertThatThrownBy(() -> algorithm("sharding-count", 4, "gene-divisor", 32))
        .hasMessage("GENE_MOD properties sharding-count * gene-divisor must be at most 2^gene-bits = 64 but was"
            + " 4 * 32 = 128: indexes above 1 would never be used");
    assertThatThrownBy(() -> algorithm("sharding-count", 4, "shards", 4))
        .hasMessage("GENE_MOD has no property 'shards'; allowed: sharding-count, gene-bits, gene-divisor,"
            + " string-ids, string-id-prefix, string-id-date, epoch, timestamp-bits, worker-bits, sequence-bits");
    assertThat(algorithm("sharding-count", "4", "gene-bits", "2", "gene-divisor", "1"))
        .hasToString("GENE_MOD[sharding-count=4, gene-divisor=1, gene-bits=2]");
    assertThat(algorithm("sharding-count", 1, "gene-bits", 0).doSharding(List.of("ds_0"), precise("id", 77L)))
        .isEqualTo("ds_0");
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static ComplexKeysShardingValue<Comparable<?>> complex(Map<String, ? extends List<?>> values) {
    return new ComplexKeysShardingValue<>("t_item", (Map) values, Map.of());
  }
}
