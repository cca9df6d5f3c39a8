package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketFrozenException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketPlanner;
import io.geneid.core.bucket.BucketState;
import io.geneid.jdbc.JdbcBucketMapStore;
import io.geneid.jdbc.JdbcBucketMover;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The live move of issue #29: 2 databases of orders and items (items keyed by {@code order_id}, several per order,
 * as docs/resharding.md shows) grown to 4 by {@link JdbcBucketMover} while two writers insert, update and delete
 * orders with their items (a transaction per statement, retried when refused by the freeze or on a deadlock), a third
 * updates orders in transactions it holds open for 300 ms, across freezes, and every progress step runs a full scan through ShardingSphere. The mover is
 * interrupted in the middle of a bucket and resumed, two buckets are moved back before cleanup, then cleanup runs.
 * At the end every acknowledged order and item is present exactly once, with its last acknowledged content, on the
 * node the map names, no deleted row is back, and no scan ever returned a row twice.
 */
abstract class AbstractReshardEndToEndTest {

  abstract Backend backend();

  private static final Pattern NODE = Pattern.compile("^(ds_\\d) ::: .*\\b(t_order_\\d)\\b");
  private static final int ITEMS_PER_ORDER = 3;

  /** What the writers had acknowledged: each order's customer, each item's order, the deleted orders. */
  private final Map<Long, String> orders = new ConcurrentHashMap<>();
  private final Map<Long, Long> items = new ConcurrentHashMap<>();
  private final Set<Long> deleted = ConcurrentHashMap.newKeySet();
  private final AtomicLong retries = new AtomicLong();
  private final AtomicLong rollbacks = new AtomicLong();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong stringKeyed = new AtomicLong();
  private final AtomicLong readMisses = new AtomicLong();
  private final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean stop = new AtomicBoolean();

  private final List<HikariDataSource> moverPools = new ArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void closeMoverPools() {
    moverPools.forEach(HikariDataSource::close);
  }

  @Test
  void growsFromTwoDatabasesToFourUnderWritesOpenTransactionsAnInterruptionAndAMoveBack() throws Exception {
    String yaml = GeneBucketFreezeTest.yaml().replace("ds_${0..1}", "ds_${0..3}");
    HikariConfig storeConfig = new HikariConfig();
    storeConfig.setJdbcUrl("jdbc:h2:mem:gid_reshard_store_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    try (HikariDataSource storePool = new HikariDataSource(storeConfig);
         ShardedDatabases databases = new ShardedDatabases(backend(), 4, 2)) {
      JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
      DataSource sharded = databases.shardingSphere(yaml);
      GeneBucketShardingAlgorithm db = GeneBucketFreezeTest.algorithm(sharded, "gene_db");
      BucketMap start = db.map().withVersion(1);
      assertThat(store.compareAndSet("orders", -1, start)).isTrue();
      try (BucketMapRouter router = BucketMapRouter.builder(store, "orders").routerId("app-1")
          .refreshInterval(Duration.ofMillis(20)).staleAfter(Duration.ofSeconds(2)).onNewMap(db::useMap).build()) {
        router.start();
        db.follow(router);

        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
          int writer = w;
          threads.add(new Thread(() -> write(sharded, writer), "writer-" + w));
        }
        AtomicLong holds = new AtomicLong();
        AtomicLong heldAcrossAChange = new AtomicLong();
        threads.add(new Thread(() -> hold(sharded, store, holds, heldAcrossAChange), "holder"));
        threads.forEach(Thread::start);
        awaitAcknowledged(300);

        for (int d = 0; d < 4; d++) { // the mover's own pools, as a mover in a process of its own has
          CountingDataSource ds = databases.dataSources.get("ds_" + d);
          HikariConfig config = new HikariConfig();
          config.setJdbcUrl(ds.getUrl());
          config.setUsername(ds.getUsername());
          config.setPassword(ds.getPassword());
          config.setMaximumPoolSize(3);
          moverPools.add(new HikariDataSource(config));
        }
        // every step of the mover (each batch, each bucket) scans both tables through ShardingSphere
        AtomicLong scans = new AtomicLong();
        AtomicLong refusedScans = new AtomicLong();
        List<String> doubleCounts = new ArrayList<>();
        Consumer<JdbcBucketMover.Progress> scan = p -> {
          scans.incrementAndGet();
          for (String table : List.of("t_order", "t_item")) {
            int twice = twice(sharded, table);
            if (twice < 0) {
              refusedScans.incrementAndGet(); // a bucket SWITCHING: the router has not yet seen its MOVED
            } else if (twice > 0) {
              doubleCounts.add(twice + " rows of " + table + " twice after " + p.describe());
            }
          }
        };
        JdbcBucketMover.Builder mover = JdbcBucketMover.builder(store, "orders")
            .targets(Map.of(0, moverPools.get(0), 1, moverPools.get(1), 2, moverPools.get(2), 3, moverPools.get(3)))
            .tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order_" + (b / 2) % 2),
                new JdbcBucketMover.Table("order_id", b -> "t_item_" + (b / 2) % 2)))
            .batchSize(20).settle(Duration.ofMillis(50)).routerWait(Duration.ofSeconds(10))
            .liveWindow(Duration.ofSeconds(10)).transactionWait(Duration.ofSeconds(10));
        BucketMap target = BucketPlanner.plan(start, 4).next();
        long t0 = System.nanoTime();

        // the first run is interrupted in the middle of its 11th bucket
        long[] rowsAtTen = {-1};
        JdbcBucketMover first = mover.progressListener(p -> {
          scan.accept(p);
          if (p.recorded().bucketsDone() == 10) {
            if (rowsAtTen[0] < 0) {
              rowsAtTen[0] = p.recorded().rowsCopied();
            } else if (p.recorded().rowsCopied() > rowsAtTen[0]) {
              throw new IllegalStateException("interrupted");
            }
          }
        }).build();
        assertThatThrownBy(() -> first.moveTo(target)).hasMessage("interrupted");
        BucketMap interrupted = store.load("orders").orElseThrow();
        assertThat(interrupted.bucketsIn(BucketState.FROZEN)).as("the bucket it was copying").hasSize(1);

        List<JdbcBucketMover.MoveResult> moved = new ArrayList<>(mover.progressListener(scan).build()
            .moveTo(target));
        assertThat(store.progress("orders").orElseThrow().bucketsDone()).as("the whole move, across the resume")
            .isEqualTo(32);
        assertThat(store.progress("orders").orElseThrow().bucketsTotal()).isEqualTo(32);
        long rowsMoved = store.progress("orders").orElseThrow().rowsCopied();

        // two buckets go back before cleanup: a move like any other
        BucketMap back = target.withTarget(2, 0).withTarget(3, 1);
        List<JdbcBucketMover.MoveResult> movedBack = mover.progressListener(scan).build().moveTo(back);
        assertThat(movedBack).hasSize(2);
        rowsMoved += movedBack.stream().mapToLong(JdbcBucketMover.MoveResult::rowsCopied).sum();
        long moveNanos = System.nanoTime() - t0;
        long setAside = mover.build().cleanup("test");
        long cleaned = store.load("orders").orElseThrow().version();
        for (long deadline = System.nanoTime() + 10_000_000_000L; db.map().version() < cleaned
            && System.nanoTime() < deadline; ) {
          Thread.sleep(10); // the router follows the cleaned-up map, in which no bucket is SWITCHING
        }
        assertThat(twice(sharded, "t_order") + twice(sharded, "t_item")).as("a scan after cleanup").isZero();
        awaitAcknowledged(acknowledged.get() + 200);
        stop.set(true);
        for (Thread t : threads) {
          t.join(30_000);
        }

        assertThat(unexpected).as("writer failures other than freezes").isEmpty();
        assertThat(doubleCounts).as("scans at %d steps", scans.get()).isEmpty();
        BucketMap end = store.load("orders").orElseThrow();
        assertThat(end.targets()).containsExactly(back.targets());
        assertThat(end.bucketsIn(BucketState.NORMAL)).hasSize(64);

        // every acknowledged row exactly once, with its last acknowledged content, on its node; no delete undone
        Map<Long, String> orderNodes = new HashMap<>();
        Map<Long, String> customers = new HashMap<>();
        Map<Long, String> itemNodes = new HashMap<>();
        Map<Long, Long> itemOrders = new HashMap<>();
        long orderRows = 0;
        long itemRows = 0;
        for (int d = 0; d < 4; d++) {
          try (Connection c = databases.physical("ds_" + d).getConnection()) {
            for (int t = 0; t < 2; t++) {
              String node = "ds_" + d + ".t_" + t;
              try (PreparedStatement ps = c.prepareStatement("SELECT id, customer FROM t_order_" + t);
                   ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  orderRows++;
                  orderNodes.put(rs.getLong(1), node);
                  customers.put(rs.getLong(1), rs.getString(2));
                }
              }
              try (PreparedStatement ps = c.prepareStatement("SELECT id, order_id FROM t_item_" + t);
                   ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  itemRows++;
                  itemNodes.put(rs.getLong(1), node);
                  itemOrders.put(rs.getLong(1), rs.getLong(2));
                }
              }
            }
          }
        }
        Set<Long> lost = new HashSet<>(orders.keySet());
        lost.removeAll(customers.keySet());
        Set<Long> resurrected = new HashSet<>(customers.keySet());
        resurrected.retainAll(deleted);
        long stale = orders.entrySet().stream().filter(e -> customers.containsKey(e.getKey())
            && !customers.get(e.getKey()).equals(e.getValue())).count();
        assertThat(lost).as("acknowledged orders lost").isEmpty();
        assertThat(orderRows - orderNodes.size()).as("order rows twice").isZero();
        assertThat(stale).as("orders with an older content than acknowledged").isZero();
        assertThat(resurrected).as("deleted orders back").isEmpty();
        assertThat(customers.keySet()).as("no order nobody acknowledged").containsExactlyInAnyOrderElementsOf(
            orders.keySet());
        assertThat(itemRows - itemNodes.size()).as("item rows twice").isZero();
        assertThat(itemOrders).as("every acknowledged item, none of a deleted order").isEqualTo(items);
        itemNodes.forEach((item, node) -> assertThat(orderNodes.get(itemOrders.get(item))).as("node of item %d", item)
            .isEqualTo(node));
        orderNodes.forEach((id, node) -> assertThat(node).as("node of order %d", id)
            .isEqualTo("ds_" + end.target((int) (id & 63)) + ".t_" + (id & 63) / 2 % 2));
        // a query by order id touches one physical table, the one the map names
        try (Connection c = sharded.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
          for (long id : new ArrayList<>(orders.keySet()).subList(0, Math.min(200, orders.size()))) {
            databases.statements.clear();
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
              assertThat(rs.next()).isTrue();
            }
            List<String> nodes = new ArrayList<>();
            synchronized (databases.statements) {
              for (String s : databases.statements) {
                Matcher m = NODE.matcher(s);
                if (m.find()) {
                  nodes.add(m.group(1));
                }
              }
            }
            assertThat(nodes).containsExactly("ds_" + end.target((int) (id & 63)));
          }
        }
        moved.addAll(movedBack);
        long longestFreeze = moved.stream().mapToLong(r -> r.frozenFor().toMillis()).max().orElse(0);
        System.out.printf("reshard %s: %d + 2 back buckets moved (the first run interrupted in bucket 11), %d rows"
                + " copied (orders and items), %d set aside and cleaned up, longest freeze %d ms, move %d ms; %d writes"
                + " acknowledged (%d orders, %d items left, %d orders deleted), %d write retries (and %d after a deadlock), %d transactions held"
                + " 300 ms (%d across a map change, %d reads by key in them missed); %d item batches, %d updates by a"
                + " string key; %d scans (%d tables refused while switching), 0 rows twice;"
                + " lost 0, duplicated 0, stale 0,"
                + " resurrected 0%n", backend(), 32, rowsMoved, setAside, longestFreeze, moveNanos / 1_000_000,
            acknowledged.get(), orders.size(), items.size(), deleted.size(), retries.get(), rollbacks.get(), holds.get(),
            heldAcrossAChange.get(), readMisses.get(), batches.get(), stringKeyed.get(), scans.get(),
            refusedScans.get());
        assertThat(readMisses.get()).as("reads by key that missed a committed order inside a held transaction")
            .isZero();
      }
    }
  }

  /** Inserts (an order and its items), updates and deletes (an order and its items) its own orders, in a loop. */
  private void write(DataSource sharded, int writer) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<Long> mine = new ArrayList<>();
    try {
      for (long n = 1; !stop.get(); n++) {
        double r = random.nextDouble();
        if (mine.size() < 20 || r < 0.5) {
          long gene = n % 64;
          long order = ((writer + 1) * 10_000_000L + n) << 6 | gene;
          List<Long> its = new ArrayList<>();
          for (int k = 0; k < ITEMS_PER_ORDER; k++) {
            its.add(((writer + 1) * 100_000_000L + n * ITEMS_PER_ORDER + k) << 6 | gene);
          }
          // one statement per transaction: see retrying
          retrying(sharded, c -> execute(c, "INSERT INTO t_order (id, customer) VALUES (?, ?)", order, "v0"));
          if (n % 2 == 0) { // a JDBC batch (MyBatis-Plus saveBatch, Hibernate's flush), routed at addBatch
            retrying(sharded, c -> {
              try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)")) {
                for (long item : its) {
                  ps.setLong(1, item);
                  ps.setLong(2, order);
                  ps.setString(3, "i" + item);
                  ps.addBatch();
                }
                ps.executeBatch();
              }
            });
            batches.incrementAndGet();
          } else {
            for (long item : its) {
              retrying(sharded, c -> execute(c, "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)", item,
                  order, "i" + item));
            }
          }
          orders.put(order, "v0");
          its.forEach(item -> items.put(item, order));
          mine.add(order);
        } else if (r < 0.8) {
          long order = mine.get(random.nextInt(mine.size()));
          String customer = "v" + n;
          if (n % 3 == 0 && backend() != Backend.POSTGRESQL) {
            // the key bound as a string (PostgreSQL refuses to compare a bigint with text): ShardingSphere routes it
            // by the string's gene, which may be another node, where it changes nothing
            int[] changed = {0};
            retrying(sharded, c -> {
              try (PreparedStatement ps = c.prepareStatement("UPDATE t_order SET customer = ? WHERE id = ?")) {
                ps.setString(1, customer);
                ps.setString(2, String.valueOf(order));
                changed[0] = ps.executeUpdate();
              }
            });
            stringKeyed.incrementAndGet();
            if (changed[0] == 1) {
              orders.put(order, customer);
            }
          } else {
            retrying(sharded, c -> execute(c, "UPDATE t_order SET customer = ? WHERE id = ?", customer, order));
            orders.put(order, customer);
          }
        } else {
          long order = mine.remove(random.nextInt(mine.size()));
          retrying(sharded, c -> execute(c, "DELETE FROM t_item WHERE order_id = ?", order));
          retrying(sharded, c -> execute(c, "DELETE FROM t_order WHERE id = ?", order));
          orders.remove(order);
          items.values().removeIf(o -> o == order);
          deleted.add(order);
        }
        acknowledged.incrementAndGet();
      }
    } catch (Throwable t) {
      unexpected.add(t);
    }
  }

  /** Updates an order of its own and holds the transaction open for 300 ms before committing, in a loop. */
  private void hold(DataSource sharded, JdbcBucketMapStore store, AtomicLong holds, AtomicLong acrossAChange) {
    try {
      List<Long> mine = new ArrayList<>();
      for (long n = 0; n < 64; n++) {
        long order = (90_000_000L + n) << 6 | n;
        try (Connection c = sharded.getConnection()) { // before any freeze: autocommit
          execute(c, "INSERT INTO t_order (id, customer) VALUES (?, ?)", order, "h0");
        }
        orders.put(order, "h0");
        mine.add(order);
      }
      for (long n = 1; !stop.get(); n++) {
        long order = mine.get(ThreadLocalRandom.current().nextInt(mine.size()));
        String customer = "h" + n;
        long[] before = {0};
        retrying(sharded, c -> {
          if (backend() != Backend.H2) {
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // MariaDB's default
          }
          before[0] = store.load("orders").orElseThrow().version();
          execute(c, "UPDATE t_order SET customer = ? WHERE id = ?", customer, order);
          Thread.sleep(300); // a transaction held open, as an application doing slow work in it would
          for (long other : mine.subList(0, 4)) { // reads by key in the same snapshot, across map changes
            try (PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
              ps.setLong(1, other);
              try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                  readMisses.incrementAndGet();
                }
              }
            }
          }
        });
        orders.put(order, customer);
        holds.incrementAndGet();
        if (store.load("orders").orElseThrow().version() != before[0]) {
          acrossAChange.incrementAndGet();
        }
      }
    } catch (Throwable t) {
      unexpected.add(t);
    }
  }

  private void awaitAcknowledged(long count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (acknowledged.get() < count && unexpected.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(unexpected).isEmpty();
    assertThat(acknowledged.get()).as("writes acknowledged within 60 s").isGreaterThanOrEqualTo(count);
  }

  /**
   * How many rows a full scan through ShardingSphere (every data source) returns more than once, or -1 if it was
   * refused (SQLState 40001) while a bucket is switching.
   */
  private static int twice(DataSource sharded, String table) {
    try (Connection c = sharded.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table);
         ResultSet rs = ps.executeQuery()) {
      Set<Long> ids = new HashSet<>();
      int twice = 0;
      while (rs.next()) {
        if (!ids.add(rs.getLong(1))) {
          twice++;
        }
      }
      return twice;
    } catch (SQLException e) {
      if ("40001".equals(e.getSQLState()) && e.getMessage().contains("switching to their new node")) {
        return -1;
      }
      throw new IllegalStateException("a scan of " + table + " failed", e);
    }
  }

  interface Work {
    void run(Connection c) throws Exception;
  }

  /**
   * Runs {@code work} in a transaction of a connection of its own and commits; when the freeze refuses a write (or the
   * database reports a deadlock or serialization failure, SQLState 40xxx), rolls back, closes the connection and runs
   * it all again on a new one.
   */
  private void retrying(DataSource sharded, Work work) throws Exception {
    while (true) {
      try (Connection c = sharded.getConnection()) {
        c.setAutoCommit(false);
        try {
          work.run(c);
          c.commit();
          return;
        } catch (SQLException e) {
          c.rollback();
          Throwable t = e;
          while (t != null && !(t instanceof BucketFrozenException)) {
            t = t.getCause();
          }
          if (t == null && (e.getSQLState() == null || !e.getSQLState().startsWith("40"))) {
            throw e;
          }
          if (t == null) {
            rollbacks.incrementAndGet(); // a deadlock or serialization failure, retried as applications do
            continue;
          }
        }
      }
      retries.incrementAndGet();
      Thread.sleep(5);
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
