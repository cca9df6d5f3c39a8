package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.testing.Await;
import io.geneid.core.GeneIdException;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.Segment;
import io.geneid.core.testing.TcpProxy;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The segment table under the faults of issue #11: many processes creating the table at once (#13), a silent
 * connection (#4), a REPEATABLE READ default (#10). Each test has a database of its own.
 */
class JdbcSegmentFaultTest {

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = {"POSTGRESQL", "MARIADB"})
  void manyProcessesCreatingTheTableAtOnceAllSucceed(SegmentDatabase.Kind kind) throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      DataSource unpooled = unpooled(db.url(), kind);
      int n = 48;
      ExecutorService pool = Executors.newFixedThreadPool(n);
      try {
        for (String table : List.of("seg_race_a", "seg_race_b")) {
          CountDownLatch go = new CountDownLatch(1);
          List<Future<?>> calls = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(unpooled).table(table).createTable(true)
                .build();
            calls.add(pool.submit(() -> {
              go.await();
              store.nextSegment("race", 1); // creates the table first
              return null;
            }));
          }
          go.countDown();
          List<Throwable> failures = new ArrayList<>();
          for (Future<?> f : calls) {
            try {
              f.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
              failures.add(e.getCause());
            }
          }
          System.out.printf("%s: %d of %d concurrent createTable calls on %s failed%s%n", kind, failures.size(), n,
              table, failures.isEmpty() ? "" : ", first: " + failures.get(0).getMessage());
          assertThat(failures).as("failed createTable calls").isEmpty();
          assertThat(JdbcSegmentStore.builder().dataSource(unpooled).table(table).build().nextSegment("t", 5))
              .isEqualTo(new Segment(1, 5));
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = {"POSTGRESQL", "MARIADB"})
  void aSilentDatabaseFailsAFetchWithinTheStatementTimeout(SegmentDatabase.Kind kind) throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind); TcpProxy proxy = new TcpProxy("127.0.0.1", kind.port)) {
      SegmentDatabase.createTable(db.pool());
      HikariDataSource ds = db.pool(db.url(proxy.port()), 2); // no socket timeout in the URL
      assertThat(JdbcSegmentStore.builder().dataSource(ds).build().statementTimeout()).isEqualTo(Duration.ofSeconds(5));
      JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(ds).statementTimeout(Duration.ofSeconds(2)).build();
      assertThat(store.nextSegment("order", 10)).isEqualTo(new Segment(1, 10));

      proxy.freeze(); // the pooled connection goes silent
      long frozen = SilentCalls.failsWithin(() -> store.nextSegment("order", 10), Duration.ofSeconds(20));
      proxy.blackHole(); // and new connections get no answer
      long blackHoled = SilentCalls.failsWithin(() -> store.nextSegment("order", 10), Duration.ofSeconds(20));
      System.out.printf("%s silent segment store: fetch failed after %d ms (frozen), %d ms (black hole)%n", kind,
          frozen, blackHoled);
      assertThat(frozen).as("statement timeout 2 s + 1 s of network timeout").isLessThan(4_500);
      assertThat(blackHoled).isLessThan(4_500);

      proxy.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      Segment next = null;
      while (next == null) {
        try {
          next = store.nextSegment("order", 10);
        } catch (GeneIdException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
        }
      }
      assertThat(next.start()).isGreaterThan(10);
    }
  }

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = {"POSTGRESQL", "MARIADB"})
  void aGeneratorOverASilentDatabaseFailsInBoundedTimeAndResumesWithoutReuse(SegmentDatabase.Kind kind)
      throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind); TcpProxy proxy = new TcpProxy("127.0.0.1", kind.port)) {
      SegmentDatabase.createTable(db.pool());
      JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(db.pool(db.url(proxy.port()), 2))
          .statementTimeout(Duration.ofSeconds(1)).build();
      try (GeneSegmentGenerator g = GeneSegmentGenerator.builder(store, "order").minStep(100).maxStep(100)
          .clock(() -> 1_800_000_000_000L).fetchTimeout(Duration.ofSeconds(5)).build()) {
        Set<Long> values = new HashSet<>();
        for (int i = 0; i < 10; i++) {
          values.add(g.valueOf(g.nextId()));
        }
        Await.until(() -> g.status().nextReady(), Duration.ofSeconds(10), "the next segment");
        proxy.blackHole();
        for (int i = 0; i < 190; i++) {
          assertThat(values.add(g.valueOf(g.nextId()))).isTrue();
        }
        long start = System.nanoTime();
        assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
            .hasMessageStartingWith("no ids left for tag 'order': its segments are used up and the segment store "
                + "JdbcSegmentStore[table=gene_id_segment] ");
        long failedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("%s generator over a black hole: nextId failed after %d ms%n", kind, failedMillis);
        assertThat(failedMillis).isLessThan(6_000);

        proxy.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        long resumed = -1;
        while (resumed < 0) {
          try {
            resumed = g.valueOf(g.nextId());
          } catch (GeneIdException e) {
            assertThat(System.nanoTime()).as("resumed within 15 s").isLessThan(deadline);
          }
        }
        assertThat(values.add(resumed)).isTrue();
        for (int i = 0; i < 200; i++) {
          long v = g.valueOf(g.nextId());
          assertThat(values.add(v)).as("value %d reused", v).isTrue();
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = "POSTGRESQL")
  void racingClaimsOnRepeatableReadConnectionsNeverFail(SegmentDatabase.Kind kind) throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(db.url());
      config.setUsername(kind.user);
      config.setMaximumPoolSize(6);
      config.addDataSourceProperty("options", "-c default_transaction_isolation=repeatable\\ read");
      try (HikariDataSource ds = new HikariDataSource(config)) {
        JdbcSegmentStore store = JdbcSegmentStore.builder().dataSource(ds).createTable(true).build();
        store.nextSegment("order", 1);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
          List<Future<List<Segment>>> futures = new ArrayList<>();
          for (int t = 0; t < 6; t++) {
            futures.add(pool.submit(() -> {
              List<Segment> mine = new ArrayList<>();
              for (int i = 0; i < 100; i++) {
                mine.add(store.nextSegment("order", 10));
              }
              return mine;
            }));
          }
          List<Segment> all = new ArrayList<>();
          for (Future<List<Segment>> f : futures) {
            all.addAll(f.get(60, TimeUnit.SECONDS));
          }
          assertThat(all.stream().map(Segment::start).distinct().count()).isEqualTo(600);
        } finally {
          pool.shutdownNow();
        }
      }
    }
  }

  /** A DataSource opening a new connection per call, as separate processes would. */
  private static DataSource unpooled(String url, SegmentDatabase.Kind kind) {
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        return DriverManager.getConnection(url, kind.user, kind.password);
      }

      @Override
      public Connection getConnection(String username, String password) throws SQLException {
        return DriverManager.getConnection(url, username, password);
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public Logger getParentLogger() {
        return Logger.getGlobal();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) {
        return false;
      }

      @Override
      public String toString() {
        return "unpooled " + url;
      }
    };
  }
}
