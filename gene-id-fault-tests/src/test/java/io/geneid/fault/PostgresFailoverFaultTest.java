package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.lease.WorkerLease;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.segment.Segment;
import io.geneid.jdbc.JdbcSegmentStore;
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
              "worker-id-max", "0", "lease-ttl", TTL.toSeconds() + "s", "lease-acquire-timeout", "20s",
              "jdbc-statement-timeout", FaultTables.STATEMENT_TIMEOUT))
          .jvms(2)
          .duration(Duration.ofSeconds(FaultRun.longProfile() ? 40 : 24))
          // the new holder starts before the promotion and retries against the read-only standby until it is promoted
          .lateSteadySlot(1, Duration.ofSeconds(2), Map.of("jdbc-url", standby.url()))
          .at(Duration.ofSeconds(4), "the primary crashes, the standby is promoted", c -> {
            FaultRun.awaitIdsFlowing(dir, Duration.ofSeconds(20)); // the holder issues (the standby cannot grant yet)
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
      assertThat(FaultRun.firstIdMillis(dir, 0)).as("the holder issued before the promotion: " + r)
          .isPositive().isLessThan(promotedAt[0]);
      System.out.printf("postgres failover: %s; the new holder's first id %d ms after pg_ctl promote began%n", r,
          firstOnStandby - promotedAt[0]);
      assertThat(firstOnStandby).as("the JVM on the promoted standby issued: " + r).isPositive();
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the failover: " + r).isPositive();
    }
  }

  /**
   * Issue #33, c: the JDBC segment store cannot survive a failover to an asynchronous standby (a claim the standby
   * missed is handed out again), so it warns about a primary that streams to one, and not about a synchronous one.
   */
  @Test
  void aSegmentStoreWarnsOfAnAsyncStandbyWhoseFailoverHandsARangeOutAgain() throws Exception {
    String table = "gid_failover_seg_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    try (PrivatePostgres primary = PrivatePostgres.primary();
        TcpProxy link = new TcpProxy("127.0.0.1", primary.port);
        PrivatePostgres standby = primary.standby(link.port())) {
      primary.execute(JdbcSegmentStore.ddl(table));
      primary.execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
      primary.execute("SELECT pg_reload_conf()");
      awaitSyncState(primary, "sync");
      String quiet = captureErr(() -> store(primary, table).nextSegment("order", 100));
      assertThat(quiet).as("a synchronous standby is no risk").doesNotContain("without waiting for them");

      primary.execute("ALTER SYSTEM RESET synchronous_standby_names");
      primary.execute("SELECT pg_reload_conf()");
      awaitSyncState(primary, "async");
      JdbcSegmentStore onPrimary = store(primary, table);
      String warned = captureErr(() -> onPrimary.nextSegment("order", 100));
      assertThat(warned).as("the first claim on a primary with an asynchronous standby")
          .contains("WARN io.geneid.jdbc.JdbcSegmentStore")
          .contains("is on a PostgreSQL primary that streams to 1 standby(s) without waiting for them: ")
          .contains("(async); synchronous_standby_names = ''");

      standby.awaitReplayed(primary.queryString("SELECT pg_current_wal_lsn()"), Duration.ofSeconds(30));
      link.stop(); // the standby misses what follows
      Segment lost = onPrimary.nextSegment("order", 100);
      primary.crash();
      standby.promote();
      Segment again = store(standby, table).nextSegment("order", 100);
      System.out.printf("segment claimed on the primary %s, after the promotion %s%n", lost, again);
      assertThat(again).as("what the docs say the store cannot prevent: the promoted standby hands out %s again",
          lost).isEqualTo(lost);
    }
  }

  private static JdbcSegmentStore store(PrivatePostgres pg, String table) {
    return JdbcSegmentStore.builder().jdbcUrl(pg.url(), null, null).table(table).build();
  }

  private static void awaitSyncState(PrivatePostgres primary, String state) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!state.equals(primary.queryString("SELECT max(sync_state) FROM pg_stat_replication"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the standby did not become " + state + " within 30 s");
      }
      Thread.sleep(20);
    }
  }

  /** What {@code action} wrote to System.err (slf4j-simple's log). */
  private static String captureErr(ThrowingRunnable action) throws Exception {
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    java.io.PrintStream original = System.err;
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    String text = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    original.print(text);
    return text;
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
