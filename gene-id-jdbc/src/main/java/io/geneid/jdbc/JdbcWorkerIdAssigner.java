package io.geneid.jdbc;

import io.geneid.core.internal.Checks;
import io.geneid.core.GeneIdException;
import io.geneid.core.lease.LeaseAssignerBuilder;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
import java.security.SecureRandom;
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
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker-id leases in a table of any relational database reachable through JDBC: MariaDB/MySQL, PostgreSQL and H2
 * run the same statements.
 *
 * <h2>Table</h2>
 * One row per worker id ever used in a pool, plus one row per pool, created by {@link #ddl(String)} (run it
 * yourself, or let {@link Builder#createTable(boolean)} do it):
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
 * never the client's. The row {@code worker_id = -1} of a space is the pool's own: {@code high_water_mark} holds
 * the highest worker id ever granted, {@code version} the identity of the database it was last used on (see below),
 * {@code expires_at} the time before which no never-used worker id is granted. Tables of earlier versions keep
 * working unchanged (their version numbers are accepted once, then replaced by random tokens).
 *
 * <p>Every statement runs in auto-commit (PostgreSQL and H2 freeze {@code CURRENT_TIMESTAMP} inside a transaction)
 * and READ COMMITTED (so a lost race is an update of no row, not a serialization error), with a query timeout
 * ({@link Builder#statementTimeout(Duration)}). Connections come from the {@link DataSource}, or
 * are opened per operation through {@link DriverManager} within the statement timeout, with a network timeout on
 * the socket. Keep the table on a plain data source, not behind ShardingSphere.
 *
 * <h2>Fault model (what keeps ids unique when the database misbehaves)</h2>
 * <ul>
 *   <li><b>It goes back in time</b> (restore from a backup, failover to an asynchronous replica): rows come back
 *       older than what holders saw, but tokens are random, so a holder's token is never handed to another holder:
 *       a holder whose row was rolled back fails its next renewal ({@link WorkerLeaseLostException}) and fences
 *       itself. Where the database can tell that it is another server or timeline (PostgreSQL's
 *       {@code pg_control_system()} system identifier and the timeline of {@code pg_control_checkpoint()}, when the
 *       user may read them; MariaDB/MySQL's {@code @@server_id}), and that the lease table was created again (a dump
 *       restored into the same server drops and creates it: PostgreSQL gives it a new OID, MariaDB a new creation
 *       time), the pool row records that identity; a change is logged at WARN and puts every worker id of the space under the unknown-history rule below (rows and
 *       never-used ids alike), while holders whose rows survived keep renewing.
 *   <li><b>It loses a row</b> (an operator's {@code DELETE}, a partial restore): a worker id without a row at or
 *       below the highest id the pool row says was ever granted has an unknown history. The assigner writes a
 *       tombstone row ({@code holder = '(unknown history)'}) that expires one TTL plus the borrowing slack plus 2 s
 *       later, and grants the id only then, with a previous mark of at least database now + borrowing slack: any
 *       earlier holder has fenced itself by then (its renewals fail against the tombstone's token) and every id it
 *       may have issued lies below the new holder's first one.
 *   <li><b>It goes silent</b> (packets dropped, no reset): every statement has a query timeout, every connection the
 *       assigner touches a network timeout, and opening a connection is bounded, so each call fails within about
 *       two statement timeouts with a {@link GeneIdException} naming the store; the generator's own lease clock
 *       fences it before its lease could have passed to someone else.
 * </ul>
 * Every grant of a released or expired row starts above the mark its previous holder recorded (a holder never
 * issues above its recorded mark); grants of unknown history start above {@code max(recorded mark, database now +
 * borrowSlack)}.
 *
 * <p>Residual risks, stated plainly: a restore or failover that the database does not reveal (a logical restore
 * into the same server; MariaDB without distinct server ids; a user who may not read {@code pg_control_*}), and
 * that also rolled back the pool row, makes worker ids granted after the backup look never used; and a holder
 * whose row was rolled back keeps issuing until its next renewal (at most a third of the TTL) while a new holder
 * may already have the id. Prefer synchronous replication for the lease table; after restoring a backup by hand,
 * stop every process of the pool for one TTL plus {@code maxBorrowMillis} plus 2 s before starting any again (or
 * delete the restored pool row: the rows that survive then fix the highest id granted). Processes that share a
 * space should use the same worker-id range: an id below the highest one granted that has no row is treated as
 * lost, so a narrower range in the same space waits out the unknown-history delay once for ids it never used.
 */
public final class JdbcWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcWorkerIdAssigner.class);

  /** Default table name. */
  public static final String DEFAULT_TABLE = "gene_id_worker_lease";
  /** Longest {@link Builder#statementTimeout(Duration)} the default takes (TTL / 3, within [1 s, 5 s]). */
  public static final Duration MAX_DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  /** The worker id of a space's pool row. */
  static final int POOL_ROW = -1;
  /** The holder of a tombstone: a worker id whose row was lost. */
  static final String UNKNOWN_HISTORY = "(unknown history)";
  private static final String POOL_HOLDER = "(pool: highest worker id granted, database identity)";
  /** Margin for clock skew between the database and a holder, on top of TTL and borrowing slack. */
  private static final long SKEW_MARGIN_MILLIS = 2_000;

  private static final SecureRandom TOKENS = new SecureRandom();

  private final ConnectionSource connections;
  private final boolean pooled;
  private final String table;
  private final boolean createTable;
  private final String space;
  private final long minWorkerId;
  private final long maxWorkerId;
  private final Duration ttl;
  private final Duration acquireTimeout;
  private final Duration statementTimeout;
  private final String owner;
  private volatile String description;
  private final boolean describeFromConnection;
  private final Object setupLock = new Object();
  private volatile JdbcSession.@Nullable Dialect dialect;
  /** False once the database refused to tell its identity (no privilege): not asked again. */
  private volatile boolean identityReadable = true;

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
    this.acquireTimeout = lease.acquireTimeout();
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
    return JdbcSession.checkTable("jdbc-table", table);
  }

  /** A random non-zero fencing token. */
  static long newToken() {
    long t;
    do {
      t = TOKENS.nextLong();
    } while (t == 0);
    return t;
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

  /** The query timeout of every statement. */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    Objects.requireNonNull(borrowSlack, "borrowSlack");
    long[] range = WorkerIdAssigners.poolRange(space, minWorkerId, maxWorkerId, layoutMaxWorkerId);
    long slack = Math.max(0, borrowSlack.toMillis());
    long deadline = System.nanoTime() + acquireTimeout.toNanos();
    boolean told = false;
    for (;;) {
      List<String> holders = new ArrayList<>();
      long[] quietFor = {0};
      WorkerLease lease = sql("acquire", s -> tryAcquire(s, range[0], range[1], slack, holders, quietFor));
      if (lease != null) {
        LOG.debug("leased worker id {} of space '{}' from {} until {} (database time)", lease.workerId(), space,
            description, lease.expiresAt());
        return lease;
      }
      if (quietFor[0] > 0) {
        // a pool of unknown history (new, or restored from a copy that did not have it) becomes usable when any
        // earlier holder must have stopped: wait for that rather than fail, as the Redis store does
        deadline = Math.max(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(quietFor[0] + 50));
        if (!told) {
          told = true;
          LOG.info("worker ids of space '{}' in {} have no known history (a new space, or the table was restored or "
              + "failed over): the first is granted in {} ms, one TTL ({}) + {} ms borrowing + {} ms clock margin, "
              + "when any earlier holder must have stopped; waiting", space, description, quietFor[0], ttl, slack,
              SKEW_MARGIN_MILLIS);
        }
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new WorkerIdExhaustedException(space, range[0], range[1], holders, " in " + description
            + " after waiting " + acquireTimeout.toMillis() + " ms");
      }
      WorkerIdAssigners.pauseBeforeRetry(space, ttl, remaining);
    }
  }

  /** The pool row of the space: highest worker id granted, database identity, no first grant before. */
  private record Pool(long highest, long identity, long quietUntil) {}

  private @Nullable WorkerLease tryAcquire(JdbcSession s, long lo, long hi, long slack, List<String> holders,
      long[] quietFor) throws SQLException {
    String now = now(s);
    long dbNow = queryLong(s, "SELECT " + now);
    long unknownFor = ttl.toMillis() + slack + SKEW_MARGIN_MILLIS;
    long identity = identity(s);
    Pool pool = pool(s, now, unknownFor, identity);
    // rows of the pool, least recently used first
    Map<Long, Row> rows = new LinkedHashMap<>();
    try (PreparedStatement ps = s.prepare("SELECT worker_id, holder, version, expires_at FROM " + table
        + " WHERE space_name = ? AND worker_id BETWEEN ? AND ? ORDER BY expires_at, worker_id")) {
      ps.setString(1, space);
      ps.setLong(2, lo);
      ps.setLong(3, hi);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.put(rs.getLong(1), new Row(rs.getString(2), rs.getLong(3), rs.getLong(4)));
        }
      }
    }
    if (identity(s) != identity) {
      // the table was restored (or the database failed over) between reading the identity and the rows: the rows
      // may be the restored ones, not yet put under the unknown-history rule; read everything again
      holders.add("the lease table changed while it was read (restored or failed over): reading it again");
      return null;
    }
    long highestRow = rows.isEmpty() ? -1 : rows.keySet().stream().mapToLong(Long::longValue).max().getAsLong();
    if (highestRow > pool.highest()) {
      raiseHighest(s, highestRow); // a grant whose process died before it raised the pool row
    }
    // 1. worker ids granted before but without a row: unknown history, granted only after a tombstone expired
    long top = Math.min(hi, pool.highest());
    if (top >= lo && rows.keySet().stream().filter(id -> id <= top).count() < top - lo + 1) {
      for (long id = lo; id <= top; id++) {
        if (!rows.containsKey(id) && tombstone(s, now, id, unknownFor)) {
          rows.put(id, new Row(UNKNOWN_HISTORY, 0, dbNow + unknownFor));
        }
      }
    }
    // 2. worker ids never granted: least recently used of all, unless the pool's history is in doubt
    if (dbNow >= pool.quietUntil()) {
      long highest = pool.highest();
      for (long attempts = 0; attempts <= hi - lo; attempts++) {
        long candidate = Math.max(lo, highest + 1);
        while (candidate <= hi && rows.containsKey(candidate)) {
          candidate++;
        }
        if (candidate > hi) {
          break;
        }
        long token = newToken();
        if (firstGrant(s, now, candidate, token)) {
          return readBack(s, candidate, token);
        }
        highest = Math.max(candidate, Objects.requireNonNull(queryPool(s), "pool row").highest()); // lost a race
      }
    } else {
      holders.add("worker ids never granted: unknown history until " + Instant.ofEpochMilli(pool.quietUntil()));
      quietFor[0] = pool.quietUntil() - dbNow;
    }
    // 3. expired or released rows, least recently used first: compare-and-set on version and expiry
    for (Map.Entry<Long, Row> e : rows.entrySet()) {
      Row row = e.getValue();
      if (row.expiresAt() >= dbNow) {
        continue;
      }
      boolean unknown = UNKNOWN_HISTORY.equals(row.holder());
      long token = newToken();
      try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET "
          + (unknown ? "high_water_mark = GREATEST(high_water_mark, " + now + " + ?)" : "high_water_mark = "
          + "high_water_mark + ?") + ", holder = ?, version = ?, expires_at = " + now + " + ? WHERE space_name = ? "
          + "AND worker_id = ? AND version = ? AND expires_at < " + now)) {
        ps.setLong(1, unknown ? slack : 0);
        ps.setString(2, owner);
        ps.setLong(3, token);
        ps.setLong(4, ttl.toMillis());
        ps.setString(5, space);
        ps.setLong(6, e.getKey());
        ps.setLong(7, row.token());
        if (ps.executeUpdate() == 1) {
          return readBack(s, e.getKey(), token);
        }
      }
    }
    for (Map.Entry<Long, Row> e : rows.entrySet()) {
      if (e.getValue().expiresAt() >= dbNow) {
        holders.add(e.getKey() + " by " + e.getValue().holder() + " until "
            + Instant.ofEpochMilli(e.getValue().expiresAt()));
      }
    }
    holders.sort(null);
    return null;
  }

  private record Row(String holder, long token, long expiresAt) {}

  /**
   * The pool row, created if missing (its highest id then taken from the rows that exist). A database identity
   * ({@code identity}, read just before) that differs from the recorded one puts every worker id of the space under
   * the unknown-history rule. The caller reads the identity again after the rows it decides on: a restore between
   * the two reads makes it start over.
   */
  private Pool pool(JdbcSession s, String now, long unknownFor, long identity) throws SQLException {
    Pool pool = queryPool(s);
    if (pool == null) {
      // No pool row: a new space, or a table restored from a copy taken before the space was first used, whose
      // holders may still be issuing until their next renewal finds their row gone. The two look alike, so both are
      // unknown history: the rows that exist and the worker ids never granted wait one TTL + slack + margin.
      try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET expires_at = GREATEST(expires_at, " + now
          + " + ?) WHERE space_name = ? AND worker_id >= 0")) {
        ps.setLong(1, unknownFor);
        ps.setString(2, space);
        ps.executeUpdate();
      }
      long highest;
      try (PreparedStatement ps = s.prepare("SELECT COALESCE(MAX(worker_id), -1) FROM " + table
          + " WHERE space_name = ?")) {
        ps.setString(1, space);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          highest = rs.getLong(1);
        }
      }
      try (PreparedStatement ps = s.prepare("INSERT INTO " + table + " (space_name, worker_id, holder, version, "
          + "expires_at, high_water_mark) VALUES (?, " + POOL_ROW + ", ?, ?, " + now + " + ?, ?)")) {
        ps.setString(1, space);
        ps.setString(2, POOL_HOLDER);
        ps.setLong(3, identity);
        ps.setLong(4, unknownFor);
        ps.setLong(5, highest);
        ps.executeUpdate();
      } catch (SQLException e) {
        if (!JdbcSession.isDuplicate(e)) {
          throw e;
        }
      }
      pool = Objects.requireNonNull(queryPool(s), "pool row");
    }
    if (identity != 0 && pool.identity() != identity) {
      if (pool.identity() != 0) {
        try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET expires_at = GREATEST(expires_at, " + now
            + " + ?) WHERE space_name = ? AND worker_id >= 0")) {
          ps.setLong(1, unknownFor);
          ps.setString(2, space);
          ps.executeUpdate();
        }
      }
      try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET version = ?, expires_at = "
          + (pool.identity() != 0 ? "GREATEST(expires_at, " + now + " + ?)" : "expires_at + ?")
          + " WHERE space_name = ? AND worker_id = " + POOL_ROW + " AND version = ?")) {
        ps.setLong(1, identity);
        ps.setLong(2, pool.identity() != 0 ? unknownFor : 0);
        ps.setString(3, space);
        ps.setLong(4, pool.identity());
        if (ps.executeUpdate() == 1 && pool.identity() != 0) {
          LOG.warn("the lease store {} is now database {} but space '{}' was last used on database {}: it failed "
              + "over or was restored, so every worker id of the space has an unknown history and is granted "
              + "only after {} ms", description, Long.toHexString(identity), space,
              Long.toHexString(pool.identity()), unknownFor);
        }
      }
      pool = Objects.requireNonNull(queryPool(s), "pool row");
    }
    return pool;
  }

  private @Nullable Pool queryPool(JdbcSession s) throws SQLException {
    try (PreparedStatement ps = s.prepare("SELECT high_water_mark, version, expires_at FROM " + table
        + " WHERE space_name = ? AND worker_id = " + POOL_ROW)) {
      ps.setString(1, space);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Pool(rs.getLong(1), rs.getLong(2), rs.getLong(3)) : null;
      }
    }
  }

  /**
   * The first grant of a worker id: its row first, then the pool's highest id. Readers read the pool row before the
   * lease rows, so they never see the raised highest id without the row; a process that dies between the two
   * statements leaves the pool row behind, which the next acquire repairs from the rows it reads.
   */
  private boolean firstGrant(JdbcSession s, String now, long id, long token) throws SQLException {
    try (PreparedStatement ps = s.prepare("INSERT INTO " + table + " (space_name, worker_id, holder, version, "
        + "expires_at, high_water_mark) VALUES (?, ?, ?, ?, " + now + " + ?, 0)")) {
      ps.setString(1, space);
      ps.setLong(2, id);
      ps.setString(3, owner);
      ps.setLong(4, token);
      ps.setLong(5, ttl.toMillis());
      ps.executeUpdate();
    } catch (SQLException e) {
      if (JdbcSession.isDuplicate(e)) {
        return false; // another process granted this worker id first
      }
      throw e;
    }
    raiseHighest(s, id);
    return true;
  }

  private void raiseHighest(JdbcSession s, long id) throws SQLException {
    try (PreparedStatement ps = s.prepare("UPDATE " + table + " SET high_water_mark = GREATEST(high_water_mark, ?) "
        + "WHERE space_name = ? AND worker_id = " + POOL_ROW + " AND high_water_mark < ?")) {
      ps.setLong(1, id);
      ps.setString(2, space);
      ps.setLong(3, id);
      ps.executeUpdate();
    }
  }

  /** Writes a tombstone for a worker id whose row is missing; false if a row appeared meanwhile. */
  private boolean tombstone(JdbcSession s, String now, long id, long unknownFor) throws SQLException {
    try (PreparedStatement ps = s.prepare("INSERT INTO " + table + " (space_name, worker_id, holder, version, "
        + "expires_at, high_water_mark) VALUES (?, ?, ?, ?, " + now + " + ?, 0)")) {
      ps.setString(1, space);
      ps.setLong(2, id);
      ps.setString(3, UNKNOWN_HISTORY);
      ps.setLong(4, newToken());
      ps.setLong(5, unknownFor);
      ps.executeUpdate();
    } catch (SQLException e) {
      if (JdbcSession.isDuplicate(e)) {
        return false;
      }
      throw e;
    }
    LOG.warn("worker id {} of space '{}' has no row in {} although the pool granted it before: its history is "
        + "unknown, so it is granted only after {} ms (TTL + borrowing slack + 2 s)", id, space, description,
        unknownFor);
    return true;
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
        ps.setLong(1, newToken());
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

  /**
   * The identity of the database server (and timeline) answering and of the lease table itself, or 0 where it cannot
   * tell: a change means a failover, or a restore (a dump restored into the same server drops and creates the table
   * again, which gives it a new PostgreSQL OID or MariaDB creation time).
   */
  private long identity(JdbcSession s) throws SQLException {
    JdbcSession.Dialect d = dialect;
    if (!identityReadable || d == null || d == JdbcSession.Dialect.STANDARD) {
      return 0;
    }
    boolean postgres = d == JdbcSession.Dialect.POSTGRESQL;
    String server = postgres
        ? "SELECT s.system_identifier, c.timeline_id FROM pg_control_system() s, pg_control_checkpoint() c"
        : "SELECT @@server_id, 0";
    int dot = table.indexOf('.');
    String tableSql = postgres
        ? "SELECT CAST(to_regclass(?) AS oid), 0"
        : "SELECT UNIX_TIMESTAMP(CREATE_TIME), 0 FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
            + (dot < 0 ? "DATABASE()" : "?") + " AND TABLE_NAME = ?";
    try {
      long h = 0;
      try (Statement st = s.statement(); ResultSet rs = st.executeQuery(server)) {
        rs.next();
        h = mix(h, rs.getLong(1), rs.getLong(2));
      }
      try (PreparedStatement ps = s.prepare(tableSql)) {
        if (postgres) {
          ps.setString(1, table);
        } else if (dot < 0) {
          ps.setString(1, table);
        } else {
          ps.setString(1, table.substring(0, dot));
          ps.setString(2, table.substring(dot + 1));
        }
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            h = mix(h, rs.getLong(1), 0);
          }
        }
      }
      return h == 0 ? 1 : h;
    } catch (SQLException e) {
      if (!refusesIdentity(e)) {
        // a reset connection or a timeout says nothing about the database: fail this call, ask again on the next
        // (turning the check off here hid a later restore, and worker ids were granted twice)
        throw e;
      }
      identityReadable = false;
      LOG.info("the lease store {} does not reveal its identity ({}): a failover or restore is noticed only "
          + "through lost rows and tokens", description, e.getMessage());
      return 0;
    }
  }

  /**
   * Whether {@code e} says the identity queries are not allowed or not supported here, for good: SQLState class
   * {@code 42} (a function or view missing or not permitted: PostgreSQL {@code 42501}, {@code 42883}, MariaDB/MySQL
   * {@code 42000}) or {@code 0A} (feature not supported). Anything else (class {@code 08} connection errors,
   * timeouts) is transient.
   */
  static boolean refusesIdentity(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.startsWith("42") || state.startsWith("0A"));
  }

  private static long mix(long h, long a, long b) {
    long x = (h ^ a) * 0x9E3779B97F4A7C15L + b;
    return x ^ (x >>> 31);
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
      this.statementTimeout = Checks.duration("jdbc-statement-timeout",
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
