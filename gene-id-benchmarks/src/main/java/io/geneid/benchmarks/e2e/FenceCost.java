package io.geneid.benchmarks.e2e;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMove;
import io.geneid.jdbc.JdbcBucketMapStore;
import io.geneid.jdbc.JdbcBucketMover;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the database fence of a move costs the writers of the family (issue #38): plain JDBC writers insert rows of
 * every bucket but the moving one into the old database, one row per autocommit statement, while
 * {@link JdbcBucketMover} moves bucket 5 to the new database and {@code cleanup} runs. Reports the insert rate
 * without the fence, with it installed (between the move and cleanup), and the longest single insert while the mover
 * installs the triggers and while cleanup drops them (each a DDL statement that takes the table's metadata lock).
 *
 * <pre>
 *   mvn -B -q -pl gene-id-benchmarks -am package -DskipTests
 *   java -cp "gene-id-benchmarks/target/classes:$(cat gene-id-benchmarks/target/benchmark-classpath.txt)" \
 *     io.geneid.benchmarks.e2e.FenceCost --db mariadb --seconds 10 --writers 4
 * </pre>
 */
public final class FenceCost {

  private static final int G = 6;
  private static final int BUCKET = 5;

  private FenceCost() {
  }

  /** Runs the measurement; {@code --db mariadb|postgresql|h2}, {@code --seconds}, {@code --writers}. */
  public static void main(String[] args) throws Exception {
    String db = "mariadb";
    int seconds = 10;
    int writers = 4;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--db" -> db = args[i + 1];
        case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
        case "--writers" -> writers = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; use --db mariadb|postgresql|h2, --seconds N, --writers N");
      }
    }
    E2eDatabases.Server server = E2eDatabases.Server.of(db);
    String run = "gid_fence_cost_" + Long.toString(System.nanoTime(), 36);
    List<String> names = List.of(run + "_0", run + "_1");
    for (String name : names) {
      admin(server, "CREATE DATABASE " + name);
    }
    List<HikariDataSource> pools = new ArrayList<>();
    try {
      for (String name : names) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url(server, name));
        config.setUsername(server == E2eDatabases.Server.H2 ? "sa" : userOf(server));
        config.setMaximumPoolSize(writers + 3);
        pools.add(new HikariDataSource(config));
      }
      for (HikariDataSource ds : pools) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
          st.execute("CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
        }
      }
      try (Connection c = pools.get(0).getConnection();
           PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, 'moving')")) {
        for (long n = 0; n < 1000; n++) {
          ps.setLong(1, (1_000_000_000L + n) << G | BUCKET);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      HikariConfig storeConfig = new HikariConfig();
      storeConfig.setJdbcUrl("jdbc:h2:mem:" + run + "_store;DB_CLOSE_DELAY=-1");
      try (HikariDataSource storePool = new HikariDataSource(storeConfig)) {
        JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
        int[] targets = new int[1 << G];
        targets[63] = 1;
        store.compareAndSet("orders", -1, BucketMap.of(G, targets).withVersion(1));
        JdbcBucketMover mover = JdbcBucketMover.builder(store, "orders").targets(Map.of(0, pools.get(0), 1,
            pools.get(1))).tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order"))).settle(Duration.ZERO)
            .build();

        Writers plain = new Writers(pools.get(0), writers);
        plain.runFor(Duration.ofSeconds(seconds));
        double without = plain.rate();

        Writers during = new Writers(pools.get(0), writers);
        during.start();
        long installStart = System.nanoTime();
        mover.move(new BucketMove(BUCKET, 0, 1));
        long installEnd = System.nanoTime();
        long installStall = during.stopAndLongestMillis();

        Writers fenced = new Writers(pools.get(0), writers);
        fenced.runFor(Duration.ofSeconds(seconds));
        double with = fenced.rate();

        Writers cleaning = new Writers(pools.get(0), writers);
        cleaning.start();
        mover.cleanup("fence cost");
        long dropStall = cleaning.stopAndLongestMillis();

        System.out.printf(Locale.ROOT, "fence cost %s, %d writers, %d s each: inserts/s without the fence %.0f,"
                + " with it %.0f (%.2fx); longest insert while the mover installed it and moved a bucket of 1000 rows"
                + " (%d ms) %d ms (%d ms without the fence: the longest of the first phase), while cleanup dropped it"
                + " %d ms; load average %.2f%n", db, writers, seconds, without, with, with / without,
            (installEnd - installStart) / 1_000_000, installStall, plain.longestMillis(), dropStall,
            java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      }
    } finally {
      pools.forEach(HikariDataSource::close);
      for (String name : names) {
        admin(server, "DROP DATABASE IF EXISTS " + name);
      }
    }
  }

  /** Writers inserting rows of every bucket but the moving one, one per autocommit statement. */
  private static final class Writers {
    private final HikariDataSource ds;
    private final int count;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong longestNanos = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private static final AtomicLong NEXT = new AtomicLong();
    private long startedNanos;
    private long stoppedNanos;

    Writers(HikariDataSource ds, int count) {
      this.ds = ds;
      this.count = count;
    }

    void start() {
      startedNanos = System.nanoTime();
      for (int w = 0; w < count; w++) {
        Thread t = new Thread(this::write, "fence-cost-writer-" + w);
        threads.add(t);
        t.start();
      }
    }

    private void write() {
      try (Connection c = ds.getConnection();
           PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, 'w')")) {
        while (!stop.get()) {
          long n = NEXT.incrementAndGet();
          long gene = n % 62 >= BUCKET ? n % 62 + 1 : n % 62; // 0..62 but the moving bucket (and 63)
          ps.setLong(1, n << G | gene);
          long t0 = System.nanoTime();
          ps.executeUpdate();
          longestNanos.accumulateAndGet(System.nanoTime() - t0, Math::max);
          rows.incrementAndGet();
        }
      } catch (SQLException | RuntimeException e) {
        failure.set(e);
      }
    }

    void runFor(Duration d) throws InterruptedException {
      start();
      Thread.sleep(d.toMillis()); // a measurement window, not a wait for a condition
      stopAndLongestMillis();
    }

    long stopAndLongestMillis() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      stoppedNanos = System.nanoTime();
      if (failure.get() != null) {
        throw new IllegalStateException("a writer failed", failure.get());
      }
      return longestMillis();
    }

    long longestMillis() {
      return longestNanos.get() / 1_000_000;
    }

    double rate() {
      return rows.get() * 1e9 / Math.max(1, stoppedNanos - startedNanos);
    }
  }

  private static String url(E2eDatabases.Server server, String database) {
    return switch (server) {
      case MARIADB -> "jdbc:mariadb://127.0.0.1:3306/" + database;
      case POSTGRESQL -> "jdbc:postgresql://127.0.0.1:5432/" + database;
      case H2 -> "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
    };
  }

  private static String userOf(E2eDatabases.Server server) {
    return server == E2eDatabases.Server.POSTGRESQL ? "postgres" : "root";
  }

  private static void admin(E2eDatabases.Server server, String sql) throws SQLException {
    if (server == E2eDatabases.Server.H2) {
      return; // an in-memory database exists once connected to
    }
    try (Connection c = DriverManager.getConnection(url(server, "test"), userOf(server), "");
         Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
