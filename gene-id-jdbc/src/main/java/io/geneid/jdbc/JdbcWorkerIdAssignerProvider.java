package io.geneid.jdbc;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssignerProvider;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.internal.StoreUrls;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.time.Duration;
import java.util.Set;

/**
 * {@code worker-assigner=jdbc}: a {@link JdbcWorkerIdAssigner} over {@link java.sql.DriverManager}. Keys:
 * {@code jdbc-url} (required), {@code jdbc-username}, {@code jdbc-password}, {@code jdbc-table} (default
 * {@code gene_id_worker_lease}), {@code jdbc-create-table} (default false), {@code jdbc-statement-timeout} (the
 * query timeout of every statement, e.g. {@code 2s}; default TTL / 3 within [1 s, 5 s]), and the common
 * {@code space},
 * {@code worker-id-min}, {@code worker-id-max}, {@code lease-ttl}, {@code lease-acquire-timeout},
 * {@code lease-owner}. Applications with a {@link javax.sql.DataSource} use
 * {@link JdbcWorkerIdAssigner.Builder#dataSource(javax.sql.DataSource)} instead.
 */
public final class JdbcWorkerIdAssignerProvider implements WorkerIdAssignerProvider {

  public static final String JDBC_URL = StoreKeys.JDBC_URL;
  public static final String JDBC_USERNAME = StoreKeys.JDBC_USERNAME;
  public static final String JDBC_PASSWORD = StoreKeys.JDBC_PASSWORD;
  public static final String JDBC_TABLE = StoreKeys.JDBC_TABLE;
  public static final String JDBC_CREATE_TABLE = StoreKeys.JDBC_CREATE_TABLE;
  public static final String JDBC_STATEMENT_TIMEOUT = StoreKeys.JDBC_STATEMENT_TIMEOUT;

  @Override
  public String type() {
    return "jdbc";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(JDBC_URL, JDBC_USERNAME, JDBC_PASSWORD, JDBC_TABLE, JDBC_CREATE_TABLE, JDBC_STATEMENT_TIMEOUT);
  }

  @Override
  public WorkerIdAssigner create(SettingsReader props) {
    return builder(props)
        .jdbcUrl(url(props), props.has(JDBC_USERNAME) ? props.string(JDBC_USERNAME, "") : null,
            props.has(JDBC_PASSWORD) ? props.string(JDBC_PASSWORD, "") : null)
        .leaseSettings(WorkerIdAssigners.leaseSettings(props))
        .build();
  }

  /**
   * Checks {@code jdbc-url} (present, {@code jdbc:...}), {@code jdbc-table}, {@code jdbc-create-table} and
   * {@code jdbc-statement-timeout} offline.
   */
  @Override
  public void check(SettingsReader props) {
    url(props);
    builder(props);
  }

  private static String url(SettingsReader props) {
    String url = props.requiredString(JDBC_URL, "a JDBC URL such as jdbc:mariadb://127.0.0.1:3306/ids");
    if (!url.startsWith("jdbc:")) {
      throw new IllegalArgumentException(props.nameOf(JDBC_URL) + " must be a JDBC URL starting with jdbc: but was '"
          + StoreUrls.describe(url) + "'");
    }
    return url;
  }

  /** A builder with the table, table creation and statement timeout: every setting but the connection. */
  private static JdbcWorkerIdAssigner.Builder builder(SettingsReader props) {
    JdbcWorkerIdAssigner.Builder b = JdbcWorkerIdAssigner.builder()
        .table(props.string(JDBC_TABLE, JdbcWorkerIdAssigner.DEFAULT_TABLE))
        .createTable(props.bool(JDBC_CREATE_TABLE, false));
    if (props.has(JDBC_STATEMENT_TIMEOUT)) {
      b.statementTimeout(props.duration(JDBC_STATEMENT_TIMEOUT, Duration.ofSeconds(1), Duration.ofHours(1),
          Duration.ofSeconds(5)));
    }
    return b;
  }
}
