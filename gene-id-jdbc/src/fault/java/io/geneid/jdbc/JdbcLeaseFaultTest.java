package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdException;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lease table under the store faults of issue #11 (DESIGN §3a): a restore of an older backup, a lost row, a
 * silent connection, a session time zone, a REPEATABLE READ default. Each test has a database of its own.
 */
class JdbcLeaseFaultTest {

  private static final Duration TTL = Duration.ofSeconds(1);

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

  /**
   * The full store-fault run once ended with 291 duplicate ids: a process whose query of the database identity hit
   * the outage (a reset connection) concluded that the database does not reveal its identity, for good, and so did
   * not notice the table being restored from an older copy later: it granted a worker id from a restored row while
   * its holder was still issuing. Before: B got worker id 0 at once. After: a failed identity query fails that one
   * call, and the next one notices the restore.
   */
  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aTransientErrorReadingTheDatabaseIdentityDoesNotHideALaterRestore(LeaseDatabase.Kind kind) throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      String space = newSpace();
      String url = db.url(db.port());
      JdbcWorkerIdAssigner earlier = assigner(url, space, "earlier", Duration.ZERO);
      earlier.release(earlier.acquire(255), Instant.EPOCH); // the row exists and is free
      List<List<Object>> backup = rows(db, space); // the backup

      JdbcWorkerIdAssigner a = assigner(url, space, "A", Duration.ZERO);
      WorkerLease la = a.acquire(255);
      HookedDataSource flaky = new HookedDataSource(url, sql -> sql.contains("information_schema.TABLES")
          || sql.contains("to_regclass"), () -> {
            throw new SQLException("Connection reset (injected)", "08S01");
          });
      JdbcWorkerIdAssigner b = JdbcWorkerIdAssigner.builder().dataSource(flaky).space(space).workerIds(0, 0)
          .ttl(TTL).acquireTimeout(Duration.ZERO).owner("B").build();
      assertThatThrownBy(() -> b.acquire(255, Duration.ZERO)).isInstanceOf(GeneIdException.class); // A holds it
      assertThat(flaky.ran).as("the identity query failed once").isTrue();

      Thread.sleep(1_100); // the re-created table gets another creation second (MariaDB keeps whole seconds)
      la = a.renew(la, Instant.now());
      recreate(db, space, backup);

      // B waits out the unknown history rather than fail, and gets worker id 0 only after A's lease ran out
      WorkerLease lb = b.acquire(255, Duration.ofMillis(300));
      assertThat(Instant.now()).as("B was granted worker id 0 from a restored row while A's lease (until %s) ran",
          la.expiresAt()).isAfter(la.expiresAt());
      assertThat(lb.workerId()).isZero();
    }
  }

  /**
   * The store-fault suite's third duplicate (31 ids, found while the machine was loaded): the lease table was
   * restored from a copy taken before the space was first used, so the restored table had neither the holders' rows
   * nor the pool row that records the database identity, and a new pool row looked like a new space: worker id 0
   * was granted at once while its holder issued until its next renewal found its row gone. Before: B got worker id
   * 0 at once. After: a space without a pool row (new, or restored from such a copy) is unknown history: the first
   * grant waits one TTL + slack + margin, as a new Redis pool does.
   */
  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aRestoreFromACopyTakenBeforeTheSpaceExistedIsUnknownHistory(LeaseDatabase.Kind kind) throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      String space = newSpace();
      String url = db.url(db.port());
      JdbcWorkerIdAssigner a = assigner(url, space, "A", Duration.ZERO);
      long start = System.currentTimeMillis();
      WorkerLease la = a.acquire(255);
      assertThat(System.currentTimeMillis() - start).as("a new space waits out one unknown history first")
          .isGreaterThanOrEqualTo(TTL.toMillis() + 2_000 - 100);
      la = a.renew(la, Instant.now());
      recreate(db, space, List.of()); // the copy was taken before the space existed

      JdbcWorkerIdAssigner b = assigner(url, space, "B", Duration.ZERO);
      WorkerLease lb = b.acquire(255);
      assertThat(Instant.now()).as("B was granted worker id 0 while A's lease (until %s) ran", la.expiresAt())
          .isAfter(la.expiresAt());
      assertThat(lb.workerId()).isZero();
      WorkerLease aLease = la;
      assertThatThrownBy(() -> a.renew(aLease, Instant.now())).isInstanceOf(WorkerLeaseLostException.class);
    }
  }

  /**
   * The store-fault suite's second duplicate (328 ids): a process read the database identity from the live table,
   * the table was restored from an older copy at that moment, and the pool row it read next was the restored one,
   * which records the same identity, so the restore went unnoticed by that process, which first-granted a worker id
   * the restored pool row no longer counted. Before: B got worker id 0 while A held it. After: the identity is read
   * again after the rows, and a change makes the attempt start over, which then notices the restore.
   */
  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aRestoreBetweenReadingTheIdentityAndThePoolRowIsNoticed(LeaseDatabase.Kind kind) throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      String space = newSpace();
      String url = db.url(db.port());
      JdbcWorkerIdAssigner earlier = assigner(url, space, "earlier", Duration.ZERO);
      earlier.release(earlier.acquire(255), Instant.EPOCH);
      List<List<Object>> backup = rows(db, space);
      JdbcWorkerIdAssigner a = assigner(url, space, "A", Duration.ZERO);
      WorkerLease la = a.acquire(255);
      Thread.sleep(1_100); // the re-created table gets another creation second (MariaDB keeps whole seconds)
      la = a.renew(la, Instant.now());

      // the restore lands right after B read the identity, before it reads the pool row
      HookedDataSource restoring = new HookedDataSource(url, sql -> sql.contains("worker_id = -1")
          && sql.startsWith("SELECT"), () -> recreate(db, space, backup));
      JdbcWorkerIdAssigner b = JdbcWorkerIdAssigner.builder().dataSource(restoring).space(space).workerIds(0, 0)
          .ttl(TTL).acquireTimeout(Duration.ZERO).owner("B").build();
      assertThatThrownBy(() -> b.acquire(255, Duration.ofMillis(300)))
          .as("B was granted worker id 0 from a restored row while A's lease (until %s) runs", la.expiresAt())
          .isInstanceOf(WorkerIdExhaustedException.class);
      assertThat(restoring.ran).as("the restore ran inside B's acquire").isTrue();
    }
  }

  /** A restore as a dump restore does it: the table dropped and created again with the backup's rows. */
  private static void recreate(LeaseDatabase db, String space, List<List<Object>> backup) {
    db.update("DROP TABLE " + db.table);
    db.update(JdbcWorkerIdAssigner.ddl(db.table));
    restore(db, space, backup);
  }

  interface SqlAction {
    void run() throws SQLException;
  }

  /** Connections to {@code url} that run {@code action} once, just before the first statement matching {@code sql}. */
  private static final class HookedDataSource implements javax.sql.DataSource {
    private final String url;
    private final java.util.function.Predicate<String> sql;
    private final SqlAction action;
    volatile boolean ran;

    HookedDataSource(String url, java.util.function.Predicate<String> sql, SqlAction action) {
      this.url = url;
      this.sql = sql;
      this.action = action;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = java.sql.DriverManager.getConnection(url);
      return (Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {Connection.class}, (proxy, method, args) -> {
            if (method.getName().equals("prepareStatement") && !ran && args != null
                && sql.test(String.valueOf(args[0]))) {
              ran = true;
              action.run();
            }
            try {
              return method.invoke(c, args);
            } catch (java.lang.reflect.InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public java.io.PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(java.io.PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public java.util.logging.Logger getParentLogger() {
      return java.util.logging.Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }

  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL", "H2"})
  void aLostRowIsUnknownHistoryNotAFreeWorkerId(LeaseDatabase.Kind kind) {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      String space = newSpace();
      String url = db.url(db.port());
      JdbcWorkerIdAssigner a = assigner(url, space, "A", Duration.ZERO);
      WorkerLease la = a.acquire(255);
      db.update("DELETE FROM " + db.table + " WHERE space_name = ? AND worker_id = 0", space); // lost: only this row

      JdbcWorkerIdAssigner impatient = assigner(url, space, "impatient", Duration.ZERO);
      assertThatThrownBy(() -> impatient.acquire(255, Duration.ofMillis(500)))
          .as("worker id 0 was granted at once although its holder may still issue ids")
          .isInstanceOf(WorkerIdExhaustedException.class)
          .hasMessageContaining("0 by (unknown history) until ");
      long noticed = System.currentTimeMillis();

      JdbcWorkerIdAssigner b = assigner(url, space, "B", Duration.ofSeconds(10));
      WorkerLease lb = b.acquire(255, Duration.ofMillis(500));
      long granted = System.currentTimeMillis();
      assertThat(lb.workerId()).isZero();
      // one TTL + the borrowing slack + 2 s after the row was found missing
      assertThat(granted - noticed).isGreaterThanOrEqualTo(TTL.toMillis() + 500 + 2_000 - 100);
      // and issuing starts above what the lost holder may have borrowed: database now + slack
      assertThat(lb.previousHighWaterMark().toEpochMilli()).isGreaterThanOrEqualTo(granted + 500 - 200);
      assertThatThrownBy(() -> a.renew(la, Instant.now())).isInstanceOf(WorkerLeaseLostException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(value = LeaseDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aDatabaseThatIsNowAnotherServerPutsThePoolUnderUnknownHistory(LeaseDatabase.Kind kind) {
    try (LeaseDatabase db = new LeaseDatabase(kind)) {
      String space = newSpace();
      String url = db.url(db.port());
      JdbcWorkerIdAssigner a = assigner(url, space, "A", Duration.ZERO);
      a.release(a.acquire(255), Instant.EPOCH);
      long identity = poolIdentity(db, space);
      assertThat(identity).as("the database identity recorded in the pool row").isNotZero();
      // the pool was last used on another server (a failover, a restore elsewhere): simulated by its record
      db.update("UPDATE " + db.table + " SET version = ? WHERE space_name = ? AND worker_id = -1", identity ^ 0x5a5a,
          space);

      // even an acquire that would not wait waits out the unknown history, then gets the released worker id
      long start = System.currentTimeMillis();
      WorkerLease lb = assigner(url, space, "B", Duration.ZERO).acquire(255, Duration.ZERO);
      assertThat(lb.workerId()).isZero();
      assertThat(System.currentTimeMillis() - start).isGreaterThanOrEqualTo(TTL.toMillis() + 2_000 - 100);
      assertThat(poolIdentity(db, space)).as("the pool now records this database").isEqualTo(identity);
    }
  }

  private static long poolIdentity(LeaseDatabase db, String space) {
    try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("SELECT version FROM " + db.table
        + " WHERE space_name = ? AND worker_id = -1")) {
      ps.setString(1, space);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("the pool row of %s", space).isTrue();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
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
        io.geneid.core.lease.LeasedGeneGenerator.builder().assigner(assigner(url, space, "logger", Duration.ZERO))
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
      assertThat(log.lines().filter(l -> l.contains(" INFO ") && l.contains("worker ids of space '" + space + "' in "
          + store + " have no known history (a new space, or the table was restored or failed over): the first is"
          + " granted in "))).as("the new space's wait, told once").hasSize(1);
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
