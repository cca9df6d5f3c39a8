package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketFrozenException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketPlanner;
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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * 2 databases of 2 tables each (orders and items) grown to 4 databases by {@link JdbcBucketMover} while a writer
 * inserts orders and items without stopping and a reader queries by order id; subclasses name the database. At the end every acknowledged
 * row is present exactly once, every item sits with its order, a query by order id touches one physical table, and
 * the writer's only failures were {@link BucketFrozenException}s, each retried successfully.
 */
abstract class AbstractReshardEndToEndTest {

  abstract Backend backend();

  private static final Pattern NODE = Pattern.compile("^(ds_\\d) ::: .*\\b(t_order_\\d)\\b");

  @Test
  void growsFromTwoDatabasesToFourWhileWritingAndReading() throws Exception {
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

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong retries = new AtomicLong();
        ConcurrentLinkedQueue<Long> orders = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicReference<String> phase = new AtomicReference<>("before");
        Map<String, AtomicLong> writesByPhase = Map.of("before", new AtomicLong(), "during", new AtomicLong(),
            "after", new AtomicLong());
        AtomicLong writerStart = new AtomicLong();
        Thread writer = new Thread(() -> {
          try (Connection c = sharded.getConnection()) {
            writerStart.set(System.nanoTime());
            for (long n = 1; !stop.get(); n++) {
              long gene = n % 64;
              long order = (n << 6) | gene;
              long item = ((1_000_000L + n) << 6) | gene;
              retrying(() -> insert(c, "INSERT INTO t_order (id, customer) VALUES (?, ?)", order, "c" + order),
                  retries);
              orders.add(order);
              retrying(() -> insert(c, "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)", item, order,
                  "i" + item), retries);
              writesByPhase.get(phase.get()).incrementAndGet();
            }
          } catch (Throwable t) {
            unexpected.add(t);
          }
        });
        AtomicLong reads = new AtomicLong();
        Thread reader = new Thread(() -> {
          try (Connection c = sharded.getConnection();
               PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
            while (!stop.get()) {
              List<Long> recent = new ArrayList<>(orders);
              if (!recent.isEmpty()) {
                long id = recent.get((int) (reads.get() % recent.size()));
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                  if (!rs.next()) {
                    throw new AssertionError("acknowledged order " + id + " not found");
                  }
                }
                reads.incrementAndGet();
              }
              Thread.sleep(1);
            }
          } catch (Throwable t) {
            unexpected.add(t);
          }
        });
        writer.start();
        reader.start();
        long warmUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (writesByPhase.get("before").get() < 300 && unexpected.isEmpty() && System.nanoTime() < warmUp) {
          Thread.sleep(10);
        }
        long t0 = System.nanoTime();
        phase.set("during");
        JdbcBucketMover mover = JdbcBucketMover.of(store, "orders", Map.of(0, databases.physical("ds_0"), 1,
                databases.physical("ds_1"), 2, databases.physical("ds_2"), 3, databases.physical("ds_3")),
            List.of(new JdbcBucketMover.Table("id", b -> "t_order_" + (b / 2) % 2),
                new JdbcBucketMover.Table("id", b -> "t_item_" + (b / 2) % 2)),
            100, Duration.ofSeconds(10), Duration.ofMillis(50), Duration.ofSeconds(10));
        BucketMap target = BucketPlanner.plan(start, 4).next();
        List<JdbcBucketMover.MoveResult> moved = mover.moveTo(target);
        long moveNanos = System.nanoTime() - t0;
        phase.set("after");
        long afterStart = System.nanoTime();
        long deleted = mover.cleanup("test");
        long afterFrom = writesByPhase.get("after").get();
        long cooldown = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (writesByPhase.get("after").get() < afterFrom + 300 && unexpected.isEmpty()
            && System.nanoTime() < cooldown) {
          Thread.sleep(10);
        }
        stop.set(true);
        long end = System.nanoTime();
        writer.join();
        reader.join();

        assertThat(unexpected).as("writer and reader failures other than freezes").isEmpty();
        assertThat(moved).hasSize(32);
        assertThat(store.load("orders").orElseThrow().targets()).containsExactly(target.targets());
        long rowsMoved = moved.stream().mapToLong(JdbcBucketMover.MoveResult::rowsCopied).sum();
        assertThat(deleted).isEqualTo(rowsMoved);

        // every acknowledged row exactly once, every item with its order
        List<Long> acknowledged = new ArrayList<>(orders);
        Map<Long, String> orderNodes = new java.util.HashMap<>();
        Map<Long, String> itemNodes = new java.util.HashMap<>();
        long orderRows = 0;
        long itemRows = 0;
        for (int d = 0; d < 4; d++) {
          try (Connection c = databases.physical("ds_" + d).getConnection()) {
            for (int t = 0; t < 2; t++) {
              orderRows += collect(c, "SELECT id FROM t_order_" + t, "ds_" + d + ".t_" + t, orderNodes);
              itemRows += collect(c, "SELECT order_id FROM t_item_" + t, "ds_" + d + ".t_" + t, itemNodes);
            }
          }
        }
        assertThat(orderRows).as("order rows, none twice").isEqualTo(orderNodes.size());
        assertThat(orderNodes.keySet()).containsExactlyInAnyOrderElementsOf(acknowledged);
        assertThat(itemRows).as("item rows").isEqualTo(itemNodes.size());
        itemNodes.forEach((order, node) -> assertThat(orderNodes.get(order)).as("node of order %d", order)
            .isEqualTo(node));
        // a query by order id touches one physical table, the one the new map names
        try (Connection c = sharded.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
          for (long id : acknowledged.subList(0, Math.min(200, acknowledged.size()))) {
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
            assertThat(nodes).containsExactly("ds_" + target.target((int) (id & 63)));
          }
        }
        long longestFreeze = moved.stream().mapToLong(r -> r.frozenFor().toMillis()).max().orElse(0);
        System.out.printf("reshard %s: %d buckets moved, %d rows moved (orders and items), longest freeze %d ms,"
                + " writer (order + item) per second before/during/after %.0f/%.0f/%.0f (move took %d ms), %d freeze"
                + " retries, %d reads, rows lost 0, duplicated 0%n", backend(), moved.size(), rowsMoved, longestFreeze,
            rate(writesByPhase.get("before").get(), t0 - writerStart.get()),
            rate(writesByPhase.get("during").get(), moveNanos),
            rate(writesByPhase.get("after").get(), end - afterStart), moveNanos / 1_000_000, retries.get(),
            reads.get());
      }
    }
  }

  private static double rate(long writes, long nanos) {
    return nanos <= 0 ? 0 : writes * 1e9 / nanos;
  }

  private static long collect(Connection c, String sql, String node, Map<Long, String> into) throws SQLException {
    long n = 0;
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        into.put(rs.getLong(1), node);
        n++;
      }
    }
    return n;
  }

  interface Write {
    void run() throws SQLException;
  }

  private static void retrying(Write write, AtomicLong retries) throws SQLException, InterruptedException {
    while (true) {
      try {
        write.run();
        return;
      } catch (SQLException e) {
        Throwable t = e;
        while (t != null && !(t instanceof BucketFrozenException)) {
          t = t.getCause();
        }
        if (t == null) {
          throw e;
        }
        retries.incrementAndGet();
        Thread.sleep(5);
      }
    }
  }

  private static void insert(Connection c, String sql, Object... values) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < values.length; i++) {
        ps.setObject(i + 1, values[i]);
      }
      ps.executeUpdate();
    }
  }
}
