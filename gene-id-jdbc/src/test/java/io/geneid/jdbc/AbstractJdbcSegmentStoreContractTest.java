package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.segment.AbstractSegmentStoreContractTest;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.segment.SegmentStoreOutageContract.Outage;
import io.geneid.core.testing.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;

/**
 * The segment contract on a database of its own per test; subclasses name the database, and those on a server add
 * the outage contract.
 */
abstract class AbstractJdbcSegmentStoreContractTest extends AbstractSegmentStoreContractTest {

  private final SegmentDatabase.Kind kind;
  private SegmentDatabase db;
  private DataSource ds;

  AbstractJdbcSegmentStoreContractTest(SegmentDatabase.Kind kind) {
    this.kind = kind;
  }

  @BeforeEach
  void createDatabase() {
    db = track(SegmentDatabase.create(kind)); // tracked first: dropped after every generator and pool on it closed
    ds = db.pool();
    SegmentDatabase.createTable(ds);
  }

  @Override
  protected SegmentStore newStore() {
    return JdbcSegmentStore.builder().dataSource(db.pool(db.url(), 4)).build(); // a new process: a new pool, a new store
  }

  @Override
  protected long counter(String tag) {
    return column(tag, "max_id");
  }

  @Override
  protected void loseCounter(String tag) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("DELETE FROM gene_id_segment WHERE biz_tag = ?")) {
      ps.setString(1, tag);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  protected void assertStoredStep(String tag, long step) {
    assertThat(column(tag, "step")).isEqualTo(step);
  }

  /** The store behind a {@link TcpProxy}, for the subclasses on a database server. */
  public Outage outage() throws Exception {
    TcpProxy proxy = track(new TcpProxy("127.0.0.1", db.kind.port));
    return Outage.behind(proxy, JdbcSegmentStore.builder().dataSource(db.pool(db.url(proxy.port()), 2)).build(),
        "JdbcSegmentStore[table=gene_id_segment]",
        "the JDBC segment store (table gene_id_segment) could not hand out 100 values of tag 'order': ", null);
  }

  private long column(String tag, String column) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT " + column + " FROM gene_id_segment WHERE biz_tag = ?")) {
      ps.setString(1, tag);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("a row for tag '%s'", tag).isTrue();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
