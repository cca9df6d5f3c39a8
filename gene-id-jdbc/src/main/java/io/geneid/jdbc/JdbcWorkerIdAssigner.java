package io.geneid.jdbc;

import io.geneid.core.GeneIdException;
import io.geneid.core.LeaseAssignerBuilder;
import io.geneid.core.WorkerIdAssigner;
import io.geneid.core.WorkerIdAssigners;
import io.geneid.core.WorkerIdExhaustedException;
import io.geneid.core.WorkerLease;
import io.geneid.core.WorkerLeaseLostException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker-id leases in a table of any relational database reachable through JDBC: MariaDB/MySQL, PostgreSQL and H2
 * run the same statements.
 *
 * <h2>Table</h2>
 * One row per worker id ever used in a pool, created by {@link #ddl(String)} (run it yourself, or let
 * {@link Builder#createTable(boolean)} do it):
 * <pre>
 * CREATE TABLE gene_id_worker_lease (
 *   space_name      VARCHAR(64)  NOT NULL,
 *   worker_id       INT          NOT NULL,
 *   holder          VARCHAR(255) NOT NULL,
 *   version         BIGINT       NOT NULL,
 *   expires_at      BIGINT       NOT NULL,
 *   high_water_mark BIGINT       NOT NULL,
 *   PRIMARY KEY (space_name, worker_id)
 * )
 * </pre>
 * {@code version} is the fencing token: acquire and release change it by compare-and-set
 * ({@code UPDATE ... WHERE version = ?}); renewals require it unchanged. {@code expires_at} and
 * {@code high_water_mark} are milliseconds since 1970; expiries come from the database's clock
 * ({@code CURRENT_TIMESTAMP(3)}), never the client's. A worker id never used gets its row by {@code INSERT}; a
 * duplicate key (SQLState class {@code 23}) means another process was faster. Every statement runs in auto-commit
 * (PostgreSQL and H2 freeze {@code CURRENT_TIMESTAMP} inside a transaction), on a connection of its own from the
 * {@link DataSource}; keep the table on a plain data source, not behind ShardingSphere.
 *
 * <p>A database does not forget rows the way a Redis without persistence forgets keys, so a worker id without a row
 * is treated as never used. Do not delete rows of a live pool.
 */
public final class JdbcWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcWorkerIdAssigner.class);

  /** Default table name. */
  public static final String DEFAULT_TABLE = "gene_id_worker_lease";

  private static final Pattern TABLE_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,62}");
  private static final String MYSQL_NOW = "CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)";
  private static final String STANDARD_NOW = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)";

  private final ConnectionSource connections;
  private final String table;
  private final boolean createTable;
  private final String space;
  private final long minWorkerId;
  private final long maxWorkerId;
  private final Duration ttl;
  private final Duration acquireTimeout;
  private final String owner;
  private final String description;
  private final Object setupLock = new Object();
  private volatile @Nullable String now;

  /** Where connections come from: a {@link DataSource} or {@link DriverManager}. */
  @FunctionalInterface
  private interface ConnectionSource {
    Connection get() throws SQLException;
  }

  private JdbcWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease, ConnectionSource connections,
      String description) {
    this.connections = connections;
    this.table = b.table;
    this.createTable = b.createTable;
    this.space = lease.space();
    this.minWorkerId = lease.minWorkerId();
    this.maxWorkerId = lease.maxWorkerId();
    this.ttl = lease.ttl();
    this.acquireTimeout = lease.acquireTimeout();
    this.owner = lease.owner();
    this.description = description;
  }

  /** A builder; {@link Builder#dataSource(DataSource)} or {@link Builder#jdbcUrl(String, String, String)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** The DDL of the lease table: one statement that runs unchanged on MariaDB/MySQL, PostgreSQL and H2. */
  public static String ddl(String table) {
    checkTable(table);
    return "CREATE TABLE " + table + " (\n"
        + "  space_name      VARCHAR(64)  NOT NULL,\n"
        + "  worker_id       INT          NOT NULL,\n"
        + "  holder          VARCHAR(255) NOT NULL,\n"
        + "  version         BIGINT       NOT NULL,\n"
        + "  expires_at      BIGINT       NOT NULL,\n"
        + "  high_water_mark BIGINT       NOT NULL,\n"
        + "  PRIMARY KEY (space_name, worker_id)\n"
        + ")";
  }

  private static String checkTable(String table) {
    if (!TABLE_NAME.matcher(table).matches()) {
      throw new IllegalArgumentException("jdbc-table must be a plain SQL name ([schema.]name of letters, digits and "
          + "_) but was '" + table + "'");
    }
    return table;
  }

  @Override
  public String space() {
    return space;
  }

  @Override
  public Duration ttl() {
    return ttl;
  }

  /** The lease table. */
  public String table() {
    return table;
  }

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    long[] range = WorkerIdAssigners.poolRange(space, minWorkerId, maxWorkerId, layoutMaxWorkerId);
    long deadline = System.nanoTime() + acquireTimeout.toNanos();
    for (;;) {
      List<String> holders = new ArrayList<>();
      WorkerLease lease = sql("acquire", c -> tryAcquire(c, range[0], range[1], holders));
      if (lease != null) {
        LOG.info("leased worker id {} of space '{}' from {} until {} (database time)", lease.workerId(), space,
            description, lease.expiresAt());
        return lease;
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new WorkerIdExhaustedException(space, range[0], range[1], holders, " in " + description
            + " after waiting " + acquireTimeout.toMillis() + " ms");
      }
      WorkerIdAssigners.pauseBeforeRetry(space, ttl, remaining);
    }
  }

  private @Nullable WorkerLease tryAcquire(Connection c, long lo, long hi, List<String> holders) throws SQLException {
    String now = now(c);
    long dbNow;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + now)) {
      rs.next();
      dbNow = rs.getLong(1);
    }
    // rows of the pool, least recently used first
    Map<Long, long[]> rows = new LinkedHashMap<>(); // id -> version, expires_at
    Map<Long, String> owners = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT worker_id, holder, version, expires_at FROM " + table
        + " WHERE space_name = ? AND worker_id BETWEEN ? AND ? ORDER BY expires_at, worker_id")) {
      ps.setString(1, space);
      ps.setLong(2, lo);
      ps.setLong(3, hi);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.put(rs.getLong(1), new long[] {rs.getLong(3), rs.getLong(4)});
          owners.put(rs.getLong(1), rs.getString(2));
        }
      }
    }
    // 1. worker ids never used: least recently used of all
    for (long id = lo; id <= hi; id++) {
      if (rows.containsKey(id)) {
        continue;
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
          + " (space_name, worker_id, holder, version, expires_at, high_water_mark) VALUES (?, ?, ?, 1, " + now
          + " + ?, 0)")) {
        ps.setString(1, space);
        ps.setLong(2, id);
        ps.setString(3, owner);
        ps.setLong(4, ttl.toMillis());
        ps.executeUpdate();
        return readBack(c, id, 1);
      } catch (SQLException e) {
        if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
          throw e;
        }
        // integrity constraint violation: another process inserted this worker id first
      }
    }
    // 2. expired or released rows, least recently used first: compare-and-set on version and expiry
    for (Map.Entry<Long, long[]> row : rows.entrySet()) {
      long[] v = row.getValue();
      if (v[1] >= dbNow) {
        continue;
      }
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET holder = ?, version = version + 1, "
          + "expires_at = " + now + " + ? WHERE space_name = ? AND worker_id = ? AND version = ? AND expires_at < "
          + now)) {
        ps.setString(1, owner);
        ps.setLong(2, ttl.toMillis());
        ps.setString(3, space);
        ps.setLong(4, row.getKey());
        ps.setLong(5, v[0]);
        if (ps.executeUpdate() == 1) {
          return readBack(c, row.getKey(), v[0] + 1);
        }
      }
    }
    for (Map.Entry<Long, long[]> row : rows.entrySet()) {
      if (row.getValue()[1] >= dbNow) {
        holders.add(row.getKey() + " by " + owners.get(row.getKey()) + " until "
            + Instant.ofEpochMilli(row.getValue()[1]));
      }
    }
    holders.sort(null);
    return null;
  }

  private WorkerLease readBack(Connection c, long id, long version) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT high_water_mark, expires_at FROM " + table
        + " WHERE space_name = ? AND worker_id = ? AND version = ?")) {
      ps.setString(1, space);
      ps.setLong(2, id);
      ps.setLong(3, version);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new WorkerLeaseLostException(space, id, "worker id " + id + " of space '" + space
              + "' changed hands right after it was leased under version " + version, null);
        }
        Instant mark = Instant.ofEpochMilli(rs.getLong(1));
        return new WorkerLease(space, id, version, owner, mark, mark, Instant.ofEpochMilli(rs.getLong(2)));
      }
    }
  }

  @Override
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    return sql("renew", c -> {
      String now = now(c);
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET expires_at = " + now + " + ?, "
          + "high_water_mark = GREATEST(high_water_mark, ?) WHERE space_name = ? AND worker_id = ? AND version = ?")) {
        ps.setLong(1, ttl.toMillis());
        ps.setLong(2, highWaterMark.toEpochMilli());
        ps.setString(3, space);
        ps.setLong(4, lease.workerId());
        ps.setLong(5, lease.token());
        if (ps.executeUpdate() == 1) {
          WorkerLease now2 = readBack(c, lease.workerId(), lease.token());
          return lease.renewed(now2.highWaterMark(), now2.expiresAt());
        }
      }
      throw new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId() + " of space '"
          + space + "' is no longer leased under token " + lease.token() + " in " + description + ": "
          + currentHolder(c, lease.workerId()), null);
    });
  }

  private String currentHolder(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT holder, version FROM " + table
        + " WHERE space_name = ? AND worker_id = ?")) {
      ps.setString(1, space);
      ps.setLong(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return "its row is gone";
        }
        String holder = rs.getString(1);
        return holder.isEmpty() ? "it was released (version " + rs.getLong(2) + ")"
            : "it was taken over by " + holder + " (version " + rs.getLong(2) + ")";
      }
    }
  }

  @Override
  public void release(WorkerLease lease, Instant highWaterMark) {
    int updated = sql("release", c -> {
      String now = now(c);
      try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET holder = '', version = version + 1, "
          + "expires_at = " + now + ", high_water_mark = ? WHERE space_name = ? AND worker_id = ? AND version = ?")) {
        ps.setLong(1, highWaterMark.toEpochMilli());
        ps.setString(2, space);
        ps.setLong(3, lease.workerId());
        ps.setLong(4, lease.token());
        return ps.executeUpdate();
      }
    });
    if (updated == 1) {
      LOG.info("released worker id {} of space '{}' with high-water mark {}", lease.workerId(), space, highWaterMark);
    } else {
      LOG.warn("worker id {} of space '{}' was not released: it is no longer leased under token {}",
          lease.workerId(), space, lease.token());
    }
  }

  /** The database's "now in ms" expression; creates the table first if asked to. */
  private String now(Connection c) throws SQLException {
    String n = now;
    if (n != null) {
      return n;
    }
    synchronized (setupLock) {
      if (now == null) {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        String expr = product.contains("mariadb") || product.contains("mysql") ? MYSQL_NOW : STANDARD_NOW;
        if (createTable && !tableExists(c)) {
          try (Statement s = c.createStatement()) {
            s.execute(ddl(table));
            LOG.info("created the worker-id lease table {} in {}", table, description);
          } catch (SQLException e) {
            if (!tableExists(c)) { // another process may have created it meanwhile
              throw e;
            }
          }
        }
        now = expr;
      }
      return now;
    }
  }

  private boolean tableExists(Connection c) {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0")) {
      rs.next(); // the query ran, so the table exists; it has no row to return
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  @FunctionalInterface
  private interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T sql(String operation, SqlWork<T> work) {
    try (Connection c = connections.get()) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true); // lease statements must not share a transaction (frozen CURRENT_TIMESTAMP)
      }
      try {
        return work.run(c);
      } finally {
        if (!autoCommit) {
          c.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw new GeneIdException("the worker-id lease store, " + description + ", failed on " + operation
          + " for space '" + space + "': " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
  }

  @Override
  public String toString() {
    return "JdbcWorkerIdAssigner[space=" + space + ", pool=[" + minWorkerId + ", "
        + (maxWorkerId == Integer.MAX_VALUE ? "layout max" : maxWorkerId) + "], ttl=" + ttl + ", " + description
        + "]";
  }

  /**
   * Configuration of a {@link JdbcWorkerIdAssigner}: the connections and the table here, the pool's settings
   * ({@code space}, {@code workerIds}, {@code ttl}, {@code acquireTimeout}, {@code owner}) in
   * {@link LeaseAssignerBuilder}.
   */
  public static final class Builder extends LeaseAssignerBuilder<Builder> {
    @Nullable DataSource dataSource;
    @Nullable String jdbcUrl;
    @Nullable String username;
    @Nullable String password;
    String table = DEFAULT_TABLE;
    boolean createTable;

    private Builder() {}

    /** Where connections come from (any pool or plain data source). Not closed by the assigner. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.jdbcUrl = null;
      return this;
    }

    /** A JDBC URL opened through {@link DriverManager}, one connection per lease operation. */
    public Builder jdbcUrl(String jdbcUrl, @Nullable String username, @Nullable String password) {
      this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      this.username = username;
      this.password = password;
      this.dataSource = null;
      return this;
    }

    /** The lease table ({@code [schema.]name}). Default {@code gene_id_worker_lease}. */
    public Builder table(String table) {
      this.table = checkTable(table);
      return this;
    }

    /** Whether to run {@link #ddl(String)} when the table does not exist. Default false. */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /** The holder column holds 1 to 255 characters. */
    @Override
    protected String checkOwner(String owner) {
      if (owner.isEmpty() || owner.length() > 255) {
        throw new IllegalArgumentException("owner must be 1 to 255 characters but was '" + owner + "'");
      }
      return owner;
    }

    public JdbcWorkerIdAssigner build() {
      WorkerIdAssigners.LeaseSettings lease = leaseSettings();
      if (dataSource != null) {
        DataSource ds = dataSource;
        return new JdbcWorkerIdAssigner(this, lease, ds::getConnection, "database " + ds + " (table " + table + ")");
      }
      if (jdbcUrl == null) {
        throw new IllegalArgumentException("a DataSource or a JDBC URL (jdbc-url) is required");
      }
      String url = jdbcUrl;
      String user = username;
      String pass = password;
      String shown = url.replaceAll("(?i)(password=)[^&;]*", "$1***");
      return new JdbcWorkerIdAssigner(this, lease, () -> DriverManager.getConnection(url, user, pass),
          "database " + shown + " (table " + table + ")");
    }
  }
}
