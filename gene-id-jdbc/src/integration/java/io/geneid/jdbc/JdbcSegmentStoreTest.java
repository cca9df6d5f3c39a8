package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.segment.Segment;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What only the JDBC segment store does: its DDL, its row, its errors. The store's contract runs per database in
 * {@link AbstractJdbcSegmentStoreContractTest}'s subclasses.
 */
class JdbcSegmentStoreTest {

  @ParameterizedTest
  @EnumSource(SegmentDatabase.Kind.class)
  void theDdlRunsUnchangedAndAMissingTagStartsAtOne(SegmentDatabase.Kind kind) throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      DataSource ds = db.pool();
      JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(ds).createTable(true).build();

      assertThat(store.nextSegment("order", 10)).isEqualTo(new Segment(1, 10));
      assertThat(store.nextSegment("order", 20)).isEqualTo(new Segment(11, 30));
      assertThat(store.nextSegment("item", 5)).isEqualTo(new Segment(1, 5));

      try (Connection c = ds.getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT max_id, step, version FROM gene_id_segment WHERE biz_tag = 'order'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(30);
        assertThat(rs.getLong(2)).isEqualTo(20);
        assertThat(rs.getLong(3)).isEqualTo(2);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void anUnreachableDatabaseFailsFastAndSaysWhat(SegmentDatabase.Kind kind) throws Exception {
    int deadPort;
    try (ServerSocket s = new ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(db.pool(db.url(deadPort), 1)).build();
      long start = System.nanoTime();
      assertThatThrownBy(() -> store.nextSegment("order", 10)).isInstanceOf(GeneIdException.class)
          .hasMessageStartingWith("the JDBC segment store (table gene_id_segment) could not hand out 10 values of "
              + "tag 'order': ")
          .hasCauseInstanceOf(java.sql.SQLException.class);
      assertThat(System.nanoTime() - start).isLessThan(5_000_000_000L);
    }
  }

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = "H2")
  void badArgumentsAreNamed(SegmentDatabase.Kind kind) {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      DataSource ds = db.pool();
      JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(ds).build();
      assertThatThrownBy(() -> store.nextSegment("order", 0)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("step must be at least 1 but was 0");
      assertThatThrownBy(() -> store.nextSegment("", 10)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("bizTag must have 1 to 128 characters but was ''");
      assertThatThrownBy(() -> JdbcSegmentStore.builder().dataSource(ds).table("seg; DROP TABLE x").build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("table must be a plain SQL name ([schema.]name of letters, digits and _, each part 1 to 63"
              + " characters, not starting with a digit) but was 'seg; DROP TABLE x'");
      assertThatThrownBy(() -> JdbcSegmentStore.builder().dataSource(ds).maxAttempts(0).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxAttempts must be in [1, 10000] but was 0");
      assertThatThrownBy(() -> store.nextSegment("order", 10)).isInstanceOf(GeneIdException.class)
          .hasMessageStartingWith("the JDBC segment store (table gene_id_segment) could not hand out 10 values of "
              + "tag 'order': Table \"GENE_ID_SEGMENT\" not found");
    }
  }

  @Test
  void theDocumentedDdl() {
    assertThat(JdbcSegmentStore.ddl("gene_id_segment")).isEqualTo("""
        CREATE TABLE IF NOT EXISTS gene_id_segment (
          biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,
          max_id  BIGINT       NOT NULL,
          step    BIGINT       NOT NULL,
          version BIGINT       NOT NULL
        )""");
  }
}
