package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clock steps of -5 ms, -2 s, -10 s and +1 h in JVMs that share a pool of four worker ids in MariaDB, with a JVM
 * paused past its TTL and one killed: no id twice.
 */
class ClockStepFaultTest {

  @TempDir Path dir;

  @Test
  void clockStepsPausesAndKillsNeverDuplicate() throws Exception {
    try (FaultTables db = new FaultTables(FaultTables.Kind.MARIADB)) {
      boolean longRun = FaultRun.longProfile();
      FaultRun.Result r = new FaultRun("clock steps", dir)
          .props(Map.of("worker-assigner", "jdbc", "jdbc-url", db.url(), "jdbc-table", db.table,
              "jdbc-create-table", "true", "space", "clock", "worker-id-max", "3", "lease-ttl", "1s",
              "lease-acquire-timeout", "3s", "jdbc-statement-timeout", FaultTables.STATEMENT_TIMEOUT))
          .jvms(4)
          .duration(Duration.ofSeconds(longRun ? 60 : 15))
          .at(Duration.ofSeconds(3), "slot 1 clock -5 ms", c -> c.stepClock(1, -5))
          .at(Duration.ofSeconds(4), "slot 2 clock -2 s", c -> c.stepClock(2, -2_000))
          .at(Duration.ofSeconds(5), "pause slot 0", c -> c.pause(0))
          .at(Duration.ofMillis(7_500), "resume slot 0", c -> c.resume(0))
          .at(Duration.ofSeconds(6), "slot 3 clock -10 s", c -> c.stepClock(3, -10_000))
          .at(Duration.ofSeconds(8), "slot 1 clock +1 h", c -> c.stepClock(1, 3_600_000))
          .at(Duration.ofSeconds(9), "kill -9 slot 2", c -> c.kill(2))
          .run();
      System.out.println("clock steps: " + r);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      // proof that the pool issued, not a rate that depends on the machine: a busy one issues a fraction of what an
      // idle one does (JdbcFaultTest: 2,688 ids at load 26, where the bound was 10,000)
      assertThat(r.ids()).as("ids: " + r).isGreaterThan(1_000);
      assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
    }
  }
}
