package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdRegistry;
import io.geneid.core.LeasedGeneGenerator;
import io.geneid.core.WorkerIdAssigners;
import io.geneid.core.WorkerLease;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JDBC-specific behaviour: DataSource without auto-commit, documented DDL, database time, errors, properties. */
class JdbcLeaseStoreTest {

  @Test
  void worksOnAPooledDataSourceWhoseConnectionsAreNotInAutoCommit() throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(LeaseDatabase.Kind.POSTGRESQL)) {
      try (Connection c = db.connect(); Statement s = c.createStatement()) {
        s.execute(JdbcWorkerIdAssigner.ddl("leases")); // the documented DDL, run by hand
      }
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(db.url(db.port()));
      config.setAutoCommit(false); // as many Spring setups have it
      config.setMaximumPoolSize(2);
      try (HikariDataSource ds = new HikariDataSource(config)) {
        JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder().dataSource(ds).table("leases").space("orders")
            .ttl(Duration.ofSeconds(2)).workerIds(0, 1).build();
        long before = System.currentTimeMillis();
        WorkerLease lease = a.acquire(255);
        // expiry from the database clock (same host here): now + TTL
        assertThat(lease.expiresAt().toEpochMilli()).isBetween(before + 2_000 - 500, System.currentTimeMillis()
            + 2_000 + 500);
        WorkerLease renewed = a.renew(lease, Instant.ofEpochMilli(before + 9_000));
        assertThat(renewed.highWaterMark().toEpochMilli()).isEqualTo(before + 9_000);
        a.release(renewed, Instant.ofEpochMilli(before + 5));
        try (Connection c = db.connect(); Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT holder, version, high_water_mark FROM leases WHERE worker_id = 0")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getString(1)).isEmpty();
          assertThat(rs.getLong(2)).isEqualTo(2);
          assertThat(rs.getLong(3)).isEqualTo(before + 5);
        }
      }
    }
  }

  @Test
  void theDdlIsDocumentedAndTableNamesAreChecked() {
    assertThat(JdbcWorkerIdAssigner.ddl("gene_id_worker_lease")).isEqualTo("CREATE TABLE gene_id_worker_lease (\n"
        + "  space_name      VARCHAR(64)  NOT NULL,\n"
        + "  worker_id       INT          NOT NULL,\n"
        + "  holder          VARCHAR(255) NOT NULL,\n"
        + "  version         BIGINT       NOT NULL,\n"
        + "  expires_at      BIGINT       NOT NULL,\n"
        + "  high_water_mark BIGINT       NOT NULL,\n"
        + "  PRIMARY KEY (space_name, worker_id)\n"
        + ")");
    assertThatThrownBy(() -> JdbcWorkerIdAssigner.builder().table("x; DROP TABLE y"))
        .hasMessage("jdbc-table must be a plain SQL name ([schema.]name of letters, digits and _) but was "
            + "'x; DROP TABLE y'");
  }

  @Test
  void anUnreachableDatabaseIsAClearError() throws Exception {
    int dead;
    try (ServerSocket s = new ServerSocket(0)) {
      dead = s.getLocalPort();
    }
    JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder()
        .jdbcUrl("jdbc:mariadb://127.0.0.1:" + dead + "/test?user=root&password=secret&connectTimeout=500", null, null)
        .build();
    assertThatThrownBy(() -> a.acquire(255))
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("the worker-id lease store, database jdbc:mariadb://127.0.0.1:" + dead
            + "/test?user=root&password=***&connectTimeout=500 (table gene_id_worker_lease), failed on acquire for "
            + "space 'default': ");
  }

  @Test
  void propertiesBuildASharedJdbcLeasedGenerator() {
    try (LeaseDatabase db = new LeaseDatabase(LeaseDatabase.Kind.MARIADB)) {
      Map<String, String> props = Map.of("worker-assigner", "jdbc", "jdbc-url", db.url(db.port()),
          "jdbc-create-table", "true", "space", "orders", "worker-id-min", "4", "worker-id-max", "5",
          "lease-ttl", "2s", "gene-bits", "4", "sequence-bits", "10");
      GeneIdRegistry.Handle<LeasedGeneGenerator> g = WorkerIdAssigners.sharedGenerator(props);
      try (GeneIdRegistry.Handle<LeasedGeneGenerator> again = WorkerIdAssigners.sharedGenerator(Map.copyOf(props))) {
        assertThat(again.generator()).isSameAs(g.generator());
        assertThat(g.generator().workerId()).isEqualTo(4);
        assertThat(g.nextIdFor(42L) & 15).isEqualTo(42 & 15);
      } finally {
        g.close();
      }
    }
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "jdbc")))
        .hasMessage("worker-assigner=jdbc needs the property 'jdbc-url'");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "jdbc", "jdbc-user", "x")))
        .hasMessageStartingWith("unknown property 'jdbc-user' for worker-assigner=jdbc; known properties: ");
  }
}
