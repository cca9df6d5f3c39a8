package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.lease.WorkerLease;
import io.geneid.core.testing.TcpProxy;
import io.geneid.jdbc.JdbcWorkerIdAssigner;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33, 1: a PostgreSQL primary fails over to an asynchronous standby that missed the last writes. A private
 * primary streams to a private standby through a TCP proxy; the proxy is cut, so the standby misses what follows: a
 * holder JVM leases the pool's one worker id on the primary and issues. Then the primary crashes and the standby is
 * promoted (its last checkpoint still names the old timeline, and it has the primary's system identifier and table
 * OID), and a second JVM, whose store is the promoted standby, leases from the same space and issues. The holder
 * issues until its lease runs out (its renewals fail against the crashed primary). No id may be issued twice.
 */
class PostgresFailoverFaultTest {

  private static final Duration TTL = Duration.ofSeconds(3);

  @TempDir Path dir;

  @Test
  void promotingAnAsyncStandbyThatMissedAGrantNeverDuplicates() throws Exception {
    String table = "gid_failover_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    String space = "failover";
    try (PrivatePostgres primary = PrivatePostgres.primary();
        TcpProxy link = new TcpProxy("127.0.0.1", primary.port);
        PrivatePostgres standby = primary.standby(link.port())) {
      primary.execute(JdbcWorkerIdAssigner.ddl(table));
      // the space was in use before: worker id 0 leased and released on the primary, and streamed to the standby
      JdbcWorkerIdAssigner earlier = JdbcWorkerIdAssigner.builder().jdbcUrl(primary.url(), null, null).table(table)
          .space(space).workerIds(0, 0).ttl(TTL).acquireTimeout(Duration.ofSeconds(30)).owner("earlier").build();
      WorkerLease before = earlier.acquire(1023);
      earlier.release(before, Instant.now());
      standby.awaitReplayed(primary.queryString("SELECT pg_current_wal_lsn()"), Duration.ofSeconds(30));

      link.stop(); // the standby stops receiving WAL: it misses every write from here on
      long[] promotedAt = {0};
      FaultRun.Result r = new FaultRun("postgres failover", dir)
          .props(Map.of("worker-assigner", "jdbc", "jdbc-url", primary.url(), "jdbc-table", table, "space", space,
              "worker-id-max", "0", "lease-ttl", TTL.toSeconds() + "s", "lease-acquire-timeout", "20s"))
          .jvms(2)
          .duration(Duration.ofSeconds(FaultRun.longProfile() ? 40 : 16))
          // the new holder starts before the promotion and retries against the read-only standby until it is promoted
          .lateSteadySlot(1, Duration.ofSeconds(2), Map.of("jdbc-url", standby.url()))
          .at(Duration.ofSeconds(4), "the primary crashes, the standby is promoted", c -> {
            primary.crash();
            promotedAt[0] = System.currentTimeMillis();
            standby.promote();
            System.out.println("promoted standby: checkpoint timeline " + standby.queryString(
                "SELECT timeline_id FROM pg_control_checkpoint()") + ", WAL timeline " + standby.queryString(
                "SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)"));
          })
          .recovery(TTL.plusSeconds(4))
          .run();
      long firstOnStandby = FaultRun.firstIdMillis(dir, 1);
      System.out.printf("postgres failover: %s; the new holder's first id %d ms after pg_ctl promote began%n", r,
          firstOnStandby - promotedAt[0]);
      assertThat(firstOnStandby).as("the JVM on the promoted standby issued: " + r).isPositive();
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the failover: " + r).isPositive();
    }
  }
}
