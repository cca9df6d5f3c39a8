package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * GENE_SEGMENT through the ShardingSphere driver: the same orders and items as every end-to-end test (co-location
 * and one-table queries are checked there), with ids from a segment store whose data is unique to the run.
 */
abstract class AbstractSegmentShardingEndToEndTest extends AbstractShardingEndToEndTest {

  static final int GENE_BITS = 6;

  /** A name unique to this run, for the store's table or keys. */
  final String run = "gid_ss_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
      .toLowerCase(Locale.ROOT);

  /** The GENE_SEGMENT props, one {@code key: value} per line (no biz-tag: one counter per logical table). */
  abstract String keyGeneratorProps();

  /** The highest value the store has handed out for {@code tag}. */
  abstract long storeCounter(String tag) throws Exception;

  /** Frees what the store holds for this run. */
  abstract void cleanStore() throws Exception;

  @Override
  Backend backend() {
    return Backend.H2;
  }

  @Override
  String rules() {
    return Rules.withKeyGenerator("GENE_SEGMENT", keyGeneratorProps());
  }

  @Override
  void afterStop() throws Exception {
    cleanStore();
  }

  private static List<Long> values(List<Long> ids) {
    return ids.stream().map(id -> id >>> GENE_BITS).toList();
  }

  @Test
  void idsAreDenseAndIncreasingWithOneCounterPerLogicalTable() throws Exception {
    // inserted one by one, multi-row and in batches: values 1, 2, 3, ... in insertion order, per table
    assertThat(values(orderIds)).containsExactlyElementsOf(LongStream.rangeClosed(1, 10).boxed().toList());
    assertThat(values(itemIds)).containsExactlyElementsOf(LongStream.rangeClosed(1, 17).boxed().toList());
    assertThat(orderIds).isSorted().doesNotHaveDuplicates();
    assertThat(itemIds).isSorted().doesNotHaveDuplicates();
    // the tag is the logical table name; the store is ahead by what the generator holds: its current segment and
    // up to 64 fetched ahead (the prefetch depth grows when values run out faster than a fetch takes), each at most
    // max-step (100) values
    long held = 65L * 100L;
    assertThat(storeCounter("t_order")).isBetween(10L, 10L + held);
    assertThat(storeCounter("t_item")).isBetween(17L, 17L + held);
  }

  @Test
  void everyInstanceWithTheSameStoreSharesOneGeneratorPerTag() throws Exception {
    GeneSegmentKeyGenerateAlgorithm rule = (GeneSegmentKeyGenerateAlgorithm) Rules.keyGenerator(sharded(), "ids");
    GeneSegmentKeyGenerateAlgorithm another = new GeneSegmentKeyGenerateAlgorithm();
    another.init(Rules.properties(keyGeneratorProps()));
    assertThat(another.generatorFor("t_order")).isSameAs(rule.generatorFor("t_order"))
        .isNotSameAs(rule.generatorFor("t_item"));
    assertThat(rule.generatorFor("t_item").bizTag()).isEqualTo("t_item");
  }
}
