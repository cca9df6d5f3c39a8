package io.geneid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.redis.TestRedis;
import io.geneid.core.testing.TestTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * #30 item 6: a healthy start logs no WARN and says each thing once. With {@code create-tables: true} on MariaDB the
 * lease table's absence is asked of the catalog, not probed by a failing SELECT (whose error MariaDB's driver logs
 * at WARN as "Table ... doesn't exist"); the INFO lines name the table and the owner once each.
 */
@ExtendWith(OutputCaptureExtension.class)
class HealthyStartLogTest {

  private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/";
  private static String database;
  private static TestRedis redis;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class))
      .withPropertyValues("gene-id.lease.ttl=" + TestTime.seconds(1).toMillis() + "ms"); // leases on real stores

  @BeforeAll
  static void stores() throws SQLException {
    database = unique("gid_healthy");
    try (Connection c = DriverManager.getConnection(MARIADB + "test", "root", "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    }
    redis = new TestRedis("healthy");
  }

  @AfterAll
  static void drop() throws SQLException {
    redis.close();
    try (Connection c = DriverManager.getConnection(MARIADB + "test", "root", "");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + database);
    }
  }

  private static String unique(String what) {
    return what + "_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  @Test
  void aMariaDbLeaseTableCreatedAtStartUpLogsNoWarningAndNamesTheTableOnce(CapturedOutput output) {
    String table = unique("gid_lease");
    int from = output.getAll().length();
    runner.withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=" + MARIADB + database,
        "gene-id.jdbc.username=root", "gene-id.jdbc.create-tables=true", "gene-id.jdbc.lease-table=" + table,
        "gene-id.lease.space=" + unique("s"), "gene-id.lease.owner=p1", "gene-id.lease.worker-id-min=241",
        "gene-id.lease.worker-id-max=249")
        .run(context -> assertThat(context).hasNotFailed());
    String log = output.getAll().substring(from);
    assertThat(warnings(log, database)).as(log).isEmpty();
    assertThat(lines(log, "doesn't exist")).as(log).isEmpty();
    List<String> created = lines(log, "created the worker-id lease table");
    assertThat(created).as(log).hasSize(1);
    assertThat(created.get(0).split(Pattern.quote(table), -1)).as(created.get(0)).hasSize(2); // named once
    List<String> leased = lines(log, ": leased worker id");
    assertThat(leased).as(log).hasSize(1);
    assertThat(leased.get(0).split(" as p1\\b", -1)).as(leased.get(0)).hasSize(2);
    // the table exists now: found in the catalog, by its own name and qualified by its database from another one
    int again = output.getAll().length();
    for (String[] at : new String[][] {{database, table}, {"test", database + "." + table}}) {
      runner.withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=" + MARIADB + at[0],
          "gene-id.jdbc.username=root", "gene-id.jdbc.create-tables=true", "gene-id.jdbc.lease-table=" + at[1],
          "gene-id.lease.space=" + unique("s"), "gene-id.lease.worker-id-min=241", "gene-id.lease.worker-id-max=249")
          .run(context -> assertThat(context).hasNotFailed());
    }
    String later = output.getAll().substring(again);
    assertThat(warnings(later, database)).as(later).isEmpty();
    assertThat(lines(later, "created the worker-id lease table")).as(later).isEmpty();
  }

  @Test
  void aRedisLeaseNamesItsOwnerOnce(CapturedOutput output) {
    String space = unique("s");
    redis.agePool(space);
    int from = output.getAll().length();
    runner.withPropertyValues("gene-id.worker-assigner=redis", "gene-id.redis.uri=" + TestRedis.URI,
        "gene-id.redis.lease-key-prefix=" + redis.prefix, "gene-id.lease.space=" + space, "gene-id.lease.owner=p1",
        "gene-id.lease.worker-id-min=241", "gene-id.lease.worker-id-max=249")
        .run(context -> assertThat(context).hasNotFailed());
    String log = output.getAll().substring(from);
    assertThat(warnings(log, space)).as(log).isEmpty();
    List<String> leased = lines(log, ": leased worker id");
    assertThat(leased).as(log).hasSize(1);
    assertThat(leased.get(0).split(" as p1\\b", -1)).as(leased.get(0)).hasSize(2);
  }

  /**
   * The warnings in {@code log} about this test's store ({@code about}: its database or space). The capture holds
   * every thread's output, and generators or clients of earlier tests in this JVM may still warn about theirs.
   */
  private static List<String> warnings(String log, String about) {
    return log.lines().filter(l -> (l.contains(" WARN ") || l.startsWith("WARNING")) && l.contains(about)).toList();
  }

  private static List<String> lines(String log, String text) {
    return log.lines().filter(l -> l.contains(text)).toList();
  }
}
