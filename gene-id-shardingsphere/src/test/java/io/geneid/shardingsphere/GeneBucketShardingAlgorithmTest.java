package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketPlanner;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.junit.jupiter.api.Test;

class GeneBucketShardingAlgorithmTest {

  private static final List<String> TABLES = List.of("t_item_0", "t_item_1", "t_item_2", "t_item_3");
  private static final DataNodeInfo NODE = new DataNodeInfo("t_item_", 1, '0');

  static GeneBucketShardingAlgorithm algorithm(Object... keyValues) {
    Properties props = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      props.put(keyValues[i], keyValues[i + 1]);
    }
    GeneBucketShardingAlgorithm algorithm = new GeneBucketShardingAlgorithm();
    algorithm.init(props);
    return algorithm;
  }

  private static PreciseShardingValue<Comparable<?>> precise(String column, Comparable<?> value) {
    return new PreciseShardingValue<>("t_item", column, NODE, value);
  }

  @Test
  void routesEveryIdAsGeneModWithTheSameProperties() {
    for (int divisor : new int[] {1, 2, 4}) {
      GeneModShardingAlgorithm mod = GeneModShardingAlgorithmTest.algorithm("sharding-count", 4, "gene-divisor",
          divisor);
      GeneBucketShardingAlgorithm byCount = algorithm("sharding-count", 4, "gene-divisor", divisor);
      GeneBucketShardingAlgorithm byMap = algorithm("bucket-map", BucketMap.ofMod(6, 4, divisor).format());
      for (long id = 0; id < 4096; id += 7) {
        long value = (id << 6) | (id % 64);
        String expected = mod.doSharding(TABLES, precise("id", value));
        assertThat(byCount.doSharding(TABLES, precise("id", value))).isEqualTo(expected);
        assertThat(byMap.doSharding(TABLES, precise("id", value))).isEqualTo(expected);
        assertThat(byMap.doSharding(TABLES, precise("customer", "c-" + id)))
            .isEqualTo(mod.doSharding(TABLES, precise("customer", "c-" + id)));
      }
    }
  }

  @Test
  void routesByTheMap() {
    GeneBucketShardingAlgorithm halves = algorithm("bucket-map", "0=0-15; 1=16-31; 2=32-47; 3=48-63");
    assertThat(halves.doSharding(TABLES, precise("id", (99L << 6) | 17))).isEqualTo("t_item_1");
    assertThat(halves.doSharding(TABLES, precise("id", 63))).isEqualTo("t_item_3");
    assertThat(halves.getType()).isEqualTo("GENE_BUCKET");
    assertThat(halves).hasToString("GENE_BUCKET[gene-bits=6, bucket-map version 0: 0=0-15; 1=16-31; 2=32-47;"
        + " 3=48-63]");
  }

  @Test
  void complexAndHintFormsRouteByGene() {
    GeneBucketShardingAlgorithm halves = algorithm("bucket-map", "0=0-15; 1=16-31; 2=32-47; 3=48-63");
    long order = (5L << 6) | 40;
    long item = (6L << 6) | 40;
    Map<String, java.util.Collection<Comparable<?>>> values = new LinkedHashMap<>();
    values.put("ID", List.of(item));
    values.put("order_id", List.of(order));
    assertThat(halves.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item", values, Map.of())))
        .containsExactly("t_item_2");
    values.put("order_id", List.of((5L << 6) | 41));
    assertThatThrownBy(() -> halves.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item", values, Map.of())))
        .hasMessage("GENE_BUCKET: the sharding columns of t_item carry different genes: id = " + item
            + " has gene 40 but order_id = " + ((5L << 6) | 41) + " has gene 41 (gene-bits=6, bucket-map version 0:"
            + " 0=0-15; 1=16-31; 2=32-47; 3=48-63); they share a target only by chance of the bucket map and would"
            + " split when a bucket moves. A child id must carry its parent's gene: insert the child inside"
            + " GeneContext.inherit(parentId)");
    values.put("order_id", List.of(1L));
    assertThatThrownBy(() -> halves.doSharding(TABLES, new ComplexKeysShardingValue<>("t_item", values, Map.of())))
        .hasMessageStartingWith("GENE_BUCKET: the sharding columns of t_item route to different targets: id = "
            + item + " routes to index 2 but order_id = 1 routes to index 0");
    assertThat(halves.doSharding(TABLES, new HintShardingValue<Comparable<?>>("t_item", "id", List.of(order, 1L))))
        .containsExactly("t_item_2", "t_item_0");
  }

  @Test
  void aNewEmptyTargetIsFineAndAMissingOneIsNamed() {
    GeneBucketShardingAlgorithm two = algorithm("sharding-count", 2);
    assertThat(two.doSharding(TABLES, precise("id", 3))).isEqualTo("t_item_1"); // t_item_2, _3 get no bucket yet
    GeneBucketShardingAlgorithm four = algorithm("sharding-count", 4);
    assertThatThrownBy(() -> four.doSharding(List.of("t_item_0", "t_item_1"), precise("id", 3)))
        .hasMessage("GENE_BUCKET: t_item.id = 3 routes to index 3 but no target ends with _3 among [t_item_0,"
            + " t_item_1] (gene-bits=6, bucket-map version 0: 0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4)");
    assertThatThrownBy(() -> four.doSharding(List.of("t_item_0", "t_item_x", "u_1", "t_item_1"),
        precise("id", 0)))
        .hasMessageEndingWith("cannot route to the targets [t_item_0, t_item_x, u_1, t_item_1]: target t_item_x does"
            + " not end with _<index>, so no bucket routes to it; targets u_1 and t_item_1 both end with _1");
  }

  @Test
  void takesANewMapWithTheSameGeneBits() {
    GeneBucketShardingAlgorithm algorithm = algorithm("sharding-count", 2);
    BucketMap grown = BucketPlanner.plan(algorithm.map(), 4).next();
    algorithm.useMap(grown);
    assertThat(algorithm.doSharding(TABLES, precise("id", 3))).isEqualTo("t_item_3");
    assertThat(algorithm.map().version()).isEqualTo(1);
    assertThatThrownBy(() -> algorithm.useMap(BucketMap.ofMod(5, 2, 1)))
        .hasMessage("GENE_BUCKET routes ids of gene-bits=6 and cannot switch to a map of gene-bits=5");
  }

  @Test
  void badPropertiesAreNamed() {
    assertThatThrownBy(() -> algorithm())
        .hasMessage("GENE_BUCKET needs exactly one of the properties 'bucket-map' (the map, e.g. 0=0-31; 1=32-63)"
            + " and 'sharding-count' (the map of GENE_MOD) but had neither");
    assertThatThrownBy(() -> algorithm("bucket-map", "0=0-63", "sharding-count", 2))
        .hasMessageEndingWith("but had both");
    assertThatThrownBy(() -> algorithm("bucket-map", "0=0-63", "gene-divisor", 2))
        .hasMessage("GENE_BUCKET property 'gene-divisor' goes with 'sharding-count', not with 'bucket-map'");
    assertThatThrownBy(() -> algorithm("bucket-map", "0=0-31"))
        .hasMessage("GENE_BUCKET properties bucket-map gives no target to 32 of 64 buckets: 32-63; every bucket of"
            + " [0, 63] needs one");
    assertThatThrownBy(() -> algorithm("bucket-map", "0=0-7", "gene-bits", 3, "colour", "red"))
        .hasMessageStartingWith("GENE_BUCKET has no property 'colour'");
    assertThatThrownBy(() -> algorithm("sharding-count", 65))
        .hasMessageContaining("sharding-count").hasMessageContaining("65");
    assertThatThrownBy(() -> new GeneBucketShardingAlgorithm().map())
        .hasMessage("GENE_BUCKET was used before init(Properties)");
    assertThat(new GeneBucketShardingAlgorithm()).hasToString("GENE_BUCKET[not initialised]");
  }
}
