package io.geneid.jdbc;

import io.geneid.core.internal.Checks;
import io.geneid.core.GeneIdException;
import io.geneid.core.lease.LeaseAssignerBuilder;
import io.geneid.core.lease.LeaseLoop;
import io.geneid.core.lease.LeasePlanner;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
import io.geneid.core.settings.StoreKeys;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * {@code version} is the fencing token: a random non-zero 64-bit number drawn by the client for every grant
 * (acquire, release), never a counter kept in the table, so it does not repeat across the table's history, even
 * after the database is restored from a backup. Acquire and release change it by compare-and-set
 * ({@code UPDATE ... WHERE version = ?}); renewals require it unchanged. {@code expires_at} and
 * {@code high_water_mark} are milliseconds since 1970; expiries come from the database's clock, in UTC whatever the
 * session time zone (MariaDB/MySQL {@code UTC_TIMESTAMP(6)}, elsewhere the epoch of {@code CURRENT_TIMESTAMP(3)}),
 * never the client's. Which worker id, and with which previous mark, the core's lease protocol decides
 * ({@code LeasePlanner}, {@code LeaseLoop}): a worker id without a row is free and granted by inserting its row (the
 * lowest such id first), before any expired or released row is taken over by compare-and-set on {@code version}
 * (the least recently used first, its mark raised to the database's now + the borrowing bound unless it was
 * released with its exact mark). Tables of earlier
 * versions keep working unchanged: their pool rows ({@code worker_id = -1}) and tombstones are no longer read or
 * written.
 *
 * <p>Every statement runs in auto-commit (PostgreSQL and H2 freeze {@code CURRENT_TIMESTAMP} inside a transaction)
 * and READ COMMITTED (so a lost race is an update of no row, not a serialization error), with a query timeout
 * ({@link Builder#statementTimeout(Duration)}). Connections come from the {@link DataSource}, or
 * are opened per operation through {@link DriverManager} within the statement timeout, with a network timeout on
 * the socket. Keep the table on a plain data source, not behind ShardingSphere.
 *
 * <h2>Fault model (what keeps ids unique when the database misbehaves)</h2>
 * <ul>
 *   <li><b>It goes back in time, and cannot tell</b> (a restore from a backup or from a copy of its data directory,
 *       a failover to an asynchronous standby that missed the last commits, a {@code DELETE} or {@code TRUNCATE} and
 *       reload, a lost row): rows come back older than what holders saw, or not at all. Tokens are random, so a
 *       holder's token is never handed to another holder: a holder whose row was rolled back fails its next renewal
 *       ({@link WorkerLeaseLostException}) and fences itself. Until then it may still issue ids, and a database
 *       cannot reveal every such rollback (a standby promoted before its first checkpoint still reports the old
 *       timeline; a table's creation time changes on {@code OPTIMIZE} but not on {@code TRUNCATE}), so this store
 *       does not vouch for its history ({@link #vouchesForHistory()} is false): the lease protocol lets the holder of
 *       every new lease issue only above the lease's expiry plus {@code maxBorrowMillis} plus
 *       {@link WorkerIdAssigner#HISTORY_MARGIN} (2 s), renewing meanwhile. By then any
 *       holder the table forgot has fenced itself (its lease ran out no later than one TTL after the grant) and every
 *       id it may have issued lies below the new holder's first one. The cost: a generator's first id comes one TTL
 *       + {@code maxBorrowMillis} + 2 s after its lease was granted (32 s with the defaults), at every start.
 *   <li><b>It goes silent</b> (packets dropped, no reset): every statement has a query timeout, every connection the
 *       assigner touches a network timeout, and opening a connection is bounded, so each call fails within about
 *       two statement timeouts with a {@link GeneIdException} naming the store; the generator's own lease clock
 *       fences it before its lease could have passed to someone else.
 * </ul>
 * Every grant of a released or expired row starts above the mark its previous holder recorded (a holder never
 * issues above its recorded mark).
 *
 * <p>Outside the model, stated plainly: two databases taking writes at once (an old primary still reachable by
 * some holders after a standby was promoted) let those holders renew against the old one for as long as it runs;
 * fence the old primary before clients reach the new one, as for any data. Processes that share a space should run
 * versions that all wait as above: an earlier version trusts the table's history.
 */
public final class JdbcWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcWorkerIdAssigner.class);

  /** Default table name. */
  public static final String DEFAULT_TABLE = "gene_id_worker_lease";
  /** Longest {@link Builder#statementTimeout(Duration)} the default takes (TTL / 3, within [1 s, 5 s]). */
  public static final Duration MAX_DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  private final ConnectionSource connections;
  private final boolean pooled;
  private final String table;
  private final boolean createTable;
  private final String space;
  private final long minWorkerId;
  private final long maxWorkerId;
  private final Duration ttl;
  private final LeaseLoop loop;
  private final Duration statementTimeout;
  private final String owner;
  private volatile String description;
  private final boolean describeFromConnection;
  private final Object setupLock = new Object();
  private volatile JdbcSession.@Nullable Dialect dialect;

  /** Where connections come from: a {@link DataSource} or {@link DriverManager}. */
  @FunctionalInterface
  private interface ConnectionSource {
    Connection get() throws SQLException;
  }

  private JdbcWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease, ConnectionSource connections,
      boolean pooled, String description, boolean describeFromConnection) {
    this.connections = connections;
    this.pooled = pooled;
    this.table = b.table;
    this.createTable = b.createTable;
    this.space = lease.space();
    this.minWorkerId = lease.minWorkerId();
    this.maxWorkerId = lease.maxWorkerId();
    this.ttl = lease.ttl();
    this.loop = new LeaseLoop(lease, () -> description);
    this.statementTimeout = b.statementTimeout != null ? b.statementTimeout : defaultStatementTimeout(ttl);
    this.owner = lease.owner();
    this.description = description;
    this.describeFromConnection = describeFromConnection;
  }

  /** TTL / 3 within [1 s, 5 s]: a renewal that hangs fails while the lease still has two thirds of its time. */
  static Duration defaultStatementTimeout(Duration ttl) {
    Duration third = ttl.dividedBy(3);
    if (third.compareTo(Duration.ofSeconds(1)) < 0) {
      return Duration.ofSeconds(1);
    }
    return third.compareTo(MAX_DEFAULT_STATEMENT_TIMEOUT) > 0 ? MAX_DEFAULT_STATEMENT_TIMEOUT : third;
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
    return JdbcSession.checkTable(StoreKeys.JDBC_TABLE, table);
  }


  @Override
  public String space() {
    return space;
  }

  @Override
  public Duration ttl() {
    return ttl;
  }

  /**
   * False: a database can lose committed rows without showing it (see the class comment), so the lease protocol makes
   * every new holder wait out the holders the table may have forgotten.
   */
  @Override
  public boolean vouchesForHistory() {
    return false;
  }

  /** The lease table. */
  public String table() {
    return table;
  }

  /** The query timeout of every statement. */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    WorkerLease lease = loop.acquire(layoutMaxWorkerId, borrowSlack,
        (lo, hi, slack) -> sql("acquire", s -> attempt(s, lo, hi, slack)));
    LOG.debug("leased worker id {} of space '{}' from {} until {} (database time)", lease.workerId(), space,
        description, lease.expiresAt());
    return lease;
  }

  /**
   * One try: the pool's rows read into the lease protocol's slots (a row is both record and claim; a released row,
   * {@code holder = ''}, has no claim), and the planner's candidates granted by compare-and-set on {@code version}
   * (an update of a row unchanged since it was read) or, for a worker id without a row, by inserting it.
   */
  private LeaseLoop.Attempt attempt(JdbcSession s, long lo, long hi, long slack) throws SQLException {
    String now = now(s);
    long dbNow = queryLong(s, "SELECT " + now);
    // rows of other ranges and the pool row of earlier versions (worker_id = -1) are outside [lo, hi]
    List<LeasePlanner.Slot> slots = new ArrayList<>();
    Map<Long, Long> tokens = new HashMap<>();
    try (PreparedStatement ps = s.prepare("SELECT worker_id, holder, version, expires_at, high_water_mark FROM "
        + table + " WHERE space_name = ? AND worker_id BETWEEN ? AND ?")) {
      ps.setString(1, space);
      ps.setLong(2, lo);
      ps.setLong(3, hi);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long id = rs.getLong(1);
          String holder = rs.getString(2);
          long expiresAt = rs.getLong(4);
          tokens.put(id, rs.getLong(3));
          slots.add(new LeasePlanner.Slot(id, new LeasePlanner.Mark(rs.getLong(5), holder.isEmpty(), expiresAt),
              holder.isEmpty() ? null : new LeasePlanner.Claim(holder, expiresAt)));
        }
      }
    }
    LeasePlanner.Plan plan = LeasePlanner.plan(lo, hi, dbNow, slack, slots);
    for (LeasePlanner.Candidate c : plan.candidates()) {
      long token = LeaseLoop.newToken();
      if (c.fresh() ? firstGrant(s, now, c.workerId(), token)
          : takeOver(s, now, c.workerId(), tokens.get(c.workerId()), token, c.previousMark())) {
        return LeaseLoop.Attempt.granted(readBack(s, c.workerId(), token));
      }
    }
    List<String> holders = new ArrayList<>();
    for (LeasePlanner.Slot h : plan.holders()) {
      LeasePlanner.Claim claim = Objects.requireNonNull(h.claim());
      holders.add(h.workerId() + " by " + claim.owner() + " until " + Instant.ofEpochMilli(claim.expiresAt()));
    }
    return LeaseLoop.Attempt.busy(() -> holders, !plan.candidates().isEmpty());
  }

  /** Grants a released or expired row: false if it changed since it was read (another process took it first). */
  private boolean takeOver(JdbcSession s, String now, long id, long readToken, long token, long previousMark)
      throws SQLException {
    try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET holder = ?, version = ?, expires_at = " + now
        + " + ?, high_water_mark = ? WHERE space_name = ? AND worker_id = ? AND version = ?")) {
      ps.setString(1, owner);
      ps.setLong(2, token);
      ps.setLong(3, ttl.toMillis());
      ps.setLong(4, previousMark);
      ps.setString(5, space);
      ps.setLong(6, id);
      ps.setLong(7, readToken);
      return ps.executeUpdate() == 1;
    }
  }

  /** The first grant of a worker id: false if another process inserted its row first. */
  private boolean firstGrant(JdbcSession s, String now, long id, long token) throws SQLException {
    try (PreparedStatement ps = s.prepare("INSERT INTO " + table + " (space_name, worker_id, holder, version, "
        + "expires_at, high_water_mark) VALUES (?, ?, ?, ?, " + now + " + ?, 0)")) {
      ps.setString(1, space);
      ps.setLong(2, id);
      ps.setString(3, owner);
      ps.setLong(4, token);
      ps.setLong(5, ttl.toMillis());
      ps.executeUpdate();
      return true;
    } catch (SQLException e) {
      if (JdbcSession.isDuplicate(e)) {
        return false;
      }
      throw e;
    }
  }

  private WorkerLease readBack(JdbcSession s, long id, long token) throws SQLException {
    try (PreparedStatement ps = s.prepare("SELECT high_water_mark, expires_at FROM " + table
        + " WHERE space_name = ? AND worker_id = ? AND version = ?")) {
      ps.setString(1, space);
      ps.setLong(2, id);
      ps.setLong(3, token);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new WorkerLeaseLostException(space, id, "worker id " + id + " of space '" + space
              + "' changed hands right after it was leased under token " + token, null);
        }
        Instant mark = Instant.ofEpochMilli(rs.getLong(1));
        return new WorkerLease(space, id, token, owner, mark, mark, Instant.ofEpochMilli(rs.getLong(2)));
      }
    }
  }

  @Override
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    return sql("renew", s -> {
      String now = now(s);
      try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET expires_at = " + now + " + ?, "
          + "high_water_mark = GREATEST(high_water_mark, ?) WHERE space_name = ? AND worker_id = ? AND version = ?")) {
        ps.setLong(1, ttl.toMillis());
        ps.setLong(2, highWaterMark.toEpochMilli());
        ps.setString(3, space);
        ps.setLong(4, lease.workerId());
        ps.setLong(5, lease.token());
        if (ps.executeUpdate() == 1) {
          WorkerLease now2 = readBack(s, lease.workerId(), lease.token());
          return lease.renewed(now2.highWaterMark(), now2.expiresAt());
        }
      }
      throw new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId() + " of space '"
          + space + "' is no longer leased under token " + lease.token() + " in " + description + ": "
          + currentHolder(s, lease.workerId()), null);
    });
  }

  private String currentHolder(JdbcSession s, long id) throws SQLException {
    try (PreparedStatement ps = s.prepare("SELECT holder, version FROM " + table
        + " WHERE space_name = ? AND worker_id = ?")) {
      ps.setString(1, space);
      ps.setLong(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return "its row is gone";
        }
        String holder = rs.getString(1);
        return holder.isEmpty() ? "it was released (token " + rs.getLong(2) + ")"
            : "it was taken over by " + holder + " (token " + rs.getLong(2) + ")";
      }
    }
  }

  @Override
  public void release(WorkerLease lease, Instant highWaterMark) {
    int updated = sql("release", s -> {
      String now = now(s);
      try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET holder = '', version = ?, "
          + "expires_at = " + now + ", high_water_mark = ? WHERE space_name = ? AND worker_id = ? AND version = ?")) {
        ps.setLong(1, LeaseLoop.newToken());
        ps.setLong(2, highWaterMark.toEpochMilli());
        ps.setString(3, space);
        ps.setLong(4, lease.workerId());
        ps.setLong(5, lease.token());
        return ps.executeUpdate();
      }
    });
    if (updated == 1) {
      LOG.debug("released worker id {} of space '{}' in {} with high-water mark {}", lease.workerId(), space,
          description, highWaterMark);
    } else {
      LOG.warn("worker id {} of space '{}' was not released in {}: it is no longer leased under token {}",
          lease.workerId(), space, description, lease.token());
    }
  }

  private long queryLong(JdbcSession s, String sql) throws SQLException {
    try (Statement st = s.statement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The database's "now in UTC epoch ms" expression; creates the table first if asked to. */
  private String now(JdbcSession s) throws SQLException {
    JdbcSession.Dialect d = dialect;
    if (d != null) {
      return d.nowMillis;
    }
    synchronized (setupLock) {
      if (dialect == null) {
        Connection c = s.connection();
        JdbcSession.Dialect found = JdbcSession.Dialect.of(c);
        if (describeFromConnection) {
          description = "database " + JdbcSession.describeUrl(c.getMetaData().getURL()) + " (table " + table + ")";
        }
        if (createTable && !s.tableExists(table)) {
          try (Statement st = s.statement()) {
            st.execute(ddl(table));
            LOG.info("created the worker-id lease table in {}", description); // the description names the table
          } catch (SQLException e) {
            if (!s.tableExists(table)) { // another process may have created it meanwhile
              throw e;
            }
          }
        }
        dialect = found;
      }
      return dialect.nowMillis;
    }
  }

  private <T> T sql(String operation, JdbcSession.SqlWork<T> work) {
    try (JdbcSession s = JdbcSession.open(connections.get(), statementTimeout, pooled)) {
      return work.run(s);
    } catch (SQLException e) {
      throw new GeneIdException("the worker-id lease store, " + description + ", failed on " + operation
          + " for space '" + space + "': " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
  }

  @Override
  public String store() {
    return description;
  }

  @Override
  public String toString() {
    return "JdbcWorkerIdAssigner[space=" + space + ", pool=[" + minWorkerId + ", "
        + (maxWorkerId == Integer.MAX_VALUE ? "layout max" : maxWorkerId) + "], ttl=" + ttl + ", " + description
        + "]";
  }

  /**
   * Configuration of a {@link JdbcWorkerIdAssigner}: the connections, the table and the statement timeout here, the
   * pool's settings ({@code space}, {@code workerIds}, {@code ttl}, {@code acquireTimeout}, {@code owner}) in
   * {@link LeaseAssignerBuilder}.
   */
  public static final class Builder extends LeaseAssignerBuilder<Builder> {
    @Nullable DataSource dataSource;
    @Nullable String jdbcUrl;
    @Nullable String username;
    @Nullable String password;
    String table = DEFAULT_TABLE;
    boolean createTable;
    @Nullable Duration statementTimeout;

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

    /**
     * The query timeout of every statement, in whole seconds (rounded up), in [1 s, 1 h]; also bounds opening a
     * connection and, one second later, a silent socket. Default TTL / 3 within [1 s, 5 s].
     */
    public Builder statementTimeout(Duration statementTimeout) {
      this.statementTimeout = Checks.duration(StoreKeys.JDBC_STATEMENT_TIMEOUT,
          Objects.requireNonNull(statementTimeout, "statementTimeout"), Duration.ofSeconds(1), Duration.ofHours(1));
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
        return new JdbcWorkerIdAssigner(this, lease, ds::getConnection, true,
            "database " + ds.getClass().getSimpleName() + " (table " + table + ")", true);
      }
      if (jdbcUrl == null) {
        throw new IllegalArgumentException("a DataSource or a JDBC URL (jdbc-url) is required");
      }
      String url = jdbcUrl;
      String user = username;
      String pass = password;
      Duration connectTimeout = statementTimeout != null ? statementTimeout
          : defaultStatementTimeout(lease.ttl());
      return new JdbcWorkerIdAssigner(this, lease, () -> JdbcSession.connect(url, user, pass, connectTimeout), false,
          "database " + JdbcSession.describeUrl(url) + " (table " + table + ")", false);
    }
  }
}
