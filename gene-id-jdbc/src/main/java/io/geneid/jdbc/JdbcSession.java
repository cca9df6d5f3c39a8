package io.geneid.jdbc;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.internal.StoreUrls;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One connection set up for the statements of a lease or segment operation, so that a silent database fails them
 * within a bound and a connection's defaults cannot change their meaning: auto-commit on, READ COMMITTED, every
 * statement with a query timeout, and a network timeout on the socket. {@link #close()} puts back what it changed
 * (the connection may belong to a pool) and closes the connection.
 */
final class JdbcSession implements AutoCloseable {

  /** Runs the aborts of {@link Connection#setNetworkTimeout} and bounded connection attempts (daemon threads). */
  private static final ExecutorService TIMEOUTS = Executors.newCachedThreadPool(new ThreadFactory() {
    private final AtomicInteger n = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "gene-id-jdbc-timeout-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  });

  /** The SQL dialect of the database's "now in epoch milliseconds". */
  enum Dialect {
    /** MariaDB and MySQL: UTC_TIMESTAMP is UTC whatever the session time zone; no conversion through it. */
    MYSQL("(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP('1970-01-01 00:00:00'), UTC_TIMESTAMP(6)) DIV 1000)"),
    /** PostgreSQL: the epoch of a timestamptz does not depend on the session time zone. */
    POSTGRESQL("CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)"),
    /** H2 and other standard databases. */
    STANDARD("CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)");

    final String nowMillis;

    Dialect(String nowMillis) {
      this.nowMillis = nowMillis;
    }

    static Dialect of(Connection c) throws SQLException {
      String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
      if (product.contains("mariadb") || product.contains("mysql")) {
        return MYSQL;
      }
      return product.contains("postgres") ? POSTGRESQL : STANDARD;
    }
  }

  private final Connection c;
  private final int queryTimeoutSeconds;
  private final boolean pooled;
  private boolean restoreAutoCommit;
  private int restoreIsolation = -1;
  private int restoreNetworkTimeout = -1;

  private JdbcSession(Connection c, Duration statementTimeout, boolean pooled) {
    this.c = c;
    this.queryTimeoutSeconds = seconds(statementTimeout);
    this.pooled = pooled;
  }

  /** {@code timeout} in whole seconds, rounded up, at least 1 (what {@link Statement#setQueryTimeout} takes). */
  static int seconds(Duration timeout) {
    long s = (timeout.toMillis() + 999) / 1000;
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, s));
  }

  /** How long the socket may stay silent: the statement timeout plus a second for the server-side cancel. */
  static int networkTimeoutMillis(Duration statementTimeout) {
    return (int) Math.min(Integer.MAX_VALUE, seconds(statementTimeout) * 1000L + 1000);
  }

  /**
   * Sets up {@code c}: network timeout first (every later round trip is then bounded), auto-commit, READ COMMITTED.
   * A connection of a pool ({@code pooled}) gets its settings back on {@link #close()}.
   */
  static JdbcSession open(Connection c, Duration statementTimeout, boolean pooled) throws SQLException {
    JdbcSession s = new JdbcSession(c, statementTimeout, pooled);
    try {
      s.setUp(statementTimeout);
      return s;
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private void setUp(Duration statementTimeout) throws SQLException {
    int network = networkTimeoutMillis(statementTimeout);
    try {
      int old = pooled ? c.getNetworkTimeout() : 0;
      if (old == 0 || old > network) {
        c.setNetworkTimeout(TIMEOUTS, network);
        restoreNetworkTimeout = pooled ? old : -1;
      }
    } catch (SQLException | AbstractMethodError | UnsupportedOperationException e) {
      // the driver or pool has no network timeout (SQLFeatureNotSupportedException and kin): query timeouts remain
    }
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true); // each statement on its own (PostgreSQL and H2 freeze CURRENT_TIMESTAMP in a transaction)
      restoreAutoCommit = true;
    }
    int isolation = pooled ? c.getTransactionIsolation() : -1;
    if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
      // a lost compare-and-set race must be a 0-row update, never a serialization error (REPEATABLE READ default)
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      restoreIsolation = pooled ? isolation : -1;
    }
  }

  Connection connection() {
    return c;
  }

  /** A prepared statement with the query timeout. */
  PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    ps.setQueryTimeout(queryTimeoutSeconds);
    return ps;
  }

  /** A plain statement with the query timeout. */
  Statement statement() throws SQLException {
    Statement s = c.createStatement();
    s.setQueryTimeout(queryTimeoutSeconds);
    return s;
  }

  @FunctionalInterface
  interface SqlWork<T> {
    T run(JdbcSession s) throws SQLException;
  }

  /**
   * Whether {@code table} ({@code [schema.]name}) exists where an unqualified statement finds it. On MariaDB and MySQL
   * (a database is a catalog there) the catalog is asked, since their driver logs every failed statement at WARN and
   * a probe of a table about to be created would print "Table ... doesn't exist" on a healthy start; elsewhere
   * (PostgreSQL's search path, H2) a probing SELECT answers, which those drivers do not log.
   */
  boolean tableExists(String table) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    if (md.supportsCatalogsInTableDefinitions() && !md.supportsSchemasInTableDefinitions()) {
      int dot = table.lastIndexOf('.');
      String name = table.substring(dot + 1);
      String catalog = dot < 0 ? c.getCatalog() : table.substring(0, dot);
      for (String pattern : new String[] {name, name.toLowerCase(Locale.ROOT)}) {
        try (ResultSet rs = md.getTables(catalog, null, pattern, null)) {
          while (rs.next()) {
            if (name.equalsIgnoreCase(rs.getString("TABLE_NAME"))) {
              return true;
            }
          }
        }
      }
      return false;
    }
    try (Statement st = statement(); ResultSet rs = st.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0")) {
      rs.next(); // the query ran, so the table exists; it has no row to return
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      if (pooled && !c.isClosed()) {
        if (restoreIsolation >= 0) {
          c.setTransactionIsolation(restoreIsolation);
        }
        if (restoreAutoCommit) {
          c.setAutoCommit(false);
        }
        if (restoreNetworkTimeout >= 0) {
          c.setNetworkTimeout(TIMEOUTS, restoreNetworkTimeout);
        }
      }
    } catch (SQLException e) {
      // the connection is broken (e.g. aborted by its network timeout): the pool drops it
    } finally {
      c.close();
    }
  }

  /** Whether {@code e} says that a row with this key exists already (SQLState class 23). */
  static boolean isDuplicate(SQLException e) {
    return e.getSQLState() != null && e.getSQLState().startsWith("23");
  }

  /**
   * Opens a connection through {@link DriverManager}: the known drivers (PostgreSQL, MariaDB/MySQL) get connect and
   * login timeouts of {@code timeout} (unless the URL sets them), and the caller never waits longer than
   * {@code max(2 x timeout, 5 s)} whatever the driver does (the margin covers loading the driver in a cold JVM). A
   * connection that arrives after the caller gave up is closed. {@link DriverManager#setLoginTimeout} is left alone:
   * it is global to the JVM.
   */
  static Connection connect(String url, @Nullable String user, @Nullable String password, Duration timeout)
      throws SQLException {
    Properties props = new Properties();
    if (user != null) {
      props.setProperty("user", user);
    }
    if (password != null) {
      props.setProperty("password", password);
    }
    String lower = url.toLowerCase(Locale.ROOT);
    long millis = Math.max(1000, timeout.toMillis());
    if (lower.startsWith("jdbc:postgresql:")) {
      String s = Long.toString((millis + 999) / 1000);
      putUnlessInUrl(props, lower, "loginTimeout", s);
      putUnlessInUrl(props, lower, "connectTimeout", s);
    } else if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
      putUnlessInUrl(props, lower, "connectTimeout", Long.toString(millis));
    }
    CompletableFuture<Connection> attempt = CompletableFuture.supplyAsync(() -> {
      try {
        return DriverManager.getConnection(url, props);
      } catch (SQLException e) {
        // "No suitable driver found for <the URL, password and all>"
        throw new CompletionException(scrubbed(e, url));
      }
    }, TIMEOUTS);
    long bound = Math.max(5_000, 2 * millis);
    try {
      return attempt.get(bound, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      attempt.thenAccept(JdbcSession::closeQuietly);
      throw new SQLTimeoutException("no connection within " + bound + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      attempt.thenAccept(JdbcSession::closeQuietly);
      throw new SQLException("interrupted while connecting", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SQLException) {
        throw (SQLException) cause;
      }
      throw new SQLException("could not connect: " + cause, cause);
    }
  }

  /** {@link StoreUrls#scrub}: every JDBC URL in {@code text} cut to scheme, host, port and database. */
  static String scrub(@Nullable String text) {
    return StoreUrls.scrub(text, null);
  }

  static String scrub(@Nullable String text, @Nullable String url) {
    return StoreUrls.scrub(text, url);
  }

  /**
   * {@code e} itself when no message of its chain holds a secret, else a copy of the chain with scrubbed messages
   * (same SQLState, vendor code and stack traces), so a password in a URL never reaches a log through a cause.
   */
  static SQLException scrubbed(SQLException e, @Nullable String url) {
    if (clean(e, url)) {
      return e;
    }
    SQLException copy = new SQLException(scrub(e.getMessage(), url), e.getSQLState(), e.getErrorCode());
    copy.setStackTrace(e.getStackTrace());
    Throwable cause = e.getCause();
    if (cause != null) {
      copy.initCause(cause instanceof SQLException sql ? scrubbed(sql, url) : clean(cause, url) ? cause
          : new SQLException(cause.getClass().getName() + ": " + scrub(cause.getMessage(), url)));
    }
    return copy;
  }

  private static boolean clean(Throwable t, @Nullable String url) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = c.getMessage();
      if (m != null && !m.equals(scrub(m, url))) {
        return false;
      }
    }
    return true;
  }

  private static void putUnlessInUrl(Properties props, String lowerUrl, String key, String value) {
    if (!lowerUrl.contains(key.toLowerCase(Locale.ROOT) + "=")) {
      props.setProperty(key, value);
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // late connection of an abandoned attempt
    }
  }

  /** {@link StoreUrls#describe}: the URL as scheme, host, port and database. */
  static String describeUrl(@Nullable String url) {
    return StoreUrls.describe(url);
  }


  private static final java.util.regex.Pattern TABLE_NAME =
      java.util.regex.Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,62}");

  /**
   * The one rule for the lease and segment table names, which are put into SQL as they are.
   *
   * @param what the setting, for the message ({@code table}, {@code jdbc-table})
   * @throws IllegalArgumentException {@code "<what> must be a plain SQL name ..."} for anything else
   */
  static String checkTable(String what, String table) {
    if (!TABLE_NAME.matcher(table).matches()) {
      throw new InvalidSettingException(what, "'" + table + "'", "a plain SQL name ([schema.]name of letters, digits"
          + " and _, each part 1 to 63 characters, not starting with a digit)");
    }
    return table;
  }
}
