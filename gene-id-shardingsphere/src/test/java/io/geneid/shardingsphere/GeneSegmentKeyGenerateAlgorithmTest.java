package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.Genes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.infra.spi.type.typed.TypedSPILoader;
import org.junit.jupiter.api.Test;

/** GENE_SEGMENT on its own, over an H2 segment table unique to each test. */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class GeneSegmentKeyGenerateAlgorithmTest {

  private static final String NOWHERE = "redis://127.0.0.1:1"; // nothing listens on port 1

  private final String h2 = "jdbc:h2:mem:gid_ss_segment_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";

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

  static GeneSegmentKeyGenerateAlgorithm algorithm(Object... keyValues) {
    GeneSegmentKeyGenerateAlgorithm algorithm = new GeneSegmentKeyGenerateAlgorithm();
    algorithm.init(props(keyValues));
    return algorithm;
  }

  private GeneSegmentKeyGenerateAlgorithm jdbc(Object... more) {
    List<Object> all = new ArrayList<>(List.of("segment-store", "jdbc", "jdbc-url", h2, "jdbc-create-table", true,
        "min-step", 5, "max-step", 5));
    all.addAll(List.of(more));
    return algorithm(all.toArray());
  }

  @SuppressWarnings("unchecked")
  private static List<Long> keys(KeyGenerateAlgorithm algorithm, String table, int count) {
    return new ArrayList<>((Collection<Long>) algorithm.generateKeys(table(table), count));
  }

  @Test
  void isFoundByShardingSphereUnderItsTypeAndCountsPerLogicalTable() {
    KeyGenerateAlgorithm algorithm = TypedSPILoader.getService(KeyGenerateAlgorithm.class, "GENE_SEGMENT",
        props("segment-store", "jdbc", "jdbc-url", h2, "jdbc-create-table", "true", "min-step", "5", "max-step",
            "5"));
    assertThat(algorithm).isInstanceOf(GeneSegmentKeyGenerateAlgorithm.class);
    // 12 root ids of t_order cross two segment boundaries; values 1..12, genes = the low bits of the value
    List<Long> orders = keys(algorithm, "t_order", 12);
    for (int i = 0; i < 12; i++) {
      assertThat(orders.get(i)).isEqualTo(((i + 1L) << 6) | (i + 1L));
    }
    // T_ITEM as the INSERT spelt it: the tag is lower-cased, and counts on its own
    assertThat(keys(algorithm, "T_ITEM", 2)).extracting(id -> id >>> 6).containsExactly(1L, 2L);
    assertThat(keys(algorithm, "t_item", 1)).extracting(id -> id >>> 6).containsExactly(3L);
  }

  @Test
  void scopesGiveEveryIdItsParentsGeneAsWithGeneSnowflake() {
    GeneSegmentKeyGenerateAlgorithm algorithm = jdbc();
    long order = (123L << 6) | 41;
    try (var scope = GeneContext.inherit(order)) {
      assertThat(keys(algorithm, "t_item", 7)).extracting(id -> id & 63).containsOnly(41L);
    }
    try (var scope = GeneContext.inheritEach(List.of(7L, 8L, "customer-1"))) {
      assertThat(keys(algorithm, "t_item", 3)).extracting(id -> id & 63)
          .containsExactly(7L, 8L, Genes.of("customer-1", 6));
    }
    assertThatThrownBy(() -> {
      try (var scope = GeneContext.inheritEach(List.of(7L, 8L))) {
        keys(algorithm, "t_item", 3);
      }
    }).isInstanceOf(IllegalStateException.class)
        .hasMessage("GeneContext scope holds 2 parent keys but id number 3 was requested");
  }

  @Test
  void aBizTagGivesEveryTableOneCounter() {
    GeneSegmentKeyGenerateAlgorithm algorithm = jdbc("biz-tag", "shop", "gene-bits", 4);
    assertThat(keys(algorithm, "t_order", 2)).extracting(id -> id >>> 4).containsExactly(1L, 2L);
    assertThat(keys(algorithm, "t_item", 2)).extracting(id -> id >>> 4).containsExactly(3L, 4L);
    assertThat(algorithm.generatorFor("shop").bizTag()).isEqualTo("shop");
  }

  @Test
  void withoutBizTagOrTableNameTheTagIsMissing() {
    GeneSegmentKeyGenerateAlgorithm algorithm = jdbc();
    assertThatThrownBy(() -> algorithm.generateKeys(new AlgorithmSQLContext("db", "public", null, "id"), 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("GENE_SEGMENT has no biz-tag and ShardingSphere named no logical table to take it from; set the"
            + " property 'biz-tag'");
  }

  @Test
  void initReachesNoStoreWhichIsReachedOnFirstUse() {
    GeneSegmentKeyGenerateAlgorithm algorithm = algorithm("segment-store", "redis", "redis-uri", NOWHERE);
    assertThat(algorithm).hasToString("GENE_SEGMENT[segment-store=redis, biz-tag=<logical table>, gene-bits=6,"
        + " min-step=1000, max-step=1000000, segment-duration=600000ms, prefetch-ratio=0.1, fetch-timeout=10000ms, prefetch-retry=1000ms]");
    assertThatThrownBy(() -> keys(algorithm, "t_order", 1))
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("cannot reach the segment store, Redis at redis://127.0.0.1:1/0");
  }

  @Test
  void aSecondConfigurationOfTheSameStoreAndTagWithOtherSettingsIsRefused() {
    GeneSegmentKeyGenerateAlgorithm first = jdbc("biz-tag", "orders");
    keys(first, "t_order", 1);
    assertThat(keys(jdbc("biz-tag", "orders"), "t_order", 1)).extracting(id -> id >>> 6).containsExactly(2L);
    assertThatThrownBy(() -> jdbc("biz-tag", "orders", "gene-bits", 4))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("GENE_SEGMENT with gene-bits=4, min-step=5, max-step=5, segment-duration=600000ms,"
            + " prefetch-ratio=0.1, fetch-timeout=10000ms, prefetch-retry=1000ms conflicts with the generator this JVM already has for the"
            + " same store and tag (jdbc store at h2:mem:gid_ss_segment_")
        .hasMessageEndingWith(", tag orders) with gene-bits=6, min-step=5, max-step=5, segment-duration=600000ms,"
            + " prefetch-ratio=0.1, fetch-timeout=10000ms, prefetch-retry=1000ms; configure the same settings to share it");
  }

  @Test
  void badPropertiesFailAtInitNamingThePropertyAndTheAllowedValues() {
    assertThatThrownBy(() -> algorithm())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GENE_SEGMENT property 'segment-store' is required: jdbc or redis");
    assertThatThrownBy(() -> algorithm("segment-store", "mongo"))
        .hasMessage("GENE_SEGMENT property 'segment-store' must be jdbc or redis but was 'mongo'");
    assertThatThrownBy(() -> algorithm("segment-store", "jdbc", "jdbc-url", h2, "redis-uri", NOWHERE))
        .hasMessage("GENE_SEGMENT has no property 'redis-uri'; allowed: segment-store, biz-tag, gene-bits, min-step,"
            + " max-step, segment-duration, prefetch-ratio, fetch-timeout, prefetch-retry, thread-block, string-ids, string-id-prefix, jdbc-url, jdbc-username, jdbc-password,"
            + " jdbc-table, jdbc-create-table");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "step", 10))
        .hasMessage("GENE_SEGMENT has no property 'step'; allowed: segment-store, biz-tag, gene-bits, min-step,"
            + " max-step, segment-duration, prefetch-ratio, fetch-timeout, prefetch-retry, thread-block, string-ids, string-id-prefix, redis-uri, redis-key-prefix,"
            + " redis-allow-without-persistence");
    assertThatThrownBy(() -> algorithm("segment-store", "jdbc"))
        .hasMessage("GENE_SEGMENT property 'jdbc-url' is required: a JDBC URL such as"
            + " jdbc:mariadb://127.0.0.1:3306/app");
    assertThatThrownBy(() -> algorithm("segment-store", "jdbc", "jdbc-url", "h2:mem:x"))
        .hasMessage("GENE_SEGMENT property 'jdbc-url' must be a JDBC URL starting with jdbc: but was 'h2:mem:x'");
    assertThatThrownBy(() -> algorithm("segment-store", "jdbc", "jdbc-url", h2, "jdbc-table", "1x"))
        .hasMessage("GENE_SEGMENT property 'jdbc-table' must be a plain SQL name ([schema.]name of letters, digits"
            + " and _, each part 1 to 63 characters, not starting with a digit) but was '1x'");
    assertThatThrownBy(() -> algorithm("segment-store", "jdbc", "jdbc-url", h2, "jdbc-create-table", "yes"))
        .hasMessage("GENE_SEGMENT property 'jdbc-create-table' must be true or false but was 'yes'");
    assertThatThrownBy(() -> algorithm("segment-store", "redis"))
        .hasMessage("GENE_SEGMENT property 'redis-uri' is required: a Redis URI such as redis://127.0.0.1:6379/0");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", "http://u:secret@x"))
        .hasMessage("GENE_SEGMENT property 'redis-uri' must be a Redis URI such as redis://127.0.0.1:6379/0 but was"
            + " 'http://x'");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "gene-bits", 17))
        .hasMessage("GENE_SEGMENT property 'gene-bits' must be in [0, 16] but was 17");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "min-step", 0))
        .hasMessage("GENE_SEGMENT property 'min-step' must be in [1, 1000000000] but was 0");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "min-step", 100,
        "max-step", 99))
        .hasMessage("GENE_SEGMENT property 'max-step' must be in [100, 1000000000] but was 99");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "segment-duration",
        "500ms"))
        .hasMessage("GENE_SEGMENT property 'segment-duration' must be in [1000ms, 86400000ms] but was 500ms");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "fetch-timeout", "soon"))
        .hasMessage("GENE_SEGMENT property 'fetch-timeout' must be a duration such as 30s, 1500ms or PT30S but was"
            + " 'soon'");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "prefetch-ratio", 0.95))
        .hasMessage("GENE_SEGMENT property 'prefetch-ratio' must be in [0.0, 0.9] but was 0.95");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "prefetch-ratio", "half"))
        .hasMessage("GENE_SEGMENT property 'prefetch-ratio' must be a number in [0.0, 0.9] but was 'half'");
    assertThatThrownBy(() -> algorithm("segment-store", "redis", "redis-uri", NOWHERE, "biz-tag", "x".repeat(129)))
        .hasMessage("GENE_SEGMENT property 'biz-tag' must have 1 to 128 characters but was '" + "x".repeat(129)
            + "'");
  }
}
