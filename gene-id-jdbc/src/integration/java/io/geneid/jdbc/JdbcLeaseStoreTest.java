package io.geneid.jdbc;

import io.geneid.core.snowflake.LeasedGenerators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdException;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.testing.TestTime;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JDBC-specific behaviour: DataSource without auto-commit, documented DDL, database time, errors, properties. */
class JdbcLeaseStoreTest {

  /** The TTL of the leases here, held on real databases: 2 s at the tests' time scale. */
  private static final Duration TTL = TestTime.seconds(2);

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
            .ttl(TTL).workerIds(0, 1).build();
        long before = System.currentTimeMillis();
        WorkerLease lease = a.acquire(255);
        // expiry from the database clock (same host here): now + TTL
        assertThat(lease.expiresAt().toEpochMilli()).isBetween(before + TTL.toMillis() - 500,
            System.currentTimeMillis() + TTL.toMillis() + 500);
        WorkerLease renewed = a.renew(lease, Instant.ofEpochMilli(before + 9_000));
        assertThat(renewed.highWaterMark().toEpochMilli()).isEqualTo(before + 9_000);
        a.release(renewed, Instant.ofEpochMilli(before + 5));
        try (Connection c = db.connect(); Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT holder, version, high_water_mark FROM leases WHERE worker_id = 0")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getString(1)).isEmpty();
          assertThat(rs.getLong(2)).as("a new random token on release").isNotEqualTo(lease.token()).isNotZero();
          assertThat(rs.getLong(3)).isEqualTo(before + 5);
        }
        try (Connection c = ds.getConnection()) { // the pool's connection got its settings back
          assertThat(c.getAutoCommit()).isFalse();
        }
      }
    }
  }

  @Test
  void aTableOfAnEarlierVersionKeepsWorking() throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(LeaseDatabase.Kind.H2)) {
      try (Connection c = db.connect(); Statement s = c.createStatement()) {
        s.execute(JdbcWorkerIdAssigner.ddl(db.table));
        long far = System.currentTimeMillis() + 60_000;
        // counter tokens: worker id 0 held by a process of an earlier version, 1 released
        s.execute("INSERT INTO " + db.table + " VALUES ('up', 0, 'old', 2, " + far + ", 5)");
        s.execute("INSERT INTO " + db.table + " VALUES ('up', 1, '', 3, 0, 7)");
        // the pool row (highest id granted, database identity) and an expired tombstone of the versions before #33
        s.execute("INSERT INTO " + db.table + " VALUES ('up', -1, '(pool)', 12345, 0, 3)");
        s.execute("INSERT INTO " + db.table + " VALUES ('up', 3, '(unknown history)', 4, 1, 0)");
      }
      JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder().jdbcUrl(db.url(db.port()), null, null).space("up")
          .workerIds(0, 3).ttl(TTL).acquireTimeout(Duration.ZERO).build();
      WorkerLease fresh = a.acquire(255);
      assertThat(fresh.workerId()).as("without a row: granted first").isEqualTo(2);
      WorkerLease reused = a.acquire(255);
      assertThat(reused.workerId()).as("then the least recently used row").isEqualTo(1);
      assertThat(reused.previousHighWaterMark().toEpochMilli()).isEqualTo(7);
      assertThat(reused.token()).isNotIn(0L, 1L, 2L, 3L, 4L);
      assertThat(a.acquire(255).workerId()).as("an expired tombstone is an expired row").isEqualTo(3);
      // the earlier version's holder still renews under its counter token
      WorkerLease old = new WorkerLease("up", 0, 2, "old", Instant.EPOCH, Instant.ofEpochMilli(5), Instant.MAX);
      assertThat(a.renew(old, Instant.ofEpochMilli(9)).highWaterMark().toEpochMilli()).isEqualTo(9);
      try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT version, high_water_mark FROM " + db.table + " WHERE space_name = 'up' AND worker_id = -1")) {
        assertThat(rs.next()).isTrue();
        assertThat(List.of(rs.getLong(1), rs.getLong(2))).as("the old pool row, neither read nor written")
            .containsExactly(12345L, 3L);
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
        .hasMessage("jdbc-table must be a plain SQL name ([schema.]name of letters, digits and _, each part 1 to 63"
            + " characters, not starting with a digit) but was 'x; DROP TABLE y'");
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
        .hasMessageStartingWith("the worker-id lease store, database mariadb://127.0.0.1:" + dead
            + "/test (table gene_id_worker_lease), failed on acquire for space 'default': ")
        .message().doesNotContain("secret").doesNotContain("user=");
  }

  /**
   * #12 item 2: the driver's own message ("No suitable driver found for jdbc:...&password=...") was passed on
   * whole. Now no message of the exception chain, nor the assigner's description, holds the password, in any form.
   */
  @Test
  void driverMessagesNeverRepeatThePassword() {
    for (String password : new String[] {"Se/cr+et", "p@ss:w%25rd", "pwd with space"}) {
      for (String url : new String[] {
          "jdbc:nosuchdriver://db.example:3306/ids?user=app&password=" + password,
          "jdbc:nosuchdriver://app:" + password + "@db.example/ids",
          "jdbc:nosuchdriver://db.example/ids;user=app;pwd=" + password}) {
        JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder().jdbcUrl(url, null, null).build();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> a.acquire(255));
        assertThat(thrown).isInstanceOf(GeneIdException.class);
        String secret = password.split(" ")[0];
        for (Throwable t = thrown; t != null; t = t.getCause()) {
          assertThat(t.toString()).as(url).doesNotContain(secret);
        }
        assertThat(a.toString()).doesNotContain(secret);
      }
    }
    assertThat(JdbcSession.scrub("No suitable driver found for jdbc:x://h/db?user=u&password=p/q+r"))
        .isEqualTo("No suitable driver found for x://h/db");
    assertThat(JdbcSession.scrub("bad option password=abc;other")).isEqualTo("bad option password=***;other");
  }

  @Test
  void storeDescriptionsShowNoCredentials() {
    assertThat(JdbcSession.describeUrl("jdbc:mariadb://app:s3cret@db1.example:3306/ids?password=s3cret&ssl=true"))
        .isEqualTo("mariadb://db1.example:3306/ids");
    assertThat(JdbcSession.describeUrl("jdbc:postgresql://db2:5432/ids?user=u&password=p"))
        .isEqualTo("postgresql://db2:5432/ids");
    assertThat(JdbcSession.describeUrl("jdbc:h2:tcp://127.0.0.1:9092/mem:x;PASSWORD=p"))
        .isEqualTo("h2:tcp://127.0.0.1:9092/mem:x");
    assertThat(JdbcSession.describeUrl("jdbc:h2:mem:x;USER=sa;PASSWORD=p")).isEqualTo("h2:mem:x");
    assertThat(JdbcSession.describeUrl("jdbc:oracle:thin:scott/tiger@db3:1521/ids")).isEqualTo("oracle://db3:1521/ids");
  }

  @Test
  void theStatementTimeoutDefaultsToAThirdOfTheTtlWithinOneToFiveSecondsAndIsAProperty() {
    JdbcWorkerIdAssigner.Builder b = JdbcWorkerIdAssigner.builder().jdbcUrl("jdbc:h2:mem:x", null, null);
    assertThat(b.ttl(Duration.ofSeconds(30)).build().statementTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(b.ttl(Duration.ofSeconds(6)).build().statementTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(b.ttl(Duration.ofMillis(900)).build().statementTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.statementTimeout(Duration.ofSeconds(7)).build().statementTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThatThrownBy(() -> JdbcWorkerIdAssigner.builder().statementTimeout(Duration.ofMillis(500)))
        .hasMessage("jdbc-statement-timeout must be in [1000ms, 3600000ms] but was 500ms");
    JdbcWorkerIdAssigner fromProps = (JdbcWorkerIdAssigner) WorkerIdAssigners.create(Map.of("worker-assigner",
        "jdbc", "jdbc-url", "jdbc:h2:mem:x", "jdbc-statement-timeout", "3s"));
    assertThat(fromProps.statementTimeout()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void propertiesBuildASharedJdbcLeasedGenerator() {
    try (LeaseDatabase db = new LeaseDatabase(LeaseDatabase.Kind.MARIADB)) {
      Map<String, String> props = Map.of("worker-assigner", "jdbc", "jdbc-url", db.url(db.port()),
          "jdbc-create-table", "true", "space", "orders", "worker-id-min", "4", "worker-id-max", "5",
          "lease-ttl", TTL.toMillis() + "ms", "gene-bits", "4", "sequence-bits", "10");
      GeneIdRegistry.Handle<LeasedGeneGenerator> g = LeasedGenerators.sharedGenerator(props);
      try (GeneIdRegistry.Handle<LeasedGeneGenerator> again = LeasedGenerators.sharedGenerator(Map.copyOf(props))) {
        assertThat(again.generator()).isSameAs(g.generator());
        assertThat(g.generator().workerId()).isEqualTo(4);
        assertThat(g.nextIdFor(42L) & 15).isEqualTo(42 & 15);
      } finally {
        g.close();
      }
    }
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "jdbc")))
        .hasMessage("jdbc-url is required: a JDBC URL such as jdbc:mariadb://127.0.0.1:3306/ids");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "jdbc", "jdbc-user", "x")))
        .hasMessageStartingWith("worker-assigner=jdbc has no property 'jdbc-user'; allowed: ");
  }
}
