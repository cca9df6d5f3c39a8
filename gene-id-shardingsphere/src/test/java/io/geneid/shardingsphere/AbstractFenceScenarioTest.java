package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketState;
import io.geneid.jdbc.JdbcBucketMapStore;
import io.geneid.jdbc.JdbcBucketMover;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue #38: writes and readers the client-side freeze ({@code GENE_BUCKET_FREEZE}) cannot see, during a move of
 * bucket 2 from database 0 to database 2 of four, through ShardingSphere. The fence in the database refuses every
 * write of the moving bucket (SQLState 40001) however the client bound or batched it, and the mover waits for every
 * snapshot that could see a step half done. At the end every order is found by its id, once, with the content of its
 * last acknowledged write.
 */
abstract class AbstractFenceScenarioTest {

  abstract Backend backend();

  static final int BUCKET = 2;
  static final int ORDERS = 5;

  private ShardedDatabases databases;
  private HikariDataSource storePool;
  private final List<HikariDataSource> moverPools = new ArrayList<>();
  private BucketMapRouter router;
  DataSource sharded;
  JdbcBucketMapStore store;
  BucketMap start;
  /** Every order's id to its customer, as acknowledged. */
  final Map<Long, String> acknowledged = new TreeMap<>();

  @BeforeEach
  void setUp() throws Exception {
    String yaml = GeneBucketFreezeTest.yaml().replace("ds_${0..1}", "ds_${0..3}");
    HikariConfig storeConfig = new HikariConfig();
    storeConfig.setJdbcUrl("jdbc:h2:mem:gid_fence_store_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    storePool = new HikariDataSource(storeConfig);
    databases = new ShardedDatabases(backend(), 4, 2);
    store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
    sharded = databases.shardingSphere(yaml);
    GeneBucketShardingAlgorithm db = GeneBucketFreezeTest.algorithm(sharded, "gene_db");
    start = db.map().withVersion(1);
    assertThat(store.compareAndSet("orders", -1, start)).isTrue();
    try (Connection c = sharded.getConnection()) {
      for (long gene : new long[] {BUCKET, 3, 6}) {
        for (long n = 0; n < ORDERS; n++) {
          long order = (1000 + n) << 6 | gene;
          execute(c, "INSERT INTO t_order (id, customer) VALUES (?, ?)", order, "c" + order);
          acknowledged.put(order, "c" + order);
        }
      }
    }
    for (int d = 0; d < 4; d++) {
      CountingDataSource ds = databases.dataSources.get("ds_" + d);
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(ds.getUrl());
      config.setUsername(ds.getUsername());
      config.setPassword(ds.getPassword());
      config.setMaximumPoolSize(3);
      moverPools.add(new HikariDataSource(config));
    }
    router = BucketMapRouter.builder(store, "orders").routerId("app-1").refreshInterval(Duration.ofMillis(50))
        .staleAfter(Duration.ofSeconds(10)).onNewMap(db::useMap).build();
    router.start();
    db.follow(router);
  }

  @AfterEach
  void tearDown() throws Exception {
    router.close();
    moverPools.forEach(HikariDataSource::close);
    databases.close();
    storePool.close();
  }

  JdbcBucketMover mover(Consumer<JdbcBucketMover.Progress> listener) {
    return JdbcBucketMover.builder(store, "orders")
        .targets(Map.of(0, moverPools.get(0), 1, moverPools.get(1), 2, moverPools.get(2), 3, moverPools.get(3)))
        .tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order_" + (b / 2) % 2),
            new JdbcBucketMover.Table("order_id", b -> "t_item_" + (b / 2) % 2)))
        .batchSize(2).settle(Duration.ofMillis(20)).routerWait(Duration.ofSeconds(20))
        .liveWindow(Duration.ofSeconds(20)).transactionWait(Duration.ofSeconds(30)).progressListener(listener)
        .build();
  }

  BucketMap moved() {
    return start.withTarget(BUCKET, 2);
  }

  long order(int gene, int n) {
    return (1000L + n) << 6 | gene;
  }

  // scenarios 1-3: a batch routed before the move and run after it, a key bound as a string, an UPDATE that sets
  // the key into the moving bucket

  @Test
  void writesTheAuditCannotSeeAreRefusedByTheDatabase() throws Exception {
    List<String> outcomes = new ArrayList<>();
    try (Connection batching = sharded.getConnection();
         PreparedStatement batch = batching.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, ?)")) {
      for (int n = 0; n < ORDERS; n++) { // routed (and audited) now, while bucket 2 is NORMAL on database 0
        batch.setLong(1, order(BUCKET, 100 + n));
        batch.setString(2, "batched");
        batch.addBatch();
      }
      AtomicReference<Throwable> inListener = new AtomicReference<>();
      boolean[] once = {false};
      mover(p -> {
        if (once[0] || store.load("orders").orElseThrow().state(BUCKET) != BucketState.FROZEN) {
          return;
        }
        once[0] = true; // during the copy: bucket 2 FROZEN
        try {
          Connection c = sharded.getConnection();
          try (PreparedStatement ps = c.prepareStatement("UPDATE t_order SET customer = 'by string' WHERE id = ?")) {
            ps.setString(1, String.valueOf(order(BUCKET, 0)));
            outcomes.add("string key: " + outcome(ps::executeUpdate));
          }
          try (PreparedStatement ps = c.prepareStatement("UPDATE t_order SET id = ? WHERE id = ?")) {
            ps.setLong(1, order(BUCKET, 200));
            ps.setLong(2, order(3, 0));
            outcomes.add("key set into the bucket: " + outcome(ps::executeUpdate));
          }
          c.close();
        } catch (Throwable t) {
          inListener.set(t);
        }
        // the same UPDATE by a client that is not ShardingSphere, on the node of the row's old key
        try (Connection c = moverPools.get(1).getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE t_order_1 SET id = ? WHERE id = ?")) {
          ps.setLong(1, order(BUCKET, 200));
          ps.setLong(2, order(3, 0));
          outcomes.add("key set into the bucket, plain JDBC: " + outcome(ps::executeUpdate));
        } catch (Throwable t) {
          inListener.set(t);
        }
      }).moveTo(moved());
      assertThat(inListener.get()).isNull();
      outcomes.add("batch after the move: " + outcome(() -> batch.executeBatch().length));
    }
    System.out.printf("fence %s: %s%n", backend(), outcomes);
    assertThat(outcomes).as("each write the audit could not see, refused or changing nothing")
        .allSatisfy(o -> assertThat(o).matches(".*: (refused \\w+|0 rows)"))
        .contains("key set into the bucket, plain JDBC: refused 40001", "batch after the move: refused 40001");
    mover(p -> { }).cleanup("test");
    assertEveryOrderOnceAsAcknowledged();
  }

  // scenario 4: a REPEATABLE READ transaction that began during the copy reads by key after the move

  @Test
  void aRepeatableReadTransactionBegunDuringTheCopyFindsEveryRowByKey() throws Exception {
    assumeThat(backend()).as("H2 lists only sessions with uncommitted changes, not open snapshots")
        .isNotEqualTo(Backend.H2);
    CountDownLatch began = new CountDownLatch(1);
    AtomicReference<String> readInside = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try (Connection c = sharded.getConnection()) {
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM t_order")) {
          ps.executeQuery().close(); // a scan (allowed while FROZEN): a snapshot on every database, before the copy
        }
        began.countDown();
        // read by key once the bucket has moved, or after 3 s if the mover waits for this transaction
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (store.load("orders").orElseThrow().state(BUCKET) != BucketState.MOVED && System.nanoTime() < giveUp) {
          Thread.sleep(20);
        }
        int found = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
          for (int n = 0; n < ORDERS; n++) {
            ps.setLong(1, order(BUCKET, n));
            try (ResultSet rs = ps.executeQuery()) {
              found += rs.next() ? 1 : 0;
            }
          }
        }
        readInside.set(found + " of " + ORDERS + " (bucket " + store.load("orders").orElseThrow().state(BUCKET)
            + ")");
        c.commit();
      } catch (Throwable t) {
        failure.set(t);
        began.countDown();
      }
    }, "repeatable-read");
    boolean[] once = {false};
    mover(p -> {
      if (!once[0] && store.load("orders").orElseThrow().state(BUCKET) == BucketState.FROZEN) {
        once[0] = true;
        reader.start();
        try {
          assertThat(began.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }).moveTo(moved());
    reader.join(60_000);
    assertThat(failure.get()).isNull();
    System.out.printf("fence %s: repeatable read begun during the copy found %s%n", backend(), readInside.get());
    assertThat(readInside.get()).as("reads by key inside the transaction").startsWith(ORDERS + " of " + ORDERS);
    assertEveryOrderOnceAsAcknowledged();
  }

  // scenario 5: a read routed before the switch that reaches its database after the set-aside (it waited for a
  // pooled connection)

  @Test
  void aReadRoutedBeforeTheSwitchThatRunsAfterItFindsItsRow() throws Exception {
    CountingDataSource source = databases.dataSources.get("ds_0");
    AtomicReference<String> read = new AtomicReference<>("not run");
    CountDownLatch routed = new CountDownLatch(1);
    source.onConnect(() -> {
      if (Thread.currentThread().getName().equals("late-reader")) {
        routed.countDown(); // routed to database 0, the old node
        // the pool is slow: this connection comes once the bucket has moved, or after 10 s if the mover waits
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.load("orders").orElseThrow().state(BUCKET) != BucketState.MOVED && System.nanoTime() < giveUp) {
          Thread.onSpinWait();
        }
      }
    });
    Thread reader = new Thread(() -> {
      try (Connection c = sharded.getConnection();
           PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
        ps.setLong(1, order(BUCKET, 1)); // routed now, under the old map: to database 0
        try (ResultSet rs = ps.executeQuery()) {
          read.set(rs.next() ? rs.getString(1) : "nothing");
        }
      } catch (SQLException e) {
        read.set("refused " + e.getSQLState());
      }
    }, "late-reader");
    boolean[] once = {false};
    mover(p -> {
      if (!once[0] && store.load("orders").orElseThrow().state(BUCKET) == BucketState.FROZEN) {
        once[0] = true;
        reader.start();
        try {
          assertThat(routed.await(30, TimeUnit.SECONDS)).as("the read routed to the old node").isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }).moveTo(moved());
    reader.join(60_000);
    source.onConnect(() -> { });
    System.out.printf("fence %s: a read routed before the switch, run after it, found %s%n", backend(), read.get());
    assertThat(read.get()).as("a read by key routed before the switch").isEqualTo("c" + order(BUCKET, 1));
    assertEveryOrderOnceAsAcknowledged();
  }

  void assertEveryOrderOnceAsAcknowledged() throws Exception {
    // moveTo returns once MOVED is stored; the router follows within a refresh, and scans are refused until it does
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (GeneBucketFreezeTest.algorithm(sharded, "gene_db").map().version()
        < store.load("orders").orElseThrow().version()) {
      assertThat(System.nanoTime()).as("the router follows the stored map within 30 s").isLessThan(end);
      Thread.sleep(10);
    }
    try (Connection c = sharded.getConnection()) {
      Map<Long, String> found = new TreeMap<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT id, customer FROM t_order");
           ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          assertThat(found.put(rs.getLong(1), rs.getString(2))).as("order %d twice", rs.getLong(1)).isNull();
        }
      }
      assertThat(found).as("every order once, as acknowledged").isEqualTo(acknowledged);
      try (PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
        for (Map.Entry<Long, String> e : acknowledged.entrySet()) {
          ps.setLong(1, e.getKey());
          try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).as("order %d by its id", e.getKey()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(e.getValue());
          }
        }
      }
    }
  }

  @FunctionalInterface
  interface Write {
    int run() throws SQLException;
  }

  /** "refused 40001", "0 rows", or the rows an acknowledged write changed (which the test then fails on). */
  static String outcome(Write write) {
    try {
      int rows = write.run();
      return rows + " rows";
    } catch (SQLException e) {
      return "refused " + e.getSQLState();
    }
  }

  private static void execute(Connection c, String sql, Object... values) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < values.length; i++) {
        ps.setObject(i + 1, values[i]);
      }
      ps.executeUpdate();
    }
  }
}
