package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.Genes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.junit.jupiter.api.Test;

/** {@code GENE_MOD} with {@code string-ids}, and the key generators issuing string keys in batches. */
class StringIdRoutingTest {

  private static final List<String> TABLES = List.of("t_0", "t_1", "t_2", "t_3");
  private static final DataNodeInfo NODE = new DataNodeInfo("t_", 1, '0');
  private static final GeneIdStringFormat ORD = GeneIdStringFormat.builder().prefix("ORD")
      .date(GeneIdLayout.defaults()).build();

  private static String route(GeneModShardingAlgorithm a, Comparable<?> value) {
    return a.doSharding(TABLES, new PreciseShardingValue<>("t", "id", NODE, value));
  }

  @Test
  void aStringIdRoutesByTheGeneOfItsNumberAndOtherStringsByTheirHash() {
    GeneModShardingAlgorithm mod = GeneModShardingAlgorithmTest.algorithm("sharding-count", 4,
        "string-ids", "true", "string-id-prefix", "ORD", "string-id-date", "true");
    for (long id : new long[] {(987_654_321L << 22) | 45, (123_456_789_012L << 22) | 2, (55L << 22) | 63}) {
      String text = ORD.format(id);
      assertThat(route(mod, text)).as(text).isEqualTo(route(mod, id)).isEqualTo("t_" + (id & 63) % 4);
    }
    String plainKey = "customer-42"; // not of the format: CRC-32C as before
    assertThat(route(mod, plainKey)).isEqualTo("t_" + Genes.of(plainKey, 6) % 4);
    GeneModShardingAlgorithm hashing = GeneModShardingAlgorithmTest.algorithm("sharding-count", 4);
    String text = ORD.format((77L << 22) | 1);
    assertThat(route(hashing, text)).isEqualTo("t_" + Genes.of(text, 6) % 4); // string ids off: hashed
  }

  @Test
  void geneBucketRoutesStringIdsAsGeneModDoes() {
    GeneBucketShardingAlgorithm bucket = GeneBucketShardingAlgorithmTest.algorithm("bucket-map",
        "0=0-15; 1=16-31; 2=32-47; 3=48-63", "string-ids", "true", "string-id-prefix", "ORD", "string-id-date",
        "true");
    for (long id : new long[] {(987_654_321L << 22) | 45, (123_456_789_012L << 22) | 2, (55L << 22) | 63}) {
      String text = ORD.format(id);
      assertThat(bucket.doSharding(TABLES, new PreciseShardingValue<>("t", "id", NODE, text))).as(text)
          .isEqualTo(bucket.doSharding(TABLES, new PreciseShardingValue<>("t", "id", NODE, id)))
          .isEqualTo("t_" + (id & 63) / 16);
    }
    assertThat(bucket.toString()).as("the string format is part of the rule").contains("ORD");
  }

  @Test
  void anAlteredStringIdIsRefusedNamingIt() {
    GeneModShardingAlgorithm mod = GeneModShardingAlgorithmTest.algorithm("sharding-count", 4,
        "string-ids", "true", "string-id-prefix", "ORD", "string-id-date", "true");
    String text = ORD.format(GeneIdLayout.defaults().encode(new io.geneid.core.GeneIdParts(
        java.time.Instant.parse("2026-03-01T10:00:00Z"), 1, 1, 1)));
    String altered = "ORD20260302" + text.substring(11);
    assertThatThrownBy(() -> route(mod, altered))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("GENE_MOD: cannot route t.id = " + altered + ": string id '" + altered
            + "' has the date part 20260302 but its id");
  }

  @Test
  void stringPropertiesAreChecked() {
    assertThatThrownBy(() -> GeneModShardingAlgorithmTest.algorithm("sharding-count", 4, "string-id-prefix", "ORD"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_MOD property 'string-id-prefix' must be unset while GENE_MOD property 'string-ids' is false"
            + " (it configures string ids) but was set");
    assertThatThrownBy(() -> GeneModShardingAlgorithmTest.algorithm("sharding-count", 4, "string-ids", "true",
        "string-id-prefix", "OR D"))
        .hasMessage("GENE_MOD property 'string-id-prefix' must be made of A-Z a-z 0-9 _ - . : but was "
            + "'OR D' (character ' ' at index 2)");
    assertThatThrownBy(() -> GeneModShardingAlgorithmTest.algorithm("sharding-count", 4, "string-ids", "true",
        "epoch", "2025-01-01"))
        .hasMessageStartingWith("GENE_MOD property 'epoch' only serves to check the date part of string ids");
    Properties segment = new Properties();
    segment.setProperty("segment-store", "jdbc");
    segment.setProperty("jdbc-url", "jdbc:h2:mem:x");
    segment.setProperty("string-ids", "true");
    segment.setProperty("string-id-date", "true");
    assertThatThrownBy(() -> new GeneSegmentKeyGenerateAlgorithm().init(segment))
        .hasMessage("GENE_SEGMENT has no property 'string-id-date'; allowed: segment-store, biz-tag, gene-bits, "
            + "min-step, max-step, segment-duration, prefetch-ratio, fetch-timeout, prefetch-retry, thread-block, string-ids, "
            + "string-id-prefix, jdbc-url, jdbc-username, jdbc-password, jdbc-table, jdbc-create-table");
  }

  @Test
  void theKeyGeneratorIssuesStringKeysAsOneBatchPerCall() {
    GeneSnowflakeKeyGenerateAlgorithm keys = new GeneSnowflakeKeyGenerateAlgorithm();
    keys.init(Rules.properties("worker-id: 1\nstring-ids: true\nstring-id-prefix: ORD\nstring-id-date: true"));
    assertThat(keys.stringFormat()).isEqualTo(ORD);
    Collection<? extends Comparable<?>> roots = keys.generateKeys(null, 128);
    List<Long> genes = new ArrayList<>();
    for (Comparable<?> key : roots) {
      assertThat(key).isInstanceOf(String.class);
      genes.add(ORD.parse((String) key) & 63);
    }
    for (long gene = 0; gene < 64; gene++) {
      assertThat(java.util.Collections.frequency(genes, gene)).as("gene %d", gene).isEqualTo(2);
    }
    long parent = (4242L << 22) | 37;
    Collection<? extends Comparable<?>> children;
    try (var scope = GeneContext.inherit(parent)) {
      children = keys.generateKeys(null, 70_000); // more than one batch
    }
    assertThat(children).hasSize(70_000).doesNotHaveDuplicates()
        .allMatch(k -> (ORD.parse((String) k) & 63) == 37);
    List<String> strings = children.stream().map(String.class::cast).toList();
    assertThat(strings).isSorted(); // one gene's ids ascend, and so do their strings
  }
}
