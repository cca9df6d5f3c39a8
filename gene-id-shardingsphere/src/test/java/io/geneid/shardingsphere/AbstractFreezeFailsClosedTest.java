package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.bucket.BucketFrozenException;
import io.geneid.core.bucket.BucketState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code GENE_BUCKET_FREEZE} fails closed (issue #29, scenario 7), through a real ShardingSphere DataSource: while
 * bucket 5 is frozen, every write on the family that the auditor cannot prove avoids bucket 5 is refused (an OR
 * branch with a range, an IN list with a value it cannot evaluate, a subquery, {@code INSERT ... SELECT}, an upsert),
 * and the refusal reaches JDBC as SQLState {@code 40001} (retryable, as a serialization failure) naming the bucket.
 * Writes it can prove (equalities and IN lists of sharding values outside bucket 5, in every OR branch) go through.
 * The rows of bucket 5 are unchanged after every refused statement.
 */
abstract class AbstractFreezeFailsClosedTest {

  abstract Backend backend();

  private static final long FROZEN = (1001L << 6) | 5;
  private static final long OTHER = (1002L << 6) | 6;
  private static final long THIRD = (1003L << 6) | 7;

  @Test
  void whileABucketIsFrozenEveryWriteNotProvedToAvoidItIsRefusedWithSqlState40001() throws Exception {
    try (ShardedDatabases databases = new ShardedDatabases(backend(), 2, 2)) {
      DataSource sharded = databases.shardingSphere(GeneBucketFreezeTest.yaml());
      GeneBucketShardingAlgorithm db = GeneBucketFreezeTest.algorithm(sharded, "gene_db");
      try (Connection c = sharded.getConnection()) {
        for (long id : new long[] {FROZEN, OTHER, THIRD}) {
          execute(c, "INSERT INTO t_order (id, customer) VALUES (" + id + ", 'c" + id + "')");
          execute(c, "INSERT INTO t_item (id, order_id, name) VALUES (" + (id + 64_000) + ", " + id + ", 'i')");
        }
        db.useMap(db.map().withState(List.of(5), BucketState.FROZEN).withVersion(1));

        List<String> accepted = new ArrayList<>();
        List<String> refusedOtherwise = new ArrayList<>();
        for (String sql : List.of(
            "UPDATE t_order SET customer = 'lost' WHERE id = " + OTHER + " OR id > 0",
            "DELETE FROM t_order WHERE id = " + OTHER + " OR id > 0",
            "UPDATE t_order SET customer = 'lost' WHERE id = " + OTHER + " OR id BETWEEN 0 AND " + FROZEN,
            "UPDATE t_order SET customer = 'lost' WHERE id IN (" + OTHER + ", " + FROZEN + " + 0)",
            "UPDATE t_order SET customer = 'lost' WHERE id = " + OTHER + " OR customer = 'c" + FROZEN + "'",
            "UPDATE t_order SET customer = 'lost' WHERE customer IN (SELECT name FROM t_item WHERE order_id = "
                + OTHER + ")",
            "UPDATE t_order SET customer = 'lost' WHERE NOT (id = " + OTHER + ")",
            "DELETE FROM t_item WHERE order_id = " + OTHER + " OR id > 0",
            "UPDATE t_item SET name = 'lost' WHERE order_id > 0 OR id = " + (OTHER + 64_000))) {
          try {
            execute(c, sql);
            accepted.add(sql);
          } catch (SQLException e) {
            BucketFrozenException cause = frozenCause(e);
            if (!"40001".equals(e.getSQLState()) || cause == null || cause.bucket() != 5
                || !e.getMessage().startsWith("GENE_BUCKET_FREEZE: ") || !e.getMessage().contains("frozen bucket")) {
              refusedOtherwise.add(sql + " -> " + e.getSQLState() + " " + e.getMessage());
            }
          }
        }
        assertThat(accepted).as("writes accepted while bucket 5 is frozen").isEmpty();
        assertThat(refusedOtherwise).as("refusals without SQLState 40001 and the frozen bucket named").isEmpty();
        assertThat(customer(c, FROZEN)).as("the frozen bucket's row").isEqualTo("c" + FROZEN);
        assertThat(count(c, "SELECT COUNT(*) FROM t_item WHERE order_id = " + FROZEN)).isEqualTo(1);

        // what the auditor can prove goes through, on the other buckets only
        execute(c, "UPDATE t_order SET customer = 'a' WHERE id = " + OTHER);
        execute(c, "UPDATE t_order SET customer = 'b' WHERE id IN (" + OTHER + ", " + THIRD + ")");
        execute(c, "UPDATE t_order SET customer = 'd' WHERE (id = " + OTHER + " OR id = " + THIRD
            + ") AND customer = 'b'");
        try (PreparedStatement ps = c.prepareStatement("UPDATE t_order SET customer = ? WHERE id = ? OR id IN (?)")) {
          ps.setString(1, "e");
          ps.setLong(2, OTHER);
          ps.setLong(3, THIRD);
          assertThat(ps.executeUpdate()).isEqualTo(2);
        }
        execute(c, "DELETE FROM t_item WHERE order_id = " + THIRD + " AND id > 0");
        assertThat(customer(c, OTHER)).isEqualTo("e");
        assertThat(customer(c, THIRD)).isEqualTo("e");

        // a single frozen value, with its SQLState, message and cause
        assertThatThrownBy(() -> execute(c, "UPDATE t_order SET customer = 'x' WHERE id = " + FROZEN))
            .isInstanceOfSatisfying(SQLException.class, e -> {
              assertThat(e.getSQLState()).isEqualTo("40001");
              assertThat(e.getMessage()).isEqualTo("GENE_BUCKET_FREEZE: bucket 5 is frozen while it moves (map"
                  + " version 1): UPDATE of t_order.id = " + FROZEN + " refused; retry in a few seconds, the write"
                  + " then goes to the bucket's new node");
              assertThat(frozenCause(e)).hasMessage(e.getMessage());
            });
        assertThat(customer(c, FROZEN)).isEqualTo("c" + FROZEN);

        db.useMap(db.map().withState(List.of(5), BucketState.NORMAL).withVersion(2));
        execute(c, "UPDATE t_order SET customer = 'z' WHERE id = " + OTHER + " OR id > 0");
        assertThat(customer(c, FROZEN)).as("unfrozen, the same statement goes through").isEqualTo("z");
      }
    }
  }

  @Test
  void insertSelectAndUpsertsAreRefusedWhileABucketIsFrozen() throws Exception {
    try (ShardedDatabases databases = new ShardedDatabases(backend(), 2, 2)) {
      DataSource sharded = databases.shardingSphere(GeneBucketFreezeTest.yaml());
      GeneBucketShardingAlgorithm db = GeneBucketFreezeTest.algorithm(sharded, "gene_db");
      try (Connection c = sharded.getConnection()) {
        execute(c, "INSERT INTO t_order (id, customer) VALUES (" + FROZEN + ", 'c')");
        db.useMap(db.map().withState(List.of(5), BucketState.FROZEN).withVersion(1));
        // PostgreSQL's ON CONFLICT is not checked: ShardingSphere 5.5.2's binder drops it from the statement it
        // hands auditors (PostgreSQLInsertStatement keeps it in a field of its own that the copy does not set)
        List<String> statements = new ArrayList<>(List.of(
            "INSERT INTO t_order (id, customer) SELECT id + 64, customer FROM t_order WHERE id = " + FROZEN));
        if (backend() != Backend.POSTGRESQL) {
          statements.add("INSERT INTO t_order (id, customer) VALUES (" + OTHER + ", 'u') ON DUPLICATE KEY UPDATE"
              + " customer = 'u'");
        }
        List<String> notRefused = new ArrayList<>();
        for (String sql : statements) {
          try {
            execute(c, sql);
            notRefused.add(sql + " accepted");
          } catch (SQLException e) {
            if (!"40001".equals(e.getSQLState()) || frozenCause(e) == null) {
              notRefused.add(sql + " -> " + e.getSQLState() + " " + e.getMessage());
            }
          }
        }
        assertThat(notRefused).isEmpty();
        assertThat(count(c, "SELECT COUNT(*) FROM t_order")).isEqualTo(1);
      }
    }
  }

  /**
   * Issue #38, scenario 10: a refusal reaches the caller as {@link SQLException} 40001 on every JDBC path, not only
   * through {@code executeUpdate(String)} and prepared statements: retry code and Spring's exception translation
   * catch {@code SQLException}, and an unchecked exception passes by them.
   */
  @Test
  void aRefusalIsAnSqlException40001OnEveryJdbcPath() throws Exception {
    try (ShardedDatabases databases = new ShardedDatabases(backend(), 2, 2)) {
      DataSource sharded = databases.shardingSphere(GeneBucketFreezeTest.yaml());
      GeneBucketShardingAlgorithm db = GeneBucketFreezeTest.algorithm(sharded, "gene_db");
      try (Connection c = sharded.getConnection()) {
        execute(c, "INSERT INTO t_order (id, customer) VALUES (" + FROZEN + ", 'c')");
        db.useMap(db.map().withState(List.of(5), BucketState.FROZEN).withVersion(1));
        String update = "UPDATE t_order SET customer = 'x' WHERE id = " + FROZEN;
        String insert = "INSERT INTO t_order (id, customer) VALUES (" + (FROZEN + 64) + ", 'y')";
        String prepared = "UPDATE t_order SET customer = ? WHERE id = ?";
        java.util.Map<String, JdbcCall> paths = new java.util.LinkedHashMap<>();
        paths.put("Statement.execute(String)", s -> s.execute(update));
        paths.put("Statement.execute(String, RETURN_GENERATED_KEYS)",
            s -> s.execute(insert, Statement.RETURN_GENERATED_KEYS));
        paths.put("Statement.execute(String, int[])", s -> s.execute(insert, new int[] {1}));
        paths.put("Statement.execute(String, String[])", s -> s.execute(insert, new String[] {"id"}));
        paths.put("Statement.executeUpdate(String)", s -> s.executeUpdate(update));
        paths.put("Statement.executeUpdate(String, RETURN_GENERATED_KEYS)",
            s -> s.executeUpdate(insert, Statement.RETURN_GENERATED_KEYS));
        paths.put("Statement.executeUpdate(String, int[])", s -> s.executeUpdate(insert, new int[] {1}));
        paths.put("Statement.executeUpdate(String, String[])", s -> s.executeUpdate(insert, new String[] {"id"}));
        paths.put("Statement.addBatch(String) + executeBatch()", s -> {
          s.addBatch(update);
          s.addBatch(insert);
          s.executeBatch();
        });
        paths.put("PreparedStatement.execute()", s -> {
          try (PreparedStatement ps = s.getConnection().prepareStatement(prepared)) {
            ps.setString(1, "x");
            ps.setLong(2, FROZEN);
            ps.execute();
          }
        });
        paths.put("PreparedStatement.executeUpdate()", s -> {
          try (PreparedStatement ps = s.getConnection().prepareStatement(prepared)) {
            ps.setString(1, "x");
            ps.setLong(2, FROZEN);
            ps.executeUpdate();
          }
        });
        paths.put("PreparedStatement.addBatch() + executeBatch()", s -> {
          try (PreparedStatement ps = s.getConnection().prepareStatement(prepared)) {
            ps.setString(1, "x");
            ps.setLong(2, FROZEN);
            ps.addBatch();
            ps.executeBatch();
          }
        });
        List<String> wrong = new ArrayList<>();
        paths.forEach((path, call) -> {
          try (Statement s = c.createStatement()) {
            call.run(s);
            wrong.add(path + ": accepted");
          } catch (SQLException e) {
            if (!"40001".equals(e.getSQLState()) || frozenCause(e) == null || frozenCause(e).bucket() != 5) {
              wrong.add(path + ": " + e.getClass().getName() + " " + e.getSQLState() + " " + e.getMessage());
            }
          } catch (RuntimeException e) {
            wrong.add(path + ": unchecked " + e.getClass().getName() + " " + e.getMessage());
          }
        });
        assertThat(wrong).as("JDBC paths whose refusal is not SQLException 40001 naming bucket 5").isEmpty();
        assertThat(customer(c, FROZEN)).isEqualTo("c");
        assertThat(count(c, "SELECT COUNT(*) FROM t_order")).isEqualTo(1);
      }
    }
  }

  /** One way of sending a statement through JDBC. */
  @FunctionalInterface
  interface JdbcCall {
    void run(Statement s) throws SQLException;
  }

  static BucketFrozenException frozenCause(Throwable e) {
    Throwable t = e;
    while (t != null && !(t instanceof BucketFrozenException)) {
      t = t.getCause();
    }
    return (BucketFrozenException) t;
  }

  static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }

  static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      long n = 0;
      while (rs.next()) {
        n += rs.getLong(1);
      }
      return n;
    }
  }

  static String customer(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("order %s", id).isTrue();
        return rs.getString(1);
      }
    }
  }
}
