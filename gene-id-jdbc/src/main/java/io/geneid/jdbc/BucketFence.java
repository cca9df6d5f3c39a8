package io.geneid.jdbc;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
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

  /**
   * The name of the fence's trigger (and PostgreSQL function) on a table: the table's name (at most 30 characters of
   * it) and a hash of everything the trigger's body depends on (map, gene bits, table, key column), so a trigger left
   * by another map or layout over the same table is never taken for this one; at most 52 characters with the
   * MariaDB event suffix.
   */
  String triggerName(Fenced t) {
    String table = t.physical().toLowerCase(Locale.ROOT);
    CRC32C crc = new CRC32C();
    crc.update((map + "\n" + geneBits + "\n" + table + "\n" + t.keyColumn().toLowerCase(Locale.ROOT))
        .getBytes(StandardCharsets.UTF_8));
    return "gid_fence_" + (table.length() > 30 ? table.substring(0, 30) : table) + "_"
        + String.format(Locale.ROOT, "%08x", crc.getValue());
  }

  /** The MariaDB/MySQL triggers of one table: one per event. */
  private static final List<String> MYSQL_EVENTS = List.of("_bi", "_bu", "_bd");

  private static void createTable(Connection c, Kind kind) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (map_name VARCHAR(128) NOT NULL, bucket INT NOT NULL,"
          + " fenced_version BIGINT NOT NULL, fenced_by VARCHAR(32) NOT NULL, PRIMARY KEY (map_name, bucket))");
      if (kind == Kind.H2) {
        st.execute("CREATE TABLE IF NOT EXISTS " + H2_TRIGGERS + " (trigger_name VARCHAR(128) PRIMARY KEY,"
            + " map_name VARCHAR(128) NOT NULL, key_column VARCHAR(128) NOT NULL, gene_bits INT NOT NULL)");
      }
    }
  }

  private void ensureTriggers(Connection c, Kind kind, int target, List<Fenced> tables) throws SQLException {
    for (Fenced t : tables) {
      if (!tableExists(c, t.physical())) {
        continue; // not on this database (autoTables place each table on one): nothing can write it here
      }
      if (!triggersExist(c, kind, t)) {
        withLockRetries(c, kind, target, "installing the fence on " + t.physical(), () -> create(c, kind, t));
        LOG.info("fence installed on {} of target {} (map '{}', key {})", t.physical(), target, map, t.keyColumn());
      }
    }
  }

  /**
   * Drops the triggers on {@code tables} in {@code ds} when no bucket of the map is fenced there any more; under the
   * map's named lock there, which {@link #fence} takes too, so a move cannot fence a bucket between the check and the
   * drop.
   */
  boolean uninstallIfUnused(DataSource ds, int target, List<Fenced> tables) {
    try (Connection c = ds.getConnection()) {
      Kind kind = Kind.of(c);
      if (kind == Kind.H2) {
        // H2 2.3 fails a statement that fires a trigger being dropped beside it (error 90044, a null trigger
        // callback): on H2 the triggers stay; without fence rows they refuse nothing
        return false;
      }
      boolean[] dropped = {false};
      withNamedLock(c, kind, target, () -> {
        if (!fenced(c).isEmpty()) {
          return;
        }
        for (Fenced t : tables) {
          if (anyTriggerExists(c, kind, t)) {
            withLockRetries(c, kind, target, "removing the fence from " + t.physical(), () -> drop(c, kind, t));
            LOG.info("fence removed from {} of target {} (map '{}')", t.physical(), target, map);
          }
        }
        dropped[0] = true;
      });
      return dropped[0];
    } catch (SQLException e) {
      throw new GeneIdException("removing the write fence of map '" + map + "' from target " + target + " failed: "
          + e.getMessage() + "; the triggers stay (they refuse nothing while no bucket is fenced), run cleanup"
          + " again to remove them", e);
    }
  }

  /**
   * Fences {@code bucket} in {@code ds} (committed when this returns), recording the map version that did it, and
   * makes sure the triggers on {@code tables} are there, both under the map's named lock (see
   * {@link #uninstallIfUnused}): once this returns, a transaction that begins there cannot write the bucket.
   */
  void fence(DataSource ds, int target, int bucket, long version, String by, List<Fenced> tables) {
    try (Connection c = ds.getConnection()) {
      Kind kind = Kind.of(c);
      withNamedLock(c, kind, target, () -> {
        createTable(c, kind);
        upsert(c, bucket, version, by);
        ensureTriggers(c, kind, target, tables);
      });
    } catch (SQLException e) {
      throw new GeneIdException("fencing bucket " + bucket + " of map '" + map + "' on target " + target + " failed: "
          + e.getMessage() + " (the mover needs the TRIGGER privilege and CREATE on the database, see"
          + " docs/resharding.md)", e);
    }
  }

  private void upsert(Connection c, int bucket, long version, String by) throws SQLException {
    try (PreparedStatement up = c.prepareStatement("UPDATE " + TABLE + " SET fenced_version = ?, fenced_by = ?"
        + " WHERE map_name = ? AND bucket = ?")) {
      up.setLong(1, version);
      up.setString(2, by);
      up.setString(3, map);
      up.setInt(4, bucket);
      if (up.executeUpdate() == 1) {
        return;
      }
    }
    try (PreparedStatement in = c.prepareStatement("INSERT INTO " + TABLE + " (map_name, bucket, fenced_version,"
        + " fenced_by) VALUES (?, ?, ?, ?)")) {
      in.setString(1, map);
      in.setInt(2, bucket);
      in.setLong(3, version);
      in.setString(4, by);
      in.executeUpdate();
    }
  }

  /**
   * Lifts the fences the map no longer needs on {@code target}: a bucket whose owner it is and that is not moving
   * (NORMAL or MOVED), fenced at or before {@code mapVersion} (a newer row is a move under way that has not published
   * its freeze yet). Such a row is left by a mover that fenced and then lost the compare-and-set of its freeze, or
   * died before it.
   */
  int releaseStale(DataSource ds, int target, BucketMap current) {
    try (Connection c = ds.getConnection()) {
      int released = 0;
      for (Map.Entry<Integer, Long> f : fenced(c).entrySet()) {
        int b = f.getKey();
        BucketState state = current.state(b);
        if (current.target(b) == target && f.getValue() <= current.version()
            && (state == BucketState.NORMAL || state == BucketState.MOVED)) {
          try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE map_name = ? AND bucket = ?"
              + " AND fenced_version = ?")) {
            ps.setString(1, map);
            ps.setInt(2, b);
            ps.setLong(3, f.getValue());
            released += ps.executeUpdate();
          }
          LOG.warn("bucket {} of map '{}' was fenced on target {}, its owner, though the map has it {} (version {}):"
              + " a mover lost its freeze or died before it; fence lifted", b, map, target, state, current.version());
        }
      }
      return released;
    } catch (SQLException e) {
      throw new GeneIdException("reading the fences of map '" + map + "' on target " + target + " failed: "
          + e.getMessage(), e);
    }
  }

  /**
   * Lifts the fence of {@code bucket} in {@code ds} if it is still the one {@code by} (a mover run) made: a run that
   * fails before its freeze is published takes its fence back, and never one another run has made since.
   */
  void unfenceOwn(DataSource ds, int target, int bucket, String by) {
    try (Connection c = ds.getConnection()) {
      if (!tableExists(c)) {
        return;
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE map_name = ? AND bucket = ?"
          + " AND fenced_by = ?")) {
        ps.setString(1, map);
        ps.setInt(2, bucket);
        ps.setString(3, by);
        ps.executeUpdate();
      }
    } catch (SQLException e) {
      LOG.warn("taking back the fence of bucket {} of map '{}' on target {} failed ({}); the next move or cleanup"
          + " of the map lifts it", bucket, map, target, e.getMessage());
    }
  }

  /** Lifts the fence of {@code bucket} in {@code ds}: the database takes its writes again. */
  void unfence(DataSource ds, int target, int bucket) {
    try (Connection c = ds.getConnection()) {
      if (!tableExists(c)) {
        return; // never fenced here (a switch interrupted by a version without the fence)
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE map_name = ? AND bucket = ?")) {
        ps.setString(1, map);
        ps.setInt(2, bucket);
        ps.executeUpdate();
      }
    } catch (SQLException e) {
      throw new GeneIdException("lifting the fence of bucket " + bucket + " of map '" + map + "' on target " + target
          + " failed: " + e.getMessage(), e);
    }
  }

  /** The fenced buckets of the map on the database of {@code c}, with the version that fenced each. */
  Map<Integer, Long> fenced(Connection c) throws SQLException {
    Map<Integer, Long> fenced = new TreeMap<>();
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
    return tableExists(c, TABLE);
  }

  private static boolean tableExists(Connection c, String table) throws SQLException {
    for (String name : new LinkedHashSet<>(List.of(table, table.toUpperCase(Locale.ROOT),
        table.toLowerCase(Locale.ROOT)))) {
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

  /** The names of the triggers of {@code t}: one per event on MariaDB/MySQL, one row trigger elsewhere. */
  private List<String> triggerNames(Kind kind, Fenced t) {
    String name = triggerName(t);
    return kind == Kind.MYSQL ? MYSQL_EVENTS.stream().map(e -> name + e).toList() : List.of(name);
  }

  /** Whether every trigger of the fence on {@code t} is there (a half-made fence counts as missing). */
  private boolean triggersExist(Connection c, Kind kind, Fenced t) throws SQLException {
    for (String name : triggerNames(kind, t)) {
      if (!triggerExists(c, kind, t, name)) {
        return false;
      }
    }
    return true;
  }

  private boolean anyTriggerExists(Connection c, Kind kind, Fenced t) throws SQLException {
    for (String name : triggerNames(kind, t)) {
      if (triggerExists(c, kind, t, name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean triggerExists(Connection c, Kind kind, Fenced t, String name) throws SQLException {
    String sql = switch (kind) {
      case MYSQL -> "SELECT 1 FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()"
          + " AND LOWER(TRIGGER_NAME) = ?";
      case POSTGRESQL -> "SELECT 1 FROM pg_trigger t WHERE t.tgrelid = to_regclass(current_schema() || '.' || ?)"
          + " AND t.tgname = ?";
      case H2 -> "SELECT 1 FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = SCHEMA()"
          + " AND LOWER(TRIGGER_NAME) = ?";
    };
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (kind == Kind.POSTGRESQL) {
        ps.setString(1, t.physical().toLowerCase(Locale.ROOT));
        ps.setString(2, name);
      } else {
        ps.setString(1, name);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Local locks of H2 databases, which have no named lock: a map's fence is changed by one thread at a time. */
  private static final ConcurrentHashMap<String, ReentrantLock>
      H2_LOCKS = new ConcurrentHashMap<>();

  /**
   * Runs {@code work} holding the map's named lock in the database of {@code c} (MariaDB {@code GET_LOCK}, PostgreSQL
   * {@code pg_advisory_lock}; on H2 a lock of this JVM), so that fencing a bucket and removing the triggers never
   * interleave. Waits at most {@code installWait} for it.
   */
  private void withNamedLock(Connection c, Kind kind, int target, Ddl work) throws SQLException {
    String lock = "gene_id_fence:" + map;
    long waitSeconds = Math.max(1, installWait.toSeconds());
    switch (kind) {
      case MYSQL -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(?, ?)")) {
          ps.setString(1, lock.length() > 64 ? lock.substring(0, 64) : lock);
          ps.setLong(2, waitSeconds);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next() || rs.getInt(1) != 1) {
              throw new GeneIdException("the lock " + lock + " on target " + target + " was not granted within "
                  + waitSeconds + " s: another mover or cleanup of map '" + map + "' holds it");
            }
          }
        }
        try {
          work.run();
        } finally {
          try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(?)")) {
            ps.setString(1, lock.length() > 64 ? lock.substring(0, 64) : lock);
            ps.executeQuery().close();
          }
        }
      }
      case POSTGRESQL -> {
        try (Statement st = c.createStatement()) {
          st.execute("SET lock_timeout = '" + waitSeconds + "s'");
          try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(hashtext(?))")) {
            ps.setString(1, lock);
            ps.executeQuery().close();
          } finally {
            st.execute("RESET lock_timeout");
          }
          try {
            work.run();
          } finally {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(hashtext(?))")) {
              ps.setString(1, lock);
              ps.executeQuery().close();
            }
          }
        }
      }
      case H2 -> {
        ReentrantLock local = H2_LOCKS.computeIfAbsent(c.getMetaData().getURL() + "|"
            + lock, k -> new ReentrantLock());
        try {
          if (!local.tryLock(waitSeconds, TimeUnit.SECONDS)) {
            throw new GeneIdException("the lock " + lock + " on target " + target + " was not granted within "
                + waitSeconds + " s: another mover or cleanup of map '" + map + "' holds it");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new GeneIdException("interrupted while waiting for the lock " + lock, e);
        }
        try {
          work.run();
        } finally {
          local.unlock();
        }
      }
      default -> throw new IllegalStateException(kind.name());
    }
  }

  private void create(Connection c, Kind kind, Fenced t) throws SQLException {
    String name = triggerName(t);
    int buckets = 1 << geneBits;
    try (Statement st = c.createStatement()) {
      switch (kind) {
        case MYSQL -> {
          // one trigger per event; each in one statement, so the table is never half fenced for long
          // IF NOT EXISTS: a fence a killed run left half made is completed, not taken for a whole one
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
          st.execute("CREATE OR REPLACE TRIGGER " + name + " BEFORE INSERT OR UPDATE OR DELETE ON " + t.physical()
              + " FOR EACH ROW EXECUTE FUNCTION " + name + "()");
          st.execute("CREATE OR REPLACE TRIGGER " + name + "_t BEFORE TRUNCATE ON " + t.physical()
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
    String name = triggerName(t);
    try (Statement st = c.createStatement()) {
      switch (kind) {
        case MYSQL -> {
          for (String event : MYSQL_EVENTS) {
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
    StringBuilder sql = new StringBuilder("CREATE TRIGGER IF NOT EXISTS ").append(name).append(" BEFORE ").append(event)
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
          if (lockTimeout(kind, e) && System.nanoTime() > deadline) {
            throw new GeneIdException(JdbcBucketMover.describeOpenTransactions(c, target, "while " + what
                + " waited " + installWait.toMillis() + " ms for the table's lock (they hold it)") + "; nothing was"
                + " frozen: end that transaction, or raise the transaction wait, and run the move again", e);
          }
          if (!lockTimeout(kind, e)) {
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
