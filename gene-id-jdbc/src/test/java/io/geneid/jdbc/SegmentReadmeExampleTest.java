package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneContext;
import io.geneid.core.segment.GeneSegmentGenerator;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The README's "Segment mode" JDBC example, on an in-memory H2 database. */
class SegmentReadmeExampleTest {

  @Test
  void theReadmeExampleRuns() {
    try (HikariDataSource dataSource = new HikariDataSource()) {
      dataSource.setJdbcUrl("jdbc:h2:mem:gid_segment_readme;DB_CLOSE_DELAY=0");
      dataSource.setUsername("sa");
      dataSource.setConnectionTimeout(1_000);

      JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(dataSource)
          .table("gene_id_segment")
          .createTable(true)
          .build();

      try (GeneSegmentGenerator orders = GeneSegmentGenerator.builder(store, "order")
          .geneBits(6)
          .minStep(1_000)
          .maxStep(1_000_000)
          .segmentDuration(Duration.ofMinutes(10))
          .build()) {
        long orderId = orders.nextId();
        long itemId = orders.nextIdFor(orderId);
        long another;
        try (var scope = GeneContext.inherit(orderId)) {
          another = orders.nextId();
        }
        assertThat(orderId).isEqualTo((1L << 6) | 1); // value 1, gene 1 (round-robin)
        assertThat(orders.getGene(itemId)).isEqualTo(orders.getGene(orderId));
        assertThat(orders.getGene(another)).isEqualTo(orders.getGene(orderId));
        assertThat(orderId).isLessThan(itemId).isLessThan(another);
      }
    }
  }
}
