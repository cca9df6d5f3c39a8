package io.geneid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.redis.PrivateRedis;
import io.geneid.core.testing.TestTime;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * #30 item 2: a lease or segment store that fails at start-up gives Spring Boot's "APPLICATION FAILED TO START"
 * report naming the property and the fix, with the cause in one line, instead of a stack trace. Each case starts a
 * context against a store that cannot serve it: Redis on a port where nothing listens, a private Redis with a
 * password given the wrong one, MariaDB (127.0.0.1:3306) without the table, with a wrong password and on a dead
 * port, a private PostgreSQL cluster that asks for a password given the wrong one, and a URL no driver takes.
 */
class StoreFailureReportsTest {

  @TempDir
  static Path dir;
  private static PrivateRedis redis;
  private static PrivatePostgres postgres;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class))
      // 1 s at the tests' time scale: on a busy machine a store that answers must not look like one that does not
      .withPropertyValues("gene-id.lease.ttl=" + TestTime.seconds(1).toMillis() + "ms",
          "gene-id.lease.acquire-timeout=0s", "gene-id.redis.timeout=" + TestTime.seconds(1).toMillis() + "ms");

  @BeforeAll
  static void stores() {
    redis = PrivateRedis.startWithPassword(dir.resolve("redis"), "right-password");
    postgres = PrivatePostgres.start("right-password");
  }

  @AfterAll
  static void stop() {
    redis.close();
    postgres.close();
  }

  private static String unique(String what) {
    return what + "_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  /** The report of a context that failed to start. */
  private static FailureAnalysis report(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    FailureAnalysis analysis = new GeneIdStoreFailureAnalyzer().analyze(context.getStartupFailure());
    assertThat(analysis).as("a report for %s", context.getStartupFailure()).isNotNull();
    return analysis;
  }

  @Test
  void redisOnAPortWhereNothingListens() {
    int port = PrivateRedis.freePort();
    runner.withPropertyValues("gene-id.worker-assigner=redis", "gene-id.redis.uri=redis://127.0.0.1:" + port + "/0")
        .run(context -> {
          FailureAnalysis report = report(context);
          // Netty's words differ between the Boot lines: "failed: Connection refused", "failed with error(-111): ..."
          assertThat(report.getDescription()).startsWith("The worker-id lease store (gene-id.redis.uri) cannot be"
              + " reached:\n  cannot reach the worker-id lease store, Redis at redis://127.0.0.1:" + port + "/0:"
              + " Unable to connect to 127.0.0.1/<unresolved>:" + port + " (ConnectException: finishConnect(..)"
              + " failed").endsWith(": Connection refused)");
          assertThat(report.getAction()).isEqualTo("Start Redis there, or set gene-id.redis.uri to the Redis that"
              + " holds the leases: redis://host:port/database, or redis://:password@host:port/database"
              + " (redis://user:password@host:port/database for an ACL user) when Redis asks for a password."
              + " gene-id.redis.timeout bounds the wait for each command.");
        });
  }

  /**
   * #41: a port that takes the connection but never answers (a hung Redis, a proxy to nowhere, another protocol):
   * Lettuce's handshake times out after gene-id.redis.timeout. The same report as a refused connection, and the
   * action names the property that bounds the wait.
   */
  @Test
  void redisThatTakesTheConnectionButNeverAnswersTheHandshake() throws Exception {
    // the kernel completes the connection into the backlog; nothing accepts it or answers
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = silent.getLocalPort();
      runner.withPropertyValues("gene-id.worker-assigner=redis", "gene-id.redis.uri=redis://127.0.0.1:" + port + "/0")
          .run(context -> {
            FailureAnalysis report = report(context);
            assertThat(report.getDescription()).startsWith("The worker-id lease store (gene-id.redis.uri) cannot be"
                + " reached:\n  ").contains("127.0.0.1:" + port);
            assertThat(report.getAction()).isEqualTo("Start Redis there, or set gene-id.redis.uri to the Redis that"
                + " holds the leases: redis://host:port/database, or redis://:password@host:port/database"
                + " (redis://user:password@host:port/database for an ACL user) when Redis asks for a password."
                + " gene-id.redis.timeout bounds the wait for each command.");
          });
    }
  }

  @Test
  void redisRefusingThePassword() {
    runner.withPropertyValues("gene-id.worker-assigner=redis",
        "gene-id.redis.uri=redis://:wrong-password@127.0.0.1:" + redis.port() + "/0").run(context -> {
          FailureAnalysis report = report(context);
          assertThat(report.getDescription()).isEqualTo("The worker-id lease store (gene-id.redis.uri) refused the"
              + " credentials:\n  the worker-id lease store, Redis at redis://127.0.0.1:" + redis.port() + "/0,"
              + " refused the credentials of the URI (authentication failed: WRONGPASS invalid username-password pair"
              + " or user is disabled.): check the user and password");
          assertThat(report.getAction()).isEqualTo("Put the password Redis expects (its requirepass, or an ACL"
              + " user's) in gene-id.redis.uri: redis://host:port/database, or redis://:password@host:port/database"
              + " (redis://user:password@host:port/database for an ACL user) when Redis asks for a password."
              + " Percent-encode / + @ : % and spaces in the password (p/w is p%2Fw).");
          assertThat(report.getDescription() + report.getAction()).doesNotContain("wrong-password");
        });
  }

  @Test
  void aLeaseTableThatDoesNotExist() {
    String table = unique("gid_missing");
    runner.withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=jdbc:mariadb://127.0.0.1:3306/test",
        "gene-id.jdbc.username=root", "gene-id.jdbc.lease-table=" + table).run(context -> {
          FailureAnalysis report = report(context);
          assertThat(report.getDescription()).startsWith("The worker-id lease store has no table " + table
              + " (gene-id.jdbc.lease-table) in gene-id.jdbc.url:\n  the worker-id lease store, database"
              + " mariadb://127.0.0.1:3306/test (table " + table + "), failed on acquire for space 'default': (conn=")
              .endsWith(") Table 'test." + table + "' doesn't exist (SQLState 42S02)");
          assertThat(report.getAction()).isEqualTo("Set gene-id.jdbc.create-tables: true to have gene-id create it"
              + " at start-up, or create it once with the DDL in docs/leases.md (or JdbcWorkerIdAssigner.ddl(table))."
              + " If it exists under another name or schema, set gene-id.jdbc.lease-table.");
        });
  }

  @Test
  void aSegmentTableThatDoesNotExist() {
    String table = unique("gid_missing_segment");
    runner.withPropertyValues("gene-id.worker-assigner=none", "gene-id.segment.store=jdbc",
        "gene-id.segment.tags=order", "gene-id.jdbc.url=jdbc:mariadb://127.0.0.1:3306/test",
        "gene-id.jdbc.username=root", "gene-id.jdbc.segment-table=" + table).run(context -> {
          FailureAnalysis report = report(context);
          assertThat(report.getDescription()).startsWith("The segment store has no table " + table
              + " (gene-id.jdbc.segment-table) in gene-id.jdbc.url:\n  the JDBC segment store (table " + table
              + ") could not hand out 1000 values of tag 'order': (conn=")
              .endsWith(") Table 'test." + table + "' doesn't exist");
          assertThat(report.getAction()).isEqualTo("Set gene-id.jdbc.create-tables: true to have gene-id create it"
              + " at start-up, or create it once with the DDL in docs/segments.md (or JdbcSegmentStore.ddl(table))."
              + " If it exists under another name or schema, set gene-id.jdbc.segment-table.");
        });
  }

  @Test
  void mariaDbRefusingThePassword() {
    runner.withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=jdbc:mariadb://127.0.0.1:3306/test",
        "gene-id.jdbc.username=root", "gene-id.jdbc.password=wrong-password").run(context -> {
          FailureAnalysis report = report(context);
          assertThat(report.getDescription()).startsWith("The database of the worker-id lease store"
              + " (gene-id.jdbc.url) refused the credentials:\n  the worker-id lease store, database"
              + " mariadb://127.0.0.1:3306/test (table gene_id_worker_lease), failed on acquire for space 'default':"
              + " (conn=").endsWith(") Access denied for user 'root'@'127.0.0.1' (using password: YES)"
              + " (SQLState 28000)");
          assertThat(report.getAction()).isEqualTo("Set the user and password the database accepts in"
              + " gene-id.jdbc.username and gene-id.jdbc.password (or in gene-id.jdbc.url).");
        });
  }

  @Test
  void postgreSqlRefusingThePassword() {
    runner.withPropertyValues("gene-id.worker-assigner=jdbc",
        "gene-id.jdbc.url=jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres",
        "gene-id.jdbc.username=postgres", "gene-id.jdbc.password=wrong-password",
        // the login timeout is a third of the TTL, at least 1 s: a JVM's first SCRAM exchange may take longer
        "gene-id.lease.ttl=15s").run(context -> {
          FailureAnalysis report = report(context);
          assertThat(report.getDescription()).isEqualTo("The database of the worker-id lease store"
              + " (gene-id.jdbc.url) refused the credentials:\n  the worker-id lease store, database"
              + " postgresql://127.0.0.1:" + postgres.port() + "/postgres (table gene_id_worker_lease), failed on"
              + " acquire for space 'default': FATAL: password authentication failed for user \"postgres\""
              + " (SQLState 28P01)");
          assertThat(report.getAction()).isEqualTo("Set the user and password the database accepts in"
              + " gene-id.jdbc.username and gene-id.jdbc.password (or in gene-id.jdbc.url).");
        });
  }

  @Test
  void aDatabaseOnAPortWhereNothingListens() {
    int port = PrivateRedis.freePort();
    runner.withPropertyValues("gene-id.worker-assigner=jdbc",
        "gene-id.jdbc.url=jdbc:mariadb://127.0.0.1:" + port + "/test", "gene-id.jdbc.username=root").run(context -> {
          FailureAnalysis report = report(context);
          assertThat(report.getDescription()).isEqualTo("The database of the worker-id lease store"
              + " (gene-id.jdbc.url) cannot be reached:\n  the worker-id lease store, database mariadb://127.0.0.1:"
              + port + "/test (table gene_id_worker_lease), failed on acquire for space 'default': Socket fail to"
              + " connect to 127.0.0.1:" + port + ". Connection refused (SQLState 08000)");
          assertThat(report.getAction()).isEqualTo("Start the database there, or set gene-id.jdbc.url (with"
              + " gene-id.jdbc.username and gene-id.jdbc.password) to the database that holds the table"
              + " gene_id_worker_lease.");
        });
  }

  @Test
  void aJdbcUrlNoDriverTakes() {
    runner.withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=jdbc:nosuchdb://127.0.0.1/test")
        .run(context -> {
          FailureAnalysis report = report(context);
          assertThat(report.getDescription()).isEqualTo("No JDBC driver on the class path takes the URL of the"
              + " worker-id lease store (gene-id.jdbc.url):\n  the worker-id lease store, database"
              + " nosuchdb://127.0.0.1/test (table gene_id_worker_lease), failed on acquire for space 'default': No"
              + " suitable driver found for nosuchdb://127.0.0.1/test (SQLState 08001)");
          assertThat(report.getAction()).isEqualTo("Add the database's JDBC driver to the dependencies"
              + " (org.mariadb.jdbc:mariadb-java-client, org.postgresql:postgresql, com.mysql:mysql-connector-j), or"
              + " fix the URL: jdbc:mariadb://host:3306/database, jdbc:postgresql://host:5432/database.");
        });
  }
}
