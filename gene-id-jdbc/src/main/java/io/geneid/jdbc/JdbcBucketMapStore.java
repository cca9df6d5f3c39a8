package io.geneid.jdbc;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BucketMapStore} over three tables of any JDBC database; the same SQL runs on MariaDB/MySQL, PostgreSQL and
 * H2, and only the DDL's text type differs ({@link #ddl(String, boolean)}: MariaDB's {@code TEXT} holds 64 KB, too
 * little for an irregular map of G = 16, so it gets {@code MEDIUMTEXT}):
 *
 * <pre>{@code
 * <table>        (name PK, gene_bits, version, bucket_map TEXT, bucket_states TEXT)   one row per map
 * <table>_router (name, router_id PK, version, seen_at: database time, instance,
 *                 other_instance, other_version, other_seen_at)                 one row per router id
 * <table>_progress (name PK, target_version, buckets_done, buckets_total, rows_copied,
 *                   started_at, updated_at)                                         a move's last progress
 * }</pre>
 *
 * <p>A change is {@code UPDATE ... WHERE name = ? AND version = ?} (a first map an {@code INSERT}), so of two
 * writers one wins; a heartbeat is an update, or an insert the first time. Every statement runs in auto-commit with
 * a query timeout. Keep the tables on a plain DataSource, not behind ShardingSphere. The store never closes the
 * DataSource.
 */
public final class JdbcBucketMapStore implements BucketMapStore {

  /** The default table name; routers go to this name + {@code _router}, progress to + {@code _progress}. */
  public static final String DEFAULT_TABLE = "gene_id_bucket_map";

  private final DataSource dataSource;
  private final String table;
  private final String routerTable;
  private final String progressTable;
  private final boolean createTable;
  private final Duration statementTimeout;
  private volatile boolean tableReady;
  private volatile JdbcSession.@Nullable Dialect dialect;

  private JdbcBucketMapStore(Builder b) {
    this.dataSource = Objects.requireNonNull(b.dataSource, "dataSource is required");
    this.table = JdbcSession.checkTable("table", b.table);
    this.routerTable = b.table + "_router";
    this.progressTable = b.table + "_progress";
    this.createTable = b.createTable;
    this.statementTimeout = b.statementTimeout;
  }

  /** A builder; {@link Builder#dataSource(DataSource)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The DDL of the three tables: the maps, the routers' heartbeats and the moves' progress.
   *
   * @param mysql whether the database is MariaDB/MySQL ({@code MEDIUMTEXT} columns); else {@code TEXT} (PostgreSQL,
   *     H2)
   * @throws IllegalArgumentException if {@code table} is not a plain SQL name
   */
  public static List<String> ddl(String table, boolean mysql) {
    JdbcSession.checkTable("table", table);
    String text = mysql ? "MEDIUMTEXT" : "TEXT      ";
    return List.of("CREATE TABLE IF NOT EXISTS " + table + " (\n"
            + "  name          VARCHAR(128) NOT NULL PRIMARY KEY,\n"
            + "  gene_bits     INT          NOT NULL,\n"
            + "  version       BIGINT       NOT NULL,\n"
            + "  bucket_map    " + text + "   NOT NULL,\n"
            + "  bucket_states " + text + "   NOT NULL\n"
            + ")",
        "CREATE TABLE IF NOT EXISTS " + table + "_router (\n"
            + "  name      VARCHAR(128) NOT NULL,\n"
            + "  router_id VARCHAR(128) NOT NULL,\n"
            + "  version   BIGINT       NOT NULL,\n"
            + "  seen_at   BIGINT       NOT NULL,\n"
            + "  instance       VARCHAR(64),\n"
            + "  other_instance VARCHAR(64),\n"
            + "  other_version  BIGINT,\n"
            + "  other_seen_at  BIGINT,\n"
            + "  PRIMARY KEY (name, router_id)\n"
            + ")",
        "CREATE TABLE IF NOT EXISTS " + table + "_progress (\n"
            + "  name           VARCHAR(128) NOT NULL PRIMARY KEY,\n"
            + "  target_version BIGINT       NOT NULL,\n"
            + "  buckets_done   INT          NOT NULL,\n"
            + "  buckets_total  INT          NOT NULL,\n"
            + "  rows_copied    BIGINT       NOT NULL,\n"
            + "  started_at     BIGINT       NOT NULL,\n"
            + "  updated_at     BIGINT       NOT NULL\n"
            + ")");
  }

  /** The columns a {@code _router} table made before issue #38 lacks, with their types. */
  private static final List<String[]> ROUTER_COLUMNS = List.of(new String[] {"instance", "VARCHAR(64)"},
      new String[] {"other_instance", "VARCHAR(64)"}, new String[] {"other_version", "BIGINT"},
      new String[] {"other_seen_at", "BIGINT"});

  /**
   * Adds the columns of the routers' instances to a {@code _router} table created by an older version (one
   * {@code ALTER TABLE ... ADD} each; one a concurrent store added first is fine).
   */
  private void addRouterColumns(JdbcSession s) throws SQLException {
    for (String[] column : ROUTER_COLUMNS) {
      try (Statement st = s.statement()) {
        st.executeQuery("SELECT " + column[0] + " FROM " + routerTable + " WHERE 1 = 0").close();
        continue;
      } catch (SQLException missing) {
        // added below
      }
      try (Statement st = s.statement()) {
        st.execute("ALTER TABLE " + routerTable + " ADD " + column[0] + " " + column[1]);
      } catch (SQLException e) {
        try (Statement st = s.statement()) {
          st.executeQuery("SELECT " + column[0] + " FROM " + routerTable + " WHERE 1 = 0").close();
        } catch (SQLException again) {
          throw e;
        }
      }
    }
  }

  private interface Work<T> {
    T run(JdbcSession s) throws SQLException;
  }

  private <T> T run(String what, Work<T> work) {
    try (JdbcSession s = JdbcSession.open(dataSource.getConnection(), statementTimeout, true)) {
      ensureTables(s);
      return work.run(s);
    } catch (SQLException e) {
      throw new GeneIdException("the JDBC bucket map store (table " + table + ") could not " + what + ": "
          + e.getMessage(), e);
    }
  }

  private void ensureTables(JdbcSession s) throws SQLException {
    if (!createTable || tableReady) {
      return;
    }
    synchronized (this) {
      if (tableReady) {
        return;
      }
      for (String ddl : ddl(table, JdbcSession.Dialect.of(s.connection()) == JdbcSession.Dialect.MYSQL)) {
        try (Statement st = s.statement()) {
          st.execute(ddl);
        } catch (SQLException e) {
          // concurrent CREATE TABLE IF NOT EXISTS can fail on PostgreSQL; fine if the table is there now
          try (Statement st = s.statement()) {
            String created = ddl.contains(routerTable + " (") ? routerTable
                : ddl.contains(progressTable + " (") ? progressTable : table;
            st.executeQuery("SELECT 1 FROM " + created + " WHERE 1 = 0").close();
          } catch (SQLException again) {
            throw e;
          }
        }
      }
      addRouterColumns(s);
      tableReady = true;
    }
  }

  @Override
  public Optional<BucketMap> load(String name) {
    return run("load map '" + name + "'", s -> {
      try (PreparedStatement ps = s.prepare("SELECT gene_bits, version, bucket_map, bucket_states FROM " + table
          + " WHERE name = ?")) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          try {
            return Optional.of(BucketMap.parse(rs.getInt(1), rs.getLong(2), rs.getString(3), rs.getString(4)));
          } catch (IllegalArgumentException e) {
            throw new GeneIdException("bucket map '" + name + "' in table " + table + " cannot be read: "
                + e.getMessage(), e);
          }
        }
      }
    });
  }

  @Override
  public boolean compareAndSet(String name, long expectedVersion, BucketMap map) {
    if (map.version() <= expectedVersion) {
      throw new IllegalArgumentException("a new bucket map must have a version above " + expectedVersion
          + " but had " + map.version());
    }
    return run("store map '" + name + "' at version " + map.version(), s -> {
      if (expectedVersion < 0) {
        try (PreparedStatement ps = s.prepare("INSERT INTO " + table
            + " (name, gene_bits, version, bucket_map, bucket_states) VALUES (?, ?, ?, ?, ?)")) {
          ps.setString(1, name);
          ps.setInt(2, map.geneBits());
          ps.setLong(3, map.version());
          ps.setString(4, map.format());
          ps.setString(5, map.formatStates());
          return ps.executeUpdate() == 1;
        } catch (SQLException e) {
          if (JdbcSession.isDuplicate(e)) {
            return false;
          }
          throw e;
        }
      }
      try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET version = ?, bucket_map = ?, bucket_states = ?"
          + " WHERE name = ? AND version = ? AND gene_bits = ?")) {
        ps.setLong(1, map.version());
        ps.setString(2, map.format());
        ps.setString(3, map.formatStates());
        ps.setString(4, name);
        ps.setLong(5, expectedVersion);
        ps.setInt(6, map.geneBits());
        return ps.executeUpdate() == 1;
      }
    });
  }

  /** @deprecated records the caller's time; {@link #heartbeat(String, String, long)} records the database's. */
  @Deprecated
  @Override
  public void heartbeat(String name, String routerId, long version, long nowMillis) {
    heartbeat(name, routerId, version, "", nowMillis, "?");
  }

  /** Records the heartbeat at the database's own time ({@code CURRENT_TIMESTAMP} in the statement itself). */
  @Override
  public void heartbeat(String name, String routerId, long version) {
    heartbeat(name, routerId, version, "", 0, null);
  }

  /**
   * Records the heartbeat of router instance {@code instance} at the database's own time, in one {@code UPDATE}
   * that keeps the row's previous beat as the other writer's when it came from another instance or carried a
   * higher version.
   */
  @Override
  public void heartbeat(String name, String routerId, long version, String instance) {
    if (instance.isEmpty() || instance.length() > 64) {
      throw new IllegalArgumentException("router instance must have 1 to 64 characters but was '" + instance + "'");
    }
    heartbeat(name, routerId, version, instance, 0, null);
  }

  /**
   * {@code seenAt} is the SQL of the time ({@code null}: the database's clock) or {@code ?} for {@code nowMillis};
   * {@code instance} is empty for a writer that gives none. The {@code other_*} columns are assigned before the
   * ones they read, so MariaDB's left-to-right {@code SET} sees the old values as the standard's does.
   */
  private void heartbeat(String name, String routerId, long version, String instance, long nowMillis,
      @Nullable String seenAt) {
    run("record router " + routerId + " of map '" + name + "'", s -> {
      String at = seenAt != null ? seenAt : dialect(s).nowMillis;
      boolean bound = "?".equals(at);
      String another = "COALESCE(instance, '') <> ? OR version > ?";
      try (PreparedStatement update = s.prepare("UPDATE " + routerTable + " SET"
          + " other_instance = CASE WHEN " + another + " THEN instance ELSE other_instance END,"
          + " other_version = CASE WHEN " + another + " THEN version ELSE other_version END,"
          + " other_seen_at = CASE WHEN " + another + " THEN seen_at ELSE other_seen_at END,"
          + " version = ?, seen_at = " + at + ", instance = ? WHERE name = ? AND router_id = ?")) {
        int i = 1;
        for (int k = 0; k < 3; k++) {
          update.setString(i++, instance);
          update.setLong(i++, version);
        }
        update.setLong(i++, version);
        if (bound) {
          update.setLong(i++, nowMillis);
        }
        update.setString(i++, instance);
        update.setString(i++, name);
        update.setString(i, routerId);
        if (update.executeUpdate() == 1) {
          return null;
        }
        try (PreparedStatement insert = s.prepare("INSERT INTO " + routerTable
            + " (name, router_id, version, seen_at, instance) VALUES (?, ?, ?, " + at + ", ?)")) {
          int j = 1;
          insert.setString(j++, name);
          insert.setString(j++, routerId);
          insert.setLong(j++, version);
          if (bound) {
            insert.setLong(j++, nowMillis);
          }
          insert.setString(j, instance);
          insert.executeUpdate();
        } catch (SQLException e) {
          if (!JdbcSession.isDuplicate(e)) {
            throw e;
          }
          update.executeUpdate(); // another writer of this id inserted it first
        }
        return null;
      }
    });
  }

  /** The database's clock: one {@code SELECT} of its {@code CURRENT_TIMESTAMP} (UTC) in epoch milliseconds. */
  @Override
  public long nowMillis(String name) {
    return run("read the database's clock", s -> {
      try (PreparedStatement ps = s.prepare("SELECT " + dialect(s).nowMillis); ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  @Override
  public List<RouterHeartbeat> routers(String name) {
    return routers(name, null);
  }

  /** One {@code SELECT}: the routers whose {@code seen_at} is within {@code window} of the database's own now. */
  @Override
  public List<RouterHeartbeat> liveRouters(String name, Duration window) {
    return routers(name, window);
  }

  private List<RouterHeartbeat> routers(String name, @Nullable Duration window) {
    return run("list the routers of map '" + name + "'", s -> {
      String now = dialect(s).nowMillis;
      try (PreparedStatement ps = s.prepare("SELECT router_id, version, seen_at, instance, other_instance,"
          + " other_version, other_seen_at, " + now + " FROM " + routerTable + " WHERE name = ?"
          + (window == null ? "" : " AND seen_at >= " + now + " - ?") + " ORDER BY router_id")) {
        ps.setString(1, name);
        if (window != null) {
          ps.setLong(2, window.toMillis());
        }
        List<RouterHeartbeat> result = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String instance = rs.getString(4);
            long otherAt = rs.getLong(7);
            boolean other = !rs.wasNull() && (window == null || rs.getLong(8) - otherAt <= window.toMillis());
            String otherInstance = rs.getString(5);
            result.add(new RouterHeartbeat(rs.getString(1), rs.getLong(2), rs.getLong(3),
                instance == null || instance.isEmpty() ? null : instance,
                !other ? null : new OtherWriter(otherInstance == null || otherInstance.isEmpty() ? null
                    : otherInstance, rs.getLong(6), otherAt)));
          }
        }
        return result;
      }
    });
  }

  private JdbcSession.Dialect dialect(JdbcSession s) throws SQLException {
    JdbcSession.Dialect d = dialect;
    if (d == null) {
      d = JdbcSession.Dialect.of(s.connection());
      dialect = d;
    }
    return d;
  }

  @Override
  public void saveProgress(String name, MoveProgress progress) {
    run("record the progress of a move of map '" + name + "'", s -> {
      try (PreparedStatement update = s.prepare("UPDATE " + progressTable + " SET target_version = ?,"
          + " buckets_done = ?, buckets_total = ?, rows_copied = ?, started_at = ?, updated_at = ? WHERE name = ?")) {
        bindProgress(update, progress, 1);
        update.setString(7, name);
        if (update.executeUpdate() == 1) {
          return null;
        }
        try (PreparedStatement insert = s.prepare("INSERT INTO " + progressTable + " (target_version, buckets_done,"
            + " buckets_total, rows_copied, started_at, updated_at, name) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
          bindProgress(insert, progress, 1);
          insert.setString(7, name);
          insert.executeUpdate();
        } catch (SQLException e) {
          if (!JdbcSession.isDuplicate(e)) {
            throw e;
          }
          update.executeUpdate(); // another writer inserted it first
        }
        return null;
      }
    });
  }

  private static void bindProgress(PreparedStatement ps, MoveProgress p, int from) throws SQLException {
    ps.setLong(from, p.targetVersion());
    ps.setInt(from + 1, p.bucketsDone());
    ps.setInt(from + 2, p.bucketsTotal());
    ps.setLong(from + 3, p.rowsCopied());
    ps.setLong(from + 4, p.startedAtMillis());
    ps.setLong(from + 5, p.updatedAtMillis());
  }

  @Override
  public Optional<MoveProgress> progress(String name) {
    return run("read the progress of a move of map '" + name + "'", s -> {
      try (PreparedStatement ps = s.prepare("SELECT target_version, buckets_done, buckets_total, rows_copied,"
          + " started_at, updated_at FROM " + progressTable + " WHERE name = ?")) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(new MoveProgress(rs.getLong(1), rs.getInt(2), rs.getInt(3), rs.getLong(4),
              rs.getLong(5), rs.getLong(6))) : Optional.<MoveProgress>empty();
        }
      }
    });
  }

  @Override
  public String toString() {
    return "JdbcBucketMapStore[table " + table + "]";
  }

  /** Settings of a {@link JdbcBucketMapStore}. */
  public static final class Builder {
    private @Nullable DataSource dataSource;
    private String table = DEFAULT_TABLE;
    private boolean createTable;
    private Duration statementTimeout = Duration.ofSeconds(5);

    private Builder() {}

    /** A pool such as HikariCP. The store never closes it. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /**
     * The map table's name (a plain SQL name); routers go to this name + {@code _router}, the moves' progress to
     * this name + {@code _progress}.
     */
    public Builder table(String table) {
      this.table = Objects.requireNonNull(table, "table");
      return this;
    }

    /** Whether to create the tables ({@link #ddl(String, boolean)}) before the first statement. Default false. */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /** The query timeout of every statement, in [1 s, 1 h]. Default 5 s. */
    public Builder statementTimeout(Duration timeout) {
      this.statementTimeout = io.geneid.core.internal.Checks.duration("statement timeout", timeout,
          Duration.ofSeconds(1), Duration.ofHours(1));
      return this;
    }

    /**
     * The store.
     *
     * @throws IllegalArgumentException for a table name that is not a plain SQL name
     * @throws NullPointerException without a data source
     */
    public JdbcBucketMapStore build() {
      return new JdbcBucketMapStore(this);
    }
  }
}
