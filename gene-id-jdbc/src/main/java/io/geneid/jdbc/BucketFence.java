package io.geneid.jdbc;

import io.geneid.core.GeneIdException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write fence of a move, kept in each database of the move rather than in the clients: a table of fenced
 * buckets ({@value #TABLE}: map name, bucket, the map version that fenced it) and, on every physical table of the
 * family, a row trigger that refuses with SQLState {@code 40001} any INSERT, UPDATE or DELETE whose old or new key
 * falls in a fenced bucket of the map, whoever sends it and however it was bound or batched. MariaDB/MySQL get
 * {@code SIGNAL SQLSTATE '40001'} triggers, PostgreSQL a PL/pgSQL trigger function (also refusing {@code TRUNCATE}
 * while a bucket of the map is fenced), H2 the Java trigger {@link H2FenceTrigger}.
 *
 * <p>The mover's own statements pass: it marks its session ({@code @gene_id_mover} on MariaDB and H2, the setting
 * {@code gene_id.mover} on PostgreSQL) for the time of a statement and clears the mark before the connection goes back
 * to its pool.
 *
 * <p>Installing a trigger takes a metadata lock on the table, which a long wait would turn into a queue of writers
 * behind it: every attempt waits at most a short lock timeout (no wait at first, then up to 1 s on MariaDB, 200 ms on
 * PostgreSQL) and is retried until {@code installWait} has passed, as online schema tools do.
 */
final class BucketFence {

  private static final Logger LOG = LoggerFactory.getLogger(BucketFence.class);

  /** The table of fenced buckets, one per database. */
  static final String TABLE = "gene_id_fence";
  /** H2 only: what each {@link H2FenceTrigger} fences (map, key column, gene bits), by trigger name. */
  static final String H2_TRIGGERS = "gene_id_fence_trigger";
  /** The SQLState of a refusal: a serialization failure, retry the transaction. */
  static final String SQL_STATE = "40001";
  /** The vendor code of a refusal, the same as {@code GENE_BUCKET_FREEZE}'s. */
  static final int VENDOR_CODE = 29029;

  enum Kind {
    MYSQL, POSTGRESQL, H2;

    static Kind of(Connection c) throws SQLException {
      String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
      return product.contains("postgres") ? POSTGRESQL : product.contains("h2") ? H2 : MYSQL;
    }
  }

  /** A physical table of the family and the column whose gene is the bucket. */
  record Fenced(String physical, String keyColumn) {}

  private final String map;
  private final int geneBits;
  private final Duration installWait;

  BucketFence(String map, int geneBits, Duration installWait) {
    this.map = map;
    this.geneBits = geneBits;
    this.installWait = installWait;
  }

  /** The name of the fence's trigger (and PostgreSQL function) on {@code physical}, at most 63 characters. */
  static String triggerName(String physical) {
    String name = "gid_fence_" + physical.toLowerCase(Locale.ROOT);
    if (name.length() <= 48) {
      return name;
    }
    CRC32C crc = new CRC32C();
    crc.update(physical.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return name.substring(0, 40) + "_" + Long.toHexString(crc.getValue());
  }

  /**
   * Creates, where missing, the fence table and the trigger on each of {@code tables} in {@code ds}. A trigger that
   * exists is kept (a resumed move), so the fence never has a gap.
   */
  void install(DataSource ds, int target, List<Fenced> tables) {
    try (Connection c = ds.getConnection()) {
      Kind kind = Kind.of(c);
      try (Statement st = c.createStatement()) {
        st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (map_name VARCHAR(128) NOT NULL, bucket INT NOT NULL,"
            + " fenced_version BIGINT NOT NULL, PRIMARY KEY (map_name, bucket))");
        if (kind == Kind.H2) {
          st.execute("CREATE TABLE IF NOT EXISTS " + H2_TRIGGERS + " (trigger_name VARCHAR(128) PRIMARY KEY,"
              + " map_name VARCHAR(128) NOT NULL, key_column VARCHAR(128) NOT NULL, gene_bits INT NOT NULL)");
        }
      }
      for (Fenced t : tables) {
        if (!triggerExists(c, kind, t.physical())) {
          withLockRetries(c, kind, target, "installing the fence on " + t.physical(), () -> create(c, kind, t));
          LOG.info("fence installed on {} of target {} (map '{}', key {})", t.physical(), target, map, t.keyColumn());
        }
      }
    } catch (SQLException e) {
      throw new GeneIdException("installing the write fence of map '" + map + "' on target " + target + " failed: "
          + e.getMessage() + " (the mover needs the TRIGGER privilege and CREATE on the database, see"
          + " docs/resharding.md); nothing was frozen", e);
    }
  }

  /** Drops the triggers on {@code tables} in {@code ds} when no bucket of the map is fenced there any more. */
  boolean uninstallIfUnused(DataSource ds, int target, List<Fenced> tables) {
    try (Connection c = ds.getConnection()) {
      Kind kind = Kind.of(c);
      if (!fenced(c).isEmpty()) {
        return false;
      }
      for (Fenced t : tables) {
        if (triggerExists(c, kind, t.physical())) {
          withLockRetries(c, kind, target, "removing the fence from " + t.physical(), () -> drop(c, kind, t));
          LOG.info("fence removed from {} of target {} (map '{}')", t.physical(), target, map);
        }
      }
      return true;
    } catch (SQLException e) {
      throw new GeneIdException("removing the write fence of map '" + map + "' from target " + target + " failed: "
          + e.getMessage() + "; the triggers stay (they refuse nothing while no bucket is fenced), run cleanup"
          + " again to remove them", e);
    }
  }

  /** Fences {@code bucket} in {@code ds} (committed when this returns), recording the map version that did it. */
  void fence(DataSource ds, int target, int bucket, long version) {
    try (Connection c = ds.getConnection()) {
      try (PreparedStatement up = c.prepareStatement("UPDATE " + TABLE + " SET fenced_version = ? WHERE map_name = ?"
          + " AND bucket = ?")) {
        up.setLong(1, version);
        up.setString(2, map);
        up.setInt(3, bucket);
        if (up.executeUpdate() == 1) {
          return;
        }
      }
      try (PreparedStatement in = c.prepareStatement("INSERT INTO " + TABLE + " (map_name, bucket, fenced_version)"
          + " VALUES (?, ?, ?)")) {
        in.setString(1, map);
        in.setInt(2, bucket);
        in.setLong(3, version);
        in.executeUpdate();
      }
    } catch (SQLException e) {
      throw new GeneIdException("fencing bucket " + bucket + " of map '" + map + "' on target " + target + " failed: "
          + e.getMessage(), e);
    }
  }

  /** Lifts the fence of {@code bucket} in {@code ds}: the database takes its writes again. */
  void unfence(DataSource ds, int target, int bucket) {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE
        + " WHERE map_name = ? AND bucket = ?")) {
      ps.setString(1, map);
      ps.setInt(2, bucket);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new GeneIdException("lifting the fence of bucket " + bucket + " of map '" + map + "' on target " + target
          + " failed: " + e.getMessage(), e);
    }
  }

  /** The fenced buckets of the map on the database of {@code c}, with the version that fenced each. */
  java.util.Map<Integer, Long> fenced(Connection c) throws SQLException {
    java.util.Map<Integer, Long> fenced = new java.util.TreeMap<>();
    if (!tableExists(c)) {
      return fenced;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT bucket, fenced_version FROM " + TABLE
        + " WHERE map_name = ?")) {
      ps.setString(1, map);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          fenced.put(rs.getInt(1), rs.getLong(2));
        }
      }
    }
    return fenced;
  }

  private static boolean tableExists(Connection c) throws SQLException {
    for (String name : List.of(TABLE, TABLE.toUpperCase(Locale.ROOT))) {
      try (ResultSet rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), name, new String[] {"TABLE"})) {
        if (rs.next()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Marks the session of {@code c} as the mover's, whose writes pass the fence; {@link #leave} clears it. */
  static void enter(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(Kind.of(c) == Kind.POSTGRESQL ? "SET gene_id.mover = 'on'" : "SET @gene_id_mover = 1");
    }
  }

  /** Clears the mark of {@link #enter}, before the connection goes back to its pool. */
  static void leave(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(Kind.of(c) == Kind.POSTGRESQL ? "RESET gene_id.mover" : "SET @gene_id_mover = NULL");
    }
  }

  private static boolean triggerExists(Connection c, Kind kind, String physical) throws SQLException {
    String sql = switch (kind) {
      case MYSQL -> "SELECT 1 FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()"
          + " AND LOWER(TRIGGER_NAME) LIKE ?";
      case POSTGRESQL -> "SELECT 1 FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid"
          + " WHERE r.oid = to_regclass(current_schema() || '.' || ?) AND t.tgname = ?";
      case H2 -> "SELECT 1 FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = SCHEMA()"
          + " AND LOWER(TRIGGER_NAME) = ?";
    };
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      String name = triggerName(physical);
      if (kind == Kind.POSTGRESQL) {
        ps.setString(1, physical.toLowerCase(Locale.ROOT));
        ps.setString(2, name);
      } else {
        ps.setString(1, kind == Kind.MYSQL ? name.replace("_", "\\_") + "\\_b_" : name);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private void create(Connection c, Kind kind, Fenced t) throws SQLException {
    String name = triggerName(t.physical());
    int buckets = 1 << geneBits;
    try (Statement st = c.createStatement()) {
      switch (kind) {
        case MYSQL -> {
          // one trigger per event; each in one statement, so the table is never half fenced for long
          st.execute(mysqlTrigger(name + "_bi", "INSERT", t, null, "NEW", buckets));
          st.execute(mysqlTrigger(name + "_bu", "UPDATE", t, "OLD", "NEW", buckets));
          st.execute(mysqlTrigger(name + "_bd", "DELETE", t, "OLD", null, buckets));
        }
        case POSTGRESQL -> {
          st.execute("CREATE OR REPLACE FUNCTION " + name + "() RETURNS trigger LANGUAGE plpgsql AS $gid$"
              + " DECLARE b int; BEGIN"
              + " IF coalesce(current_setting('gene_id.mover', true), '') = '' THEN"
              + "  IF TG_OP = 'TRUNCATE' THEN"
              + "   IF EXISTS (SELECT 1 FROM " + TABLE + " WHERE map_name = " + literal(map) + ") THEN"
              + "    RAISE EXCEPTION USING ERRCODE = '" + SQL_STATE + "', MESSAGE = " + literal("gene-id fence: TRUNCATE"
              + " of " + t.physical() + " refused while buckets of map '" + map + "' move") + ";"
              + "   END IF; RETURN NULL; END IF;"
              + "  IF TG_OP <> 'DELETE' THEN " + pgCheck("NEW", t, buckets) + " END IF;"
              + "  IF TG_OP <> 'INSERT' THEN " + pgCheck("OLD", t, buckets) + " END IF;"
              + " END IF;"
              + " IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; RETURN NEW; END $gid$");
          st.execute("CREATE TRIGGER " + name + " BEFORE INSERT OR UPDATE OR DELETE ON " + t.physical()
              + " FOR EACH ROW EXECUTE FUNCTION " + name + "()");
          st.execute("CREATE TRIGGER " + name + "_t BEFORE TRUNCATE ON " + t.physical()
              + " FOR EACH STATEMENT EXECUTE FUNCTION " + name + "()");
        }
        case H2 -> {
          try (PreparedStatement ps = c.prepareStatement("MERGE INTO " + H2_TRIGGERS
              + " (trigger_name, map_name, key_column, gene_bits) KEY (trigger_name) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, name);
            ps.setString(2, map);
            ps.setString(3, t.keyColumn());
            ps.setInt(4, geneBits);
            ps.executeUpdate();
          }
          st.execute("CREATE TRIGGER IF NOT EXISTS " + name + " BEFORE INSERT, UPDATE, DELETE ON " + t.physical()
              + " FOR EACH ROW CALL \"" + H2FenceTrigger.class.getName() + "\"");
        }
        default -> throw new IllegalStateException(kind.name());
      }
    }
  }

  private void drop(Connection c, Kind kind, Fenced t) throws SQLException {
    String name = triggerName(t.physical());
    try (Statement st = c.createStatement()) {
      switch (kind) {
        case MYSQL -> {
          for (String event : List.of("_bi", "_bu", "_bd")) {
            st.execute("DROP TRIGGER IF EXISTS " + name + event);
          }
        }
        case POSTGRESQL -> {
          st.execute("DROP TRIGGER IF EXISTS " + name + " ON " + t.physical());
          st.execute("DROP TRIGGER IF EXISTS " + name + "_t ON " + t.physical());
          st.execute("DROP FUNCTION IF EXISTS " + name + "()");
        }
        case H2 -> {
          st.execute("DROP TRIGGER IF EXISTS " + name);
          st.execute("DELETE FROM " + H2_TRIGGERS + " WHERE trigger_name = " + literal(name));
        }
        default -> throw new IllegalStateException(kind.name());
      }
    }
  }

  private String mysqlTrigger(String name, String event, Fenced t, String oldRow, String newRow, int buckets) {
    StringBuilder sql = new StringBuilder("CREATE TRIGGER ").append(name).append(" BEFORE ").append(event)
        .append(" ON ").append(t.physical()).append(" FOR EACH ROW BEGIN IF @gene_id_mover IS NULL THEN ");
    for (String row : new String[] {oldRow, newRow}) {
      if (row == null) {
        continue;
      }
      String bucket = JdbcBucketMover.geneSql(row + "." + t.keyColumn(), buckets);
      sql.append("IF EXISTS (SELECT 1 FROM ").append(TABLE).append(" WHERE map_name = ").append(literal(map))
          .append(" AND bucket = ").append(bucket).append(") THEN BEGIN DECLARE m VARCHAR(255) DEFAULT CONCAT(")
          .append(literal("gene-id fence: bucket ")).append(", ").append(bucket).append(", ")
          .append(literal(" of map '" + map + "' is moving; " + event + " of " + t.physical() + "." + t.keyColumn()
              + " = ")).append(", ").append(row).append('.').append(t.keyColumn()).append(", ")
          .append(literal(" refused, retry the transaction in a moment")).append("); SIGNAL SQLSTATE '")
          .append(SQL_STATE).append("' SET MESSAGE_TEXT = m, MYSQL_ERRNO = ").append(VENDOR_CODE)
          .append("; END; END IF; ");
    }
    return sql.append("END IF; END").toString();
  }

  private String pgCheck(String row, Fenced t, int buckets) {
    String key = row + "." + t.keyColumn();
    return "b := " + JdbcBucketMover.geneSql(key, buckets) + ";"
        + " IF EXISTS (SELECT 1 FROM " + TABLE + " WHERE map_name = " + literal(map) + " AND bucket = b) THEN"
        + " RAISE EXCEPTION USING ERRCODE = '" + SQL_STATE + "', MESSAGE = format("
        + literal("gene-id fence: bucket %s of map '" + map + "' is moving; %s of " + t.physical() + "."
            + t.keyColumn() + " = %s refused, retry the transaction in a moment") + ", b, TG_OP, " + key + ");"
        + " END IF;";
  }

  private static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  @FunctionalInterface
  private interface Ddl {
    void run() throws SQLException;
  }

  /**
   * Runs {@code ddl} under a short lock timeout, again and again until {@code installWait} has passed: a statement
   * that waits for a table's metadata lock holds up every writer queued behind it, so it must never wait long.
   */
  private void withLockRetries(Connection c, Kind kind, int target, String what, Ddl ddl) throws SQLException {
    long deadline = System.nanoTime() + installWait.toNanos();
    int attempt = 0;
    try (Statement st = c.createStatement()) {
      while (true) {
        attempt++;
        boolean patient = attempt > 10;
        switch (kind) {
          case MYSQL -> st.execute("SET SESSION lock_wait_timeout = " + (patient ? 1 : 0));
          case POSTGRESQL -> st.execute("SET lock_timeout = '" + (patient ? 200 : 20) + "ms'");
          default -> { }
        }
        try {
          if (kind == Kind.POSTGRESQL) {
            c.setAutoCommit(false);
            try {
              ddl.run();
              c.commit();
            } catch (SQLException e) {
              c.rollback();
              throw e;
            } finally {
              c.setAutoCommit(true);
            }
          } else {
            ddl.run();
          }
          return;
        } catch (SQLException e) {
          if (!lockTimeout(kind, e) || System.nanoTime() > deadline) {
            throw e;
          }
          LOG.debug("{} on target {}: lock not granted (attempt {}), retrying", what, target, attempt);
          try {
            Thread.sleep(patient ? 200 : 20);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new GeneIdException("interrupted while " + what, ie);
          }
        } finally {
          switch (kind) {
            case MYSQL -> st.execute("SET SESSION lock_wait_timeout = DEFAULT");
            case POSTGRESQL -> st.execute("RESET lock_timeout");
            default -> { }
          }
        }
      }
    }
  }

  private static boolean lockTimeout(Kind kind, SQLException e) {
    return switch (kind) {
      case MYSQL -> e.getErrorCode() == 1205 || e.getErrorCode() == 4062 || e.getErrorCode() == 1213;
      case POSTGRESQL -> "55P03".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
      case H2 -> "HYT00".equals(e.getSQLState()) || e.getErrorCode() == 50200;
    };
  }

  /** The fenced tables of a family: the physical tables of every bucket. */
  static List<Fenced> tables(List<JdbcBucketMover.Table> family, int geneBits) {
    List<Fenced> fenced = new ArrayList<>();
    for (JdbcBucketMover.Table table : family) {
      for (int b = 0; b < 1 << geneBits; b++) {
        Fenced f = new Fenced(table.physicalTable().apply(b), table.keyColumn());
        if (!fenced.contains(f)) {
          fenced.add(f);
        }
      }
    }
    return fenced;
  }
}
