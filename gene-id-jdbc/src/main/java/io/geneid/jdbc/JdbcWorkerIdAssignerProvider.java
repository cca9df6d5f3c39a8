package io.geneid.jdbc;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssignerProvider;
import io.geneid.core.lease.WorkerIdAssigners;
import java.util.Map;
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

  public static final String JDBC_URL = "jdbc-url";
  public static final String JDBC_USERNAME = "jdbc-username";
  public static final String JDBC_PASSWORD = "jdbc-password";
  public static final String JDBC_TABLE = "jdbc-table";
  public static final String JDBC_CREATE_TABLE = "jdbc-create-table";
  public static final String JDBC_STATEMENT_TIMEOUT = "jdbc-statement-timeout";

  @Override
  public String type() {
    return "jdbc";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(JDBC_URL, JDBC_USERNAME, JDBC_PASSWORD, JDBC_TABLE, JDBC_CREATE_TABLE, JDBC_STATEMENT_TIMEOUT);
  }

  @Override
  public WorkerIdAssigner create(Map<String, String> props) {
    WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
    String user = props.get(JDBC_USERNAME);
    String password = props.get(JDBC_PASSWORD);
    JdbcWorkerIdAssigner.Builder b = JdbcWorkerIdAssigner.builder()
        .jdbcUrl(WorkerIdAssigners.required(props, JDBC_URL, type()), user, password)
        .table(WorkerIdAssigners.string(props, JDBC_TABLE, JdbcWorkerIdAssigner.DEFAULT_TABLE))
        .createTable(WorkerIdAssigners.bool(props, JDBC_CREATE_TABLE, false))
        .leaseSettings(s);
    String timeout = props.get(JDBC_STATEMENT_TIMEOUT);
    if (timeout != null) {
      b.statementTimeout(WorkerIdAssigners.parseDuration(JDBC_STATEMENT_TIMEOUT, timeout));
    }
    return b.build();
  }

  /**
   * Checks {@code jdbc-url} (present, {@code jdbc:...}), {@code jdbc-table}, {@code jdbc-create-table} and
   * {@code jdbc-statement-timeout} offline.
   */
  @Override
  public void check(Map<String, String> props) {
    String url = WorkerIdAssigners.required(props, JDBC_URL, type());
    if (!url.startsWith("jdbc:")) {
      throw new IllegalArgumentException(JDBC_URL + " must be a JDBC URL starting with jdbc: but was '" + url + "'");
    }
    JdbcWorkerIdAssigner.builder()
        .table(WorkerIdAssigners.string(props, JDBC_TABLE, JdbcWorkerIdAssigner.DEFAULT_TABLE));
    WorkerIdAssigners.bool(props, JDBC_CREATE_TABLE, false);
    String timeout = props.get(JDBC_STATEMENT_TIMEOUT);
    if (timeout != null) {
      JdbcWorkerIdAssigner.builder().statementTimeout(WorkerIdAssigners.parseDuration(JDBC_STATEMENT_TIMEOUT, timeout));
    }
  }
}
