package io.geneid.jdbc;

import io.geneid.core.WorkerIdAssigner;
import io.geneid.core.WorkerIdAssignerProvider;
import io.geneid.core.WorkerIdAssigners;
import java.util.Map;
import java.util.Set;

/**
 * {@code worker-assigner=jdbc}: a {@link JdbcWorkerIdAssigner} over {@link java.sql.DriverManager}. Keys:
 * {@code jdbc-url} (required), {@code jdbc-username}, {@code jdbc-password}, {@code jdbc-table} (default
 * {@code gene_id_worker_lease}), {@code jdbc-create-table} (default false), and the common {@code space},
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

  @Override
  public String type() {
    return "jdbc";
  }

  @Override
  public Set<String> propertyKeys() {
    return Set.of(JDBC_URL, JDBC_USERNAME, JDBC_PASSWORD, JDBC_TABLE, JDBC_CREATE_TABLE);
  }

  @Override
  public WorkerIdAssigner create(Map<String, String> props) {
    WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
    String user = props.get(JDBC_USERNAME);
    String password = props.get(JDBC_PASSWORD);
    return JdbcWorkerIdAssigner.builder()
        .jdbcUrl(WorkerIdAssigners.required(props, JDBC_URL, type()), user, password)
        .table(WorkerIdAssigners.string(props, JDBC_TABLE, JdbcWorkerIdAssigner.DEFAULT_TABLE))
        .createTable(WorkerIdAssigners.bool(props, JDBC_CREATE_TABLE, false))
        .leaseSettings(s)
        .build();
  }

  /** Checks {@code jdbc-url} (present, {@code jdbc:...}), {@code jdbc-table} and {@code jdbc-create-table} offline. */
  @Override
  public void check(Map<String, String> props) {
    String url = WorkerIdAssigners.required(props, JDBC_URL, type());
    if (!url.startsWith("jdbc:")) {
      throw new IllegalArgumentException(JDBC_URL + " must be a JDBC URL starting with jdbc: but was '" + url + "'");
    }
    JdbcWorkerIdAssigner.builder()
        .table(WorkerIdAssigners.string(props, JDBC_TABLE, JdbcWorkerIdAssigner.DEFAULT_TABLE));
    WorkerIdAssigners.bool(props, JDBC_CREATE_TABLE, false);
  }
}
