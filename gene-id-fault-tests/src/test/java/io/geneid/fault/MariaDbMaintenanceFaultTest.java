package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.jdbc.JdbcWorkerIdAssigner;
import io.geneid.core.testing.TestTime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33, 4: routine maintenance of the lease table on MariaDB ({@code OPTIMIZE TABLE}, an in-place
 * {@code ALTER TABLE ... ADD INDEX} as online schema tools run it) while three JVMs lease and issue. Maintenance is
 * not a failover: no process may log one, and a generator whose first id comes after it waited no longer for it than
 * one whose first id came before it.
 */
class MariaDbMaintenanceFaultTest {

  private static final Duration TTL = Duration.ofSeconds(2);
  private static final long OPTIMIZE_AT = 7_000;
  private static final long ALTER_AT = 11_000;

  @TempDir Path dir;

  @Test
  void optimizeAndInPlaceAddIndexAreNotTakenForAFailover() throws Exception {
    try (FaultTables db = new FaultTables(FaultTables.Kind.MARIADB)) {
      db.execute(JdbcWorkerIdAssigner.ddl(db.table));
      String space = "maintenance";
      // the space was in use before the run
      JdbcWorkerIdAssigner earlier = JdbcWorkerIdAssigner.builder().jdbcUrl(db.url(), null, null).table(db.table)
          .space(space).workerIds(0, 3).ttl(TTL).acquireTimeout(Duration.ofSeconds(30)).owner("earlier").build();
      earlier.release(earlier.acquire(1023), Instant.now());

      long start = System.currentTimeMillis();
      long[] optimizedAt = {0};
      FaultRun.Result r = new FaultRun("mariadb maintenance", dir)
          .props(Map.of("worker-assigner", "jdbc", "jdbc-url", db.url(), "jdbc-table", db.table, "space", space,
              "worker-id-max", "3", "lease-ttl", TTL.toSeconds() + "s", "lease-acquire-timeout", "20s",
              "jdbc-statement-timeout", FaultTables.STATEMENT_TIMEOUT))
          .jvms(3)
          .duration(Duration.ofSeconds(FaultRun.longProfile() ? 40 : 20))
          .at(Duration.ofMillis(OPTIMIZE_AT), "OPTIMIZE TABLE", c -> {
            FaultRun.awaitIdsFlowing(dir, Duration.ofSeconds(20)); // generators started before it issue
            optimizedAt[0] = System.currentTimeMillis();
            db.execute("OPTIMIZE TABLE " + db.table);
          })
          .at(Duration.ofMillis(ALTER_AT), "in-place ADD INDEX", c -> db.execute("ALTER TABLE " + db.table
              + " ADD INDEX " + db.table + "_expiry (expires_at), ALGORITHM=INPLACE, LOCK=NONE"))
          .run();

      // generators that issued their first id before the maintenance, and those that did after it (started after
      // it, or started before it and still waiting)
      long baseline = 0;
      long afterMaintenance = 0;
      int after = 0;
      List<String> waits = new java.util.ArrayList<>();
      for (long[] w : FaultRun.firstIdWaits(dir)) {
        waits.add("+" + (w[0] - w[1] - start) + " ms: " + w[1] + " ms");
        if (w[0] < optimizedAt[0]) {
          baseline = Math.max(baseline, w[1]);
        } else {
          afterMaintenance = Math.max(afterMaintenance, w[1]);
          after++;
        }
      }
      long failovers;
      try (Stream<Path> logs = Files.list(dir)) {
        failovers = logs.filter(p -> p.getFileName().toString().startsWith("log-")).flatMap(p -> {
          try {
            return Files.readAllLines(p).stream();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }).filter(l -> l.contains("failed over or was restored")).count();
      }
      System.out.printf("mariadb maintenance: %s; longest wait for a first id: %d ms before the maintenance, %d ms "
          + "after it (%d generators); failover warnings: %d; each generator's start and wait: %s%n", r, baseline,
          afterMaintenance, after, failovers, waits);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(failovers).as("processes that took maintenance for a failover").isZero();
      assertThat(baseline).as("the longest wait of the generators that first issued before the maintenance")
          .isPositive();
      assertThat(after).as("generators that first issued after the maintenance").isPositive();
      assertThat(afterMaintenance).as("longest wait for a first id after the maintenance (ms), against %d ms before",
          baseline).isLessThanOrEqualTo(baseline + TestTime.millis(1_500)); // a margin at the time scale
    }
  }
}
