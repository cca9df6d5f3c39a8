package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
import io.geneid.core.testing.TestTime;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lease table under the store faults of issues #11 and #33 (DESIGN §3a): a restore of an older backup, a lost
 * row, a silent connection, a session time zone, a REPEATABLE READ default. Each test has a database of its own.
 */
class JdbcLeaseFaultTest {

  /** 1 s at the tests' time scale: short, for leases that lapse, but kept by a busy machine's renewals. */
  private static final Duration TTL = TestTime.seconds(1);

  private static String newSpace() {
    return "gid_fault_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  private static JdbcWorkerIdAssigner assigner(String url, String space, String owner, Duration acquireTimeout) {
    return JdbcWorkerIdAssigner.builder().jdbcUrl(url, null, null).createTable(true).space(space).workerIds(0, 0)
        .ttl(TTL).acquireTimeout(acquireTimeout).owner(owner).build();
  }

  // ---------------------------------------------------------------- scenario 3: the store goes back in time

  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aRestoredOlderBackupNeverLetsTwoHoldersKeepOneWorkerId(LeaseDatabase.Kind kind) {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      String space = newSpace();
      String url = db.url(db.port());
      JdbcWorkerIdAssigner earlier = assigner(url, space, "earlier", Duration.ZERO);
      earlier.release(earlier.acquire(255), Instant.EPOCH); // the row exists and is free
      List<List<Object>> backup = rows(db, space); // the nightly backup

      JdbcWorkerIdAssigner a = assigner(url, space, "A", Duration.ZERO);
      WorkerLease la = a.acquire(255);
      la = a.renew(la, Instant.now()); // A goes on

      restore(db, space, backup); // the database comes back from the older backup
      JdbcWorkerIdAssigner b = assigner(url, space, "B", Duration.ofSeconds(10));
      WorkerLease lb = b.acquire(255);
      assertThat(lb.workerId()).isEqualTo(la.workerId());

      WorkerLease aLease = la;
      assertThatThrownBy(() -> a.renew(aLease, Instant.now()))
          .as("A renewed although B holds worker id %d now", la.workerId())
          .isInstanceOf(WorkerLeaseLostException.class)
          .hasMessageStartingWith("worker id 0 of space '" + space + "' is no longer leased under token "
              + la.token());
      assertThat(lb.token()).as("B's token").isNotEqualTo(la.token()).isNotZero();
      assertThat(b.renew(lb, Instant.now()).token()).isEqualTo(lb.token());
    }
  }

  /** A silent rollback of the lease table, as operators and databases do it. */
  enum Rollback {
    /** The table restored from an older copy, as a dump restore does it: dropped, created, the copy's rows put back. */
    OLDER_COPY,
    /** The table restored from a copy taken before the space was first used. */
    COPY_BEFORE_THE_SPACE,
    /** The holder's row lost (an operator's DELETE, a partial restore). */
    LOST_ROW
  }

  static Stream<Arguments> rollbacks() {
    return Stream.of(LeaseDatabase.Kind.MARIADB, LeaseDatabase.Kind.POSTGRESQL)
        .flatMap(kind -> Stream.of(Rollback.values()).map(r -> Arguments.of(kind, r)));
  }

  /**
   * Issue #33: the table forgets a holder and cannot tell (DESIGN §3a "It forgets and cannot tell"). Holder A leases
   * the pool's one worker id and renews; the table is rolled back silently; generator B leases the same worker id
   * and issues. A may issue until its lease runs out plus its borrowing, so every id of B must lie above that. Before
   * #33 the store's own checks caught these three rollbacks (the identity of a re-created table, the pool row,
   * tombstones) but missed a promoted standby and took maintenance for a failover; now the lease protocol makes every
   * new holder wait, and this test holds that rule to account for the rollbacks the store no longer looks for.
   */
  @ParameterizedTest
  @MethodSource("rollbacks")
  void aSilentRollbackNeverLetsANewHolderIssueWhereTheForgottenOneCould(LeaseDatabase.Kind kind, Rollback rollback)
      throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      String space = newSpace();
      String url = db.url(db.port());
      Duration ttl = TestTime.seconds(2);
      JdbcWorkerIdAssigner earlier = JdbcWorkerIdAssigner.builder().jdbcUrl(url, null, null).createTable(true)
          .space(space).workerIds(0, 0).ttl(ttl).acquireTimeout(Duration.ofSeconds(30)).owner("earlier").build();
      earlier.release(earlier.acquire(255), Instant.EPOCH); // the row exists and is free
      List<List<Object>> backup = rows(db, space);

      JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder().jdbcUrl(url, null, null).space(space).workerIds(0, 0)
          .ttl(ttl).acquireTimeout(Duration.ofSeconds(30)).owner("A").build();
      WorkerLease la = a.renew(a.acquire(255), Instant.now());
      switch (rollback) {
        case OLDER_COPY -> recreate(db, space, backup);
        case COPY_BEFORE_THE_SPACE -> recreate(db, space, List.of());
        case LOST_ROW -> db.update("DELETE FROM " + db.table + " WHERE space_name = ? AND worker_id = 0", space);
      }
      long rolledBack = System.currentTimeMillis();
      long maxBorrow = io.geneid.core.snowflake.GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS;
      long lastOfA = la.expiresAt().toEpochMilli() + maxBorrow; // the furthest A may issue without renewing
      try (LeasedGeneGenerator b = LeasedGeneGenerator.builder().assigner(JdbcWorkerIdAssigner.builder()
          .jdbcUrl(url, null, null).space(space).workerIds(0, 0).ttl(ttl).acquireTimeout(Duration.ofSeconds(30))
          .owner("B").build()).maxBorrowMillis(maxBorrow).build()) {
        long firstOfB = GeneIdLayout.defaults().decode(awaitFirstId(b, Duration.ofSeconds(30))).timestamp()
            .toEpochMilli();
        System.out.printf("%s %s: B's first id %d ms after the rollback, %d ms after the last A could issue%n", kind,
            rollback, firstOfB - rolledBack, firstOfB - lastOfA);
        assertThat(b.lease().orElseThrow().workerId()).isZero();
        assertThat(firstOfB).as("B's first id (ms) against the last A could issue under its lease (ms)")
            .isGreaterThan(lastOfA);
      }
      assertThatThrownBy(() -> a.renew(la, Instant.now())).as("A renewed after the rollback")
          .isInstanceOf(WorkerLeaseLostException.class);
    }
  }

  /** The first id {@code g} issues, retrying while it may not issue yet. */
  private static long awaitFirstId(LeasedGeneGenerator g, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (;;) {
      try {
        return g.nextId(1);
      } catch (GeneIdException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(10);
      }
    }
  }

  /** A restore as a dump restore does it: the table dropped and created again with the backup's rows. */
  private static void recreate(LeaseDatabase db, String space, List<List<Object>> backup) {
    db.update("DROP TABLE " + db.table);
    db.update(JdbcWorkerIdAssigner.ddl(db.table));
    restore(db, space, backup);
  }

  // ---------------------------------------------------------------- #15: one line per lease event

  @org.junit.jupiter.api.Test
  void oneInfoLinePerLeaseEventNamingTheStoreWithoutCredentials() throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(LeaseDatabase.Kind.POSTGRESQL)) {
      String space = newSpace();
      String url = db.url(db.port()) + "&password=s3cret";
      java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
      java.io.PrintStream original = System.err;
      System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
      try {
        // the leased generator logs each lease event once; the store logs only what went wrong
        io.geneid.core.snowflake.LeasedGeneGenerator.builder().assigner(assigner(url, space, "logger", Duration.ZERO))
            .build().close();
        JdbcWorkerIdAssigner a = assigner(url, space, "logger", Duration.ZERO);
        WorkerLease lease = a.acquire(255);
        a.release(lease, Instant.EPOCH);
        a.release(lease, Instant.EPOCH); // no longer held: one WARN line, no stack trace
      } finally {
        System.setErr(original);
      }
      String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
      original.print(log);
      String store = "database postgresql://127.0.0.1:" + db.port() + "/" + db.name + " (table " + db.table + ")";
      List<String> lines = log.lines().filter(l -> l.contains("worker id 0 of space '" + space + "'")).toList();
      assertThat(lines).filteredOn(l -> l.contains("INFO") && l.contains("LeasedGeneGenerator: leased worker id 0 of"
          + " space '" + space + "' at " + store + " as ")).hasSize(1);
      assertThat(lines).filteredOn(l -> l.contains("INFO") && l.contains("LeasedGeneGenerator: released worker id 0"
          + " of space '" + space + "' at " + store + " with mark ")).hasSize(1);
      assertThat(lines).filteredOn(l -> l.contains(" WARN ") && l.contains("JdbcWorkerIdAssigner")
          && l.contains("worker id 0 of space '" + space + "' was not released in " + store)).hasSize(1);
      assertThat(lines).as("one line per event").hasSize(3);
      assertThat(log).doesNotContain("s3cret").doesNotContain("user=postgres").doesNotContain("\tat io.geneid");
    }
  }

  // ---------------------------------------------------------------- scenario 4: a silent connection

  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aBlackHoledDatabaseFailsEveryCallWithinTheStatementTimeout(LeaseDatabase.Kind kind) throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(kind); TcpProxy proxy = new TcpProxy("127.0.0.1", db.port())) {
      String space = newSpace();
      JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder().jdbcUrl(db.plainUrl(proxy.port()), null, null)
          .createTable(true).space(space).workerIds(0, 1).ttl(Duration.ofSeconds(3)).acquireTimeout(Duration.ZERO)
          .owner("silent").build(); // statement timeout: TTL / 3 = 1 s
      WorkerLease lease = a.acquire(255);

      proxy.blackHole();
      long renewMillis = SilentCalls.failsWithin(() -> a.renew(lease, Instant.now()), Duration.ofSeconds(20));
      long acquireMillis = SilentCalls.failsWithin(() -> a.acquire(255), Duration.ofSeconds(20));
      System.out.printf("%s black hole: renew failed after %d ms, acquire after %d ms%n", kind, renewMillis,
          acquireMillis);
      assertThat(renewMillis).as("renew through a black hole (ms)").isLessThan(4_000);
      assertThat(acquireMillis).as("acquire through a black hole (ms)").isLessThan(4_000);

      proxy.start();
      assertThat(a.renew(lease, Instant.now()).token()).isEqualTo(lease.token()); // a fresh call succeeds
    }
  }

  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aFrozenPooledConnectionFailsWithinTheStatementTimeout(LeaseDatabase.Kind kind) throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(kind); TcpProxy proxy = new TcpProxy("127.0.0.1", db.port())) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(db.plainUrl(proxy.port()));
      config.setMaximumPoolSize(1);
      config.setConnectionTimeout(1_000);
      try (HikariDataSource ds = new HikariDataSource(config)) {
        JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder().dataSource(ds).createTable(true).space(newSpace())
            .workerIds(0, 1).ttl(Duration.ofSeconds(3)).acquireTimeout(Duration.ZERO).owner("frozen").build();
        WorkerLease lease = a.acquire(255);

        proxy.freeze(); // the pool's connection goes silent
        long renewMillis = SilentCalls.failsWithin(() -> a.renew(lease, Instant.now()), Duration.ofSeconds(20));
        System.out.printf("%s frozen pooled connection: renew failed after %d ms%n", kind, renewMillis);
        assertThat(renewMillis).as("renew on a frozen connection (ms)").isLessThan(4_000);

        proxy.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (;;) { // the pool notices its broken connection on its own schedule
          try {
            assertThat(a.renew(lease, Instant.now()).token()).isEqualTo(lease.token());
            break;
          } catch (GeneIdException e) {
            if (System.nanoTime() > deadline) {
              throw e;
            }
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- scenario 10: time zone and isolation

  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class)
  void databaseNowIsUtcWhateverTheSessionTimeZone(LeaseDatabase.Kind kind) throws Exception {
    List<String> zones = kind == LeaseDatabase.Kind.MARIADB ? List.of("+05:30", "-08:00", "+13:00", "SYSTEM")
        : List.of("Europe/Berlin", "America/New_York", "Pacific/Kiritimati", "Asia/Kolkata");
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      for (String zone : zones) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url(db.port()));
        config.setMaximumPoolSize(1);
        config.setConnectionInitSql(kind == LeaseDatabase.Kind.MARIADB ? "SET time_zone = '" + zone + "'"
            : "SET TIME ZONE '" + zone + "'");
        try (HikariDataSource ds = new HikariDataSource(config)) {
          JdbcWorkerIdAssigner a = JdbcWorkerIdAssigner.builder().dataSource(ds).createTable(true)
              .space(newSpace()).workerIds(0, 0).ttl(Duration.ofSeconds(2)).owner("tz").build();
          long before = System.currentTimeMillis();
          WorkerLease lease = a.acquire(255);
          long after = System.currentTimeMillis();
          long dbNow = lease.expiresAt().toEpochMilli() - 2_000;
          assertThat(dbNow).as("database now in session time zone %s", zone).isBetween(before - 1_000, after + 1_000);
          a.release(lease, Instant.EPOCH);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"POSTGRESQL", "MARIADB"})
  void racingAcquirersOnRepeatableReadConnectionsGetDistinctIdsWithoutErrors(LeaseDatabase.Kind kind)
      throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(db.url(db.port()));
      config.setMaximumPoolSize(8);
      if (kind == LeaseDatabase.Kind.POSTGRESQL) {
        config.addDataSourceProperty("options", "-c default_transaction_isolation=repeatable\\ read");
      } else {
        config.setConnectionInitSql("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      }
      try (HikariDataSource ds = new HikariDataSource(config)) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
            ResultSet rs = s.executeQuery(kind == LeaseDatabase.Kind.POSTGRESQL
                ? "SHOW default_transaction_isolation" : "SELECT @@tx_isolation")) {
          rs.next();
          assertThat(rs.getString(1).toLowerCase()).contains("repeatable");
        }
        String space = newSpace();
        int n = 8;
        List<JdbcWorkerIdAssigner> assigners = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          assigners.add(JdbcWorkerIdAssigner.builder().dataSource(ds).createTable(true).space(space)
              .workerIds(0, n - 1).ttl(Duration.ofSeconds(5)).acquireTimeout(Duration.ofSeconds(5))
              .owner("rr" + i).build());
        }
        for (int round = 0; round < 3; round++) {
          List<WorkerLease> leases = acquireAtOnce(assigners);
          Set<Long> ids = new HashSet<>();
          leases.forEach(l -> ids.add(l.workerId()));
          assertThat(ids).as("round %d", round).hasSize(n);
          for (int i = 0; i < n; i++) {
            assigners.get(i).release(leases.get(i), Instant.EPOCH); // rows exist: the next round races on UPDATE
          }
        }
      }
    }
  }

  private static List<WorkerLease> acquireAtOnce(List<JdbcWorkerIdAssigner> assigners) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(assigners.size());
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<WorkerLease>> futures = new ArrayList<>();
      for (JdbcWorkerIdAssigner a : assigners) {
        futures.add(pool.submit(() -> {
          go.await();
          return a.acquire(255);
        }));
      }
      go.countDown();
      List<WorkerLease> leases = new ArrayList<>();
      for (Future<WorkerLease> f : futures) {
        leases.add(f.get(30, TimeUnit.SECONDS));
      }
      return leases;
    } finally {
      pool.shutdownNow();
    }
  }

  // ---------------------------------------------------------------- helpers

  private static List<List<Object>> rows(LeaseDatabase db, String space) {
    List<List<Object>> rows = new ArrayList<>();
    try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("SELECT space_name, worker_id, "
        + "holder, version, expires_at, high_water_mark FROM " + db.table + " WHERE space_name = ?")) {
      ps.setString(1, space);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(List.of(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
              rs.getLong(6)));
        }
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    assertThat(rows).isNotEmpty();
    return rows;
  }

  private static void restore(LeaseDatabase db, String space, List<List<Object>> backup) {
    db.update("DELETE FROM " + db.table + " WHERE space_name = ?", space);
    for (List<Object> row : backup) {
      db.update("INSERT INTO " + db.table + " (space_name, worker_id, holder, version, expires_at, high_water_mark) "
          + "VALUES (?, ?, ?, ?, ?, ?)", row.toArray());
    }
  }
}
