package io.geneid.jdbc;

import io.geneid.core.internal.Checks;
import io.geneid.core.GeneIdException;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SegmentStore} over one table of any JDBC database; the same SQL runs unchanged on MariaDB/MySQL,
 * PostgreSQL and H2.
 *
 * <pre>{@code
 * CREATE TABLE IF NOT EXISTS gene_id_segment (
 *   biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,
 *   max_id  BIGINT       NOT NULL,
 *   step    BIGINT       NOT NULL,
 *   version BIGINT       NOT NULL
 * )
 * }</pre>
 *
 * <p>A segment of {@code step} values is claimed by compare-and-set, each statement in auto-commit:
 *
 * <pre>{@code
 * SELECT max_id FROM gene_id_segment WHERE biz_tag = ?                       -- m
 * UPDATE gene_id_segment SET max_id = max_id + ?, step = ?, version = version + 1
 *  WHERE biz_tag = ? AND max_id = ?                                          -- m; 1 row: [m + 1, m + step] is ours
 * }</pre>
 *
 * <p>An update that matches no row lost the race to another process and is retried with the new {@code max_id}, so
 * ranges handed to racing processes are disjoint. A tag without a row is inserted with {@code max_id = 0} on first
 * use; a duplicate-key error (SQLState class {@code 23}, on every database) means another process inserted it
 * first. To start a tag above existing ids, insert its row (or raise {@code max_id}) before the first use.
 *
 * <p>Every statement runs in auto-commit and READ COMMITTED whatever the pool's defaults (a PostgreSQL default of
 * REPEATABLE READ would turn a lost race into a serialization error), with a query timeout
 * ({@link Builder#statementTimeout(Duration)}, default 5 s) and, while the store uses the connection, a network
 * timeout one second longer; the connection's own settings are put back before it returns to the pool.
 *
 * <h2>Fault model</h2>
 * <ul>
 *   <li><b>It goes silent</b> (packets dropped, no reset): a claim fails within about two statement timeouts with a
 *       {@link GeneIdException}; a claim whose {@code UPDATE} committed but whose answer was lost is a gap (the range
 *       is never handed out again). {@link io.geneid.core.segment.GeneSegmentGenerator} also abandons a fetch that outlives
 *       its fetch timeout and drops its late answer.
 *   <li><b>It goes back in time</b> (restore from a backup, failover to an asynchronous replica): {@code max_id}
 *       comes back lower than ranges already handed out, and the store hands them out again; nothing inside the
 *       database shows it. A running generator refuses a segment that is not above what it has seen, which protects
 *       one process, not the fleet. So the database must not lose a committed claim: replicate synchronously to
 *       every standby a failover may promote (PostgreSQL {@code synchronous_standby_names} with
 *       {@code synchronous_commit} on or {@code remote_apply}; MariaDB/MySQL semi-synchronous replication, or a
 *       Galera cluster), and after a restore raise {@code max_id} of every tag above the highest id in use before
 *       starting processes. On PostgreSQL the first claim logs a WARN when the primary streams to a physical standby
 *       asynchronously (a read replica looks the same, so it does not refuse).
 *   <li><b>It loses a row</b>: a missing tag starts again at 1 ({@code max_id = 0}), the same as a rollback; do not
 *       delete rows of tags in use.
 * </ul>
 *
 * <p>Keep the table on a plain DataSource, not behind ShardingSphere. The store never closes the DataSource.
 */
public final class JdbcSegmentStore implements SegmentStore {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcSegmentStore.class);

  /** The default table name. */
  public static final String DEFAULT_TABLE = "gene_id_segment";
  /** Default {@link Builder#maxAttempts(int)}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 100;
  /** Default {@link Builder#statementTimeout(Duration)}. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  private final ConnectionSource connections;
  /** The JDBC URL whose secrets are scrubbed from driver messages, or null for a DataSource. */
  private final @Nullable String url;
  /** The database as {@code scheme://host:port/db} for a URL, or null for a DataSource (it does not say). */
  private final @Nullable String where;
  private final boolean createTable;
  private volatile boolean tableReady;
  private volatile boolean replicationChecked;
  private final String table;
  private final int maxAttempts;
  private final Duration statementTimeout;
  private final String selectSql;
  private final String insertSql;
  private final String updateSql;

  private JdbcSegmentStore(Builder b, ConnectionSource connections, @Nullable String url) {
    this.connections = connections;
    this.url = url;
    this.where = url == null ? null : JdbcSession.describeUrl(url);
    this.createTable = b.createTable;
    this.table = b.table;
    this.maxAttempts = b.maxAttempts;
    this.statementTimeout = b.statementTimeout;
    this.selectSql = "SELECT max_id FROM " + table + " WHERE biz_tag = ?";
    this.insertSql = "INSERT INTO " + table + " (biz_tag, max_id, step, version) VALUES (?, 0, 0, 0)";
    this.updateSql = "UPDATE " + table + " SET max_id = max_id + ?, step = ?, version = version + 1"
        + " WHERE biz_tag = ? AND max_id = ?";
  }

  /** Where connections come from: a {@link DataSource} or {@link java.sql.DriverManager}. */
  private interface ConnectionSource {
    java.sql.Connection get() throws SQLException;
  }

  /**
   * A builder; {@link Builder#dataSource(DataSource)} or {@link Builder#jdbcUrl(String, String, String)} is
   * required, as for {@link JdbcWorkerIdAssigner#builder()}.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The DDL of the segment table, the same on MariaDB/MySQL, PostgreSQL and H2.
   *
   * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier
   */
  public static String ddl(String table) {
    checkTable(table);
    return "CREATE TABLE IF NOT EXISTS " + table + " (\n"
        + "  biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,\n"
        + "  max_id  BIGINT       NOT NULL,\n"
        + "  step    BIGINT       NOT NULL,\n"
        + "  version BIGINT       NOT NULL\n"
        + ")";
  }

  /**
   * With {@link Builder#createTable(boolean)}, runs {@link #ddl(String)} once, before the first claim. Safe to run
   * from many processes at once: PostgreSQL fails some of concurrent {@code CREATE TABLE IF NOT EXISTS} with a
   * duplicate key in its catalog, and such a failure counts as success when the table exists afterwards.
   */
  private void ensureTable(JdbcSession s) throws SQLException {
    if (!createTable || tableReady) {
      return;
    }
    synchronized (this) {
      if (tableReady) {
        return;
      }
      try (Statement st = s.statement()) {
        st.execute(ddl(table));
      } catch (SQLException e) {
        if (!s.tableExists(table)) { // another process created it at the same moment: that is success too
          throw e;
        }
        LOG.debug("segment table {} was created by another process at the same time ({})", table, e.getMessage());
      }
      tableReady = true;
    }
  }

  /**
   * Once per store, on PostgreSQL: a WARN naming the physical standbys this primary streams to asynchronously (or as
   * potential synchronous standbys), since a failover to one of them can hand out ranges again. Only a WARN: the
   * database cannot tell a failover target from a read replica, and a role without {@code pg_read_all_stats} sees no
   * {@code sync_state}. A failed check is logged at DEBUG and not repeated; it never fails a claim.
   */
  private void checkReplication(JdbcSession s) {
    if (replicationChecked) {
      return;
    }
    replicationChecked = true;
    try {
      if (JdbcSession.Dialect.of(s.connection()) != JdbcSession.Dialect.POSTGRESQL) {
        return;
      }
      try (Statement st = s.statement(); ResultSet rs = st.executeQuery(ASYNC_STANDBYS_SQL)) {
        if (rs.next() && rs.getInt(1) > 0) {
          LOG.warn("the JDBC segment store ({}table {}) is on a PostgreSQL primary that streams to {} standby(s) "
              + "without waiting for them: {}; synchronous_standby_names = '{}'. A failover to one of them loses the "
              + "last claims and hands those ranges out again: make the standbys a failover may promote synchronous "
              + "(synchronous_standby_names, synchronous_commit = on or remote_apply), or never promote one that "
              + "lags (see docs/segments.md)", where == null ? "" : where + ", ", table, rs.getInt(1),
              rs.getString(2), rs.getString(3));
        }
      }
    } catch (SQLException e) {
      LOG.debug("could not check the replication of the segment store's database: {}", e.getMessage());
    }
  }

  /** Physical standbys streaming from this primary that a commit does not wait for (logical subscribers excluded). */
  private static final String ASYNC_STANDBYS_SQL = "SELECT count(*), string_agg(COALESCE(r.application_name, '?') "
      + "|| ' at ' || COALESCE(host(r.client_addr), 'local') || ' (' || r.sync_state || ')', ', '), "
      + "current_setting('synchronous_standby_names') FROM pg_stat_replication r WHERE r.state = 'streaming' "
      + "AND r.sync_state IN ('async', 'potential') AND NOT EXISTS (SELECT 1 FROM pg_replication_slots l "
      + "WHERE l.slot_type = 'logical' AND l.active_pid = r.pid)";

  /**
   * Claims {@code [max_id + 1, max_id + step]} for {@code bizTag} by compare-and-set.
   *
   * @throws IllegalArgumentException for an empty or too long tag or a step below 1
   * @throws GeneIdException if the database fails or other processes win {@code maxAttempts} races in a row
   */
  @Override
  public Segment nextSegment(String bizTag, long step) {
    if (bizTag.isEmpty() || bizTag.length() > 128) {
      throw new IllegalArgumentException("bizTag must have 1 to 128 characters but was '" + bizTag + "'");
    }
    if (step < 1) {
      throw new IllegalArgumentException("step must be at least 1 but was " + step);
    }
    try (JdbcSession s = JdbcSession.open(connections.get(), statementTimeout, true)) {
      ensureTable(s);
      checkReplication(s);
      return claim(s, bizTag, step); // each statement sees and publishes the latest max_id on its own
    } catch (SQLException e) {
      SQLException clean = JdbcSession.scrubbed(e, url);
      throw new GeneIdException("the JDBC segment store (" + (where == null ? "" : where + ", ") + "table " + table
          + ") could not hand out " + step
          + " values of tag '" + bizTag + "': " + clean.getMessage(), clean);
    }
  }

  private Segment claim(JdbcSession s, String bizTag, long step) throws SQLException {
    try (PreparedStatement select = s.prepare(selectSql);
        PreparedStatement update = s.prepare(updateSql)) {
      select.setString(1, bizTag);
      for (int attempt = 1; attempt <= maxAttempts; attempt++) {
        long max;
        try (ResultSet rs = select.executeQuery()) {
          if (!rs.next()) {
            insertTag(s, bizTag);
            attempt--; // not a lost race: read again
            continue;
          }
          max = rs.getLong(1);
        }
        if (max > Long.MAX_VALUE - step) {
          throw new GeneIdException("tag '" + bizTag + "' in table " + table + " has max_id " + max
              + ": adding " + step + " would overflow a BIGINT");
        }
        update.setLong(1, step);
        update.setLong(2, step);
        update.setString(3, bizTag);
        update.setLong(4, max);
        if (update.executeUpdate() == 1) {
          return new Segment(max + 1, max + step);
        }
        LOG.debug("segment of tag '{}' at max_id {} was claimed by another process (attempt {})", bizTag, max,
            attempt);
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(Math.min(attempt, 20) * 100_000L + 1));
      }
    }
    throw new GeneIdException("the JDBC segment store (table " + table + ") could not claim a segment of tag '"
        + bizTag + "' in " + maxAttempts + " attempts: other processes claimed every max_id it read first");
  }

  private void insertTag(JdbcSession s, String bizTag) throws SQLException {
    try (PreparedStatement insert = s.prepare(insertSql)) {
      insert.setString(1, bizTag);
      insert.executeUpdate();
      LOG.info("segment tag '{}' created in table {}", bizTag, table);
    } catch (SQLException e) {
      if (!JdbcSession.isDuplicate(e)) {
        throw e;
      }
      // integrity constraint violation: another process inserted the tag first
    }
  }

  /** The table this store uses. */
  public String table() {
    return table;
  }

  /** The query timeout of every statement. */
  public Duration statementTimeout() {
    return statementTimeout;
  }

  @Override
  public String toString() {
    return "JdbcSegmentStore[" + (where == null ? "" : where + ", ") + "table=" + table + "]";
  }

  private static void checkTable(String table) {
    JdbcSession.checkTable("table", table);
  }

  /** Configuration of a {@link JdbcSegmentStore}. */
  public static final class Builder {
    private @Nullable DataSource dataSource;
    private @Nullable String jdbcUrl;
    private @Nullable String username;
    private @Nullable String password;
    private String table = DEFAULT_TABLE;
    private boolean createTable;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;

    private Builder() {}

    /** A pool such as HikariCP. The store never closes it. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.jdbcUrl = null;
      return this;
    }

    /**
     * A JDBC URL opened through {@link java.sql.DriverManager}, one connection per segment fetch (a fetch is rare:
     * once per segment), within the statement timeout.
     */
    public Builder jdbcUrl(String jdbcUrl, @Nullable String username, @Nullable String password) {
      this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      this.username = username;
      this.password = password;
      this.dataSource = null;
      return this;
    }

    /** The table name (a plain identifier). Default gene_id_segment. */
    public Builder table(String table) {
      this.table = Objects.requireNonNull(table, "table");
      return this;
    }

    /**
     * Whether to run {@link JdbcSegmentStore#ddl(String)} ({@code CREATE TABLE IF NOT EXISTS}) before the first
     * claim, as {@link JdbcWorkerIdAssigner.Builder#createTable(boolean)} does for leases. Default false.
     */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /** How many compare-and-set races a claim may lose before it fails, in [1, 10000]. Default 100. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * The query timeout of every statement, in whole seconds (rounded up), in [1 s, 1 h]; a silent socket is given
     * up one second later. Default 5 s. Keep it below the generator's fetch timeout.
     */
    public Builder statementTimeout(Duration statementTimeout) {
      this.statementTimeout = Objects.requireNonNull(statementTimeout, "statementTimeout");
      return this;
    }

    /**
     * @throws IllegalArgumentException for a bad table name, attempt count or statement timeout
     */
    public JdbcSegmentStore build() {
      checkTable(table);
      Checks.range("maxAttempts", maxAttempts, 1, 10_000);
      Checks.duration("statementTimeout", statementTimeout, Duration.ofSeconds(1), Duration.ofHours(1));
      DataSource ds = dataSource;
      if (ds != null) {
        return new JdbcSegmentStore(this, ds::getConnection, null);
      }
      String url = jdbcUrl;
      if (url == null) {
        throw new IllegalArgumentException("a DataSource or a JDBC URL (jdbc-url) is required");
      }
      String user = username;
      String pass = password;
      Duration timeout = statementTimeout;
      return new JdbcSegmentStore(this, () -> JdbcSession.connect(url, user, pass, timeout), url);
    }
  }
}
