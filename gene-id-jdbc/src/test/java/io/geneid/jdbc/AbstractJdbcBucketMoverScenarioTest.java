package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.Genes;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ways a move lost or stranded rows (issue #29), each on two databases of the kind a subclass names: negative
 * keys, children keyed by a non-unique parent key, transactions open across the freeze, a bucket moved back before
 * cleanup, progress across a resume. The map store is H2 in memory: it is not what these tests are about.
 */
abstract class AbstractJdbcBucketMoverScenarioTest {

  static final int G = 6;
  static final int BUCKET = 5;

  abstract SegmentDatabase.Kind kind();

  private SegmentDatabase db0;
  private SegmentDatabase db1;
  HikariDataSource ds0;
  HikariDataSource ds1;
  private HikariDataSource storePool;
  JdbcBucketMapStore store;

  @BeforeEach
  void setUp() throws Exception {
    db0 = SegmentDatabase.create(kind()); // databases of their own on the shared service, dropped at the end
    db1 = SegmentDatabase.create(kind());
    ds0 = db0.pool();
    ds1 = db1.pool();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:h2:mem:mover_store_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    storePool = new HikariDataSource(config);
    store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
    for (DataSource ds : List.of(ds0, ds1)) {
      sql(ds, "CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
      sql(ds, "CREATE TABLE t_item (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, name VARCHAR(64) NOT NULL)");
    }
    int[] allOnZero = new int[1 << G];
    int[] targets = allOnZero.clone();
    targets[63] = 1; // two targets, every bucket but 63 on target 0
    assertThat(store.compareAndSet("orders", -1, BucketMap.of(G, targets).withVersion(1))).isTrue();
  }

  @AfterEach
  void tearDown() {
    storePool.close();
    db0.close();
    db1.close();
  }

  JdbcBucketMover.Builder mover() {
    return JdbcBucketMover.builder(store, "orders").targets(Map.of(0, ds0, 1, ds1))
        .tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order"),
            new JdbcBucketMover.Table("order_id", b -> "t_item")))
        .batchSize(50).settle(Duration.ZERO).routerWait(Duration.ofSeconds(2)).liveWindow(Duration.ofSeconds(5));
  }

  // scenario 2: negative keys are in the bucket of their low G bits, as routing computes it

  @Test
  void negativeKeysMoveWithTheirBucketAndCleanupRemovesThem() throws Exception {
    List<Object[]> orders = new ArrayList<>();
    for (long k = -20; k < 20; k++) {
      orders.add(new Object[] {k * 64 + BUCKET, "c" + k}); // 5, 69, -59, -123, ...: all gene 5
      orders.add(new Object[] {k * 64 + BUCKET + 1, "c" + k}); // gene 6, stays
    }
    insert(ds0, "INSERT INTO t_order (id, customer) VALUES (?, ?)", orders);
    mover().build().move(new BucketMove(BUCKET, 0, 1));

    assertThat(genes(keys(ds1, "t_order", "id"))).as("target 1 holds bucket 5 only").containsOnly(5L);
    assertThat(keys(ds1, "t_order", "id")).as("all 40 rows of bucket 5, 20 of them negative").hasSize(40)
        .contains(5L, 69L, -59L, -123L);
    assertThat(mover().build().cleanup("test")).isEqualTo(40);
    assertThat(genes(keys(ds0, "t_order", "id"))).as("what cleanup left on target 0").containsOnly(6L);
    assertThat(keys(ds0, "t_order", "id")).hasSize(40);
  }

  @Test
  void aCharacterKeyColumnIsRefusedByName() throws Exception {
    for (DataSource ds : List.of(ds0, ds1)) {
      sql(ds, "CREATE TABLE t_tag (code VARCHAR(32) PRIMARY KEY, label VARCHAR(32) NOT NULL)");
    }
    insert(ds0, "INSERT INTO t_tag (code, label) VALUES (?, ?)", List.<Object[]>of(new Object[] {"abc", "x"}));
    JdbcBucketMover mover = mover().tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order"),
        new JdbcBucketMover.Table("code", b -> "t_tag"))).build();
    assertThatThrownBy(() -> mover.move(new BucketMove(BUCKET, 0, 1)))
        .hasMessageStartingWith("t_tag.code on target 0 is a character column (")
        .hasMessageEndingWith("): the mover selects a bucket by the low 6 bits of a whole-number key, and a string"
            + " key's gene is its CRC-32C (Genes.of(String, int)), which SQL does not compute; move t_tag by hand"
            + " (see docs/resharding.md, 'Moving buckets offline') or key it by a whole number");
    assertThat(store.load("orders").orElseThrow().state(BUCKET)).as("refused before the freeze")
        .isEqualTo(BucketState.NORMAL);
  }

  // scenario 3: children keyed by a non-unique order_id, paged by the primary key

  @ParameterizedTest
  @ValueSource(ints = {20, 100, 500})
  void childrenKeyedByTheirOrderMoveCompletelyAtAnyBatchSize(int batch) throws Exception {
    List<Long> items = itemsOfBucket(120);
    JdbcBucketMover.MoveResult result = mover().batchSize(batch).build().move(new BucketMove(BUCKET, 0, 1));
    assertThat(result.rowsCopied()).isEqualTo(items.size() + 120);
    assertThat(keys(ds1, "t_item", "id")).containsExactlyElementsOf(items);
  }

  @Test
  void aCopyInterruptedMidBucketResumesWithoutSkippingOrDuplicating() throws Exception {
    List<Long> items = itemsOfBucket(120);
    int[] batches = {0};
    JdbcBucketMover crashing = mover().batchSize(20).progressListener(p -> {
      if (p.recorded().rowsCopied() > 0 && ++batches[0] == 15) {
        throw new IllegalStateException("killed");
      }
    }).build();
    assertThatThrownBy(() -> crashing.move(new BucketMove(BUCKET, 0, 1))).hasMessage("killed");
    assertThat(store.load("orders").orElseThrow().state(BUCKET)).isEqualTo(BucketState.FROZEN);
    long before = keys(ds1, "t_item_gid_copy", "id").size();
    assertThat(before).as("the crashed run copied part of the items").isBetween(1L, items.size() - 1L);
    assertThat(keys(ds1, "t_item", "id")).as("into the staging table, which nothing routes to").isEmpty();

    mover().batchSize(20).build().move(new BucketMove(BUCKET, 0, 1));
    assertThat(keys(ds1, "t_item", "id")).containsExactlyElementsOf(items);
    assertThat(keys(ds1, "t_order", "id")).hasSize(120);
  }

  // scenario 1: a transaction open across the freeze commits before the copy, and the copy compares row content

  @Test
  void aTransactionOpenAcrossTheFreezeIsWaitedForBeforeTheCopy() throws Exception {
    itemsOfBucket(40);
    long updated = 3L << G | BUCKET;
    long deleted = 4L << G | BUCKET;
    long inserted = 1000L << G | BUCKET;
    try (Connection open = DriverManager.getConnection(db0.url(), kind().user, kind().password)) {
      open.setAutoCommit(false);
      try (Statement s = open.createStatement()) { // what passed the audit before the freeze
        s.executeUpdate("UPDATE t_order SET customer = 'updated' WHERE id = " + updated);
        s.executeUpdate("DELETE FROM t_order WHERE id = " + deleted);
        s.executeUpdate("INSERT INTO t_order (id, customer) VALUES (" + inserted + ", 'inserted')");
      }
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread mover = new Thread(() -> {
        try {
          mover().build().move(new BucketMove(BUCKET, 0, 1));
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      mover.start();
      awaitFenced(Duration.ofSeconds(10)); // the fence row is in; its trigger waits for this transaction's lock
      // the mover must not get past this transaction: commit once it has switched, or after 2 s at the latest
      long giveUp = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (store.load("orders").orElseThrow().target(BUCKET) == 0 && mover.isAlive()
          && System.nanoTime() < giveUp) {
        Thread.sleep(10);
      }
      boolean switchedFirst = store.load("orders").orElseThrow().target(BUCKET) == 1;
      open.commit();
      mover.join(30_000);
      assertThat(failure.get()).isNull();
      assertThat(switchedFirst).as("the bucket switched while a transaction of before the freeze was open")
          .isFalse();
    }
    Map<Long, List<String>> source = rows(ds0, "t_order_gid_aside");
    source.keySet().removeIf(id -> Genes.of(id, G) != BUCKET);
    assertThat(rows(ds1, "t_order")).as("the new node has the committed transaction's rows")
        .containsEntry(updated, List.of(String.valueOf(updated), "updated"))
        .containsEntry(inserted, List.of(String.valueOf(inserted), "inserted"))
        .doesNotContainKey(deleted).isEqualTo(source);
  }

  @Test
  void aTransactionThatStaysOpenStopsTheMoveNamingIt() throws Exception {
    itemsOfBucket(10);
    try (Connection open = DriverManager.getConnection(db0.url(), kind().user, kind().password)) {
      open.setAutoCommit(false);
      try (Statement s = open.createStatement()) {
        s.executeUpdate("UPDATE t_order SET customer = 'open' WHERE id = " + (3L << G | BUCKET));
      }
      JdbcBucketMover mover = mover().transactionWait(Duration.ofMillis(500)).build();
      boolean h2 = kind() == SegmentDatabase.Kind.H2; // H2 creates a trigger beside an open transaction
      // MariaDB, PostgreSQL: the transaction holds the table's lock, the fence's trigger cannot be installed and
      // nothing freezes; H2: the bucket freezes and the wait for the transactions open at the fence gives up
      assertThatThrownBy(() -> mover.move(new BucketMove(BUCKET, 0, 1)))
          .hasMessageContaining(" on target 0, open for ")
          .hasMessageContaining(h2 ? "did not end within 500 ms of its fence (bucket 5); the bucket stays fenced and"
              + " its move unfinished"
              : "while installing the fence on t_order waited 500 ms for the table's lock (they hold it); nothing"
              + " was frozen: end that transaction, or raise the transaction wait, and run the move again");
      open.rollback();
      assertThat(store.load("orders").orElseThrow().state(BUCKET)).isEqualTo(h2 ? BucketState.FROZEN
          : BucketState.NORMAL);
      if (!h2) {
        assertThat(count(ds0, "gene_id_fence")).as("the failed run took its fence back").isZero();
      }
    }
    assertThat(mover().build().move(new BucketMove(BUCKET, 0, 1)).rowsCopied()).as("once it ended").isPositive();
  }

  @Test
  void verificationComparesEveryColumnNotCountAndKeySum() throws Exception {
    itemsOfBucket(10);
    // what a crashed run left, but stale: the bucket frozen, a first order copied with an old customer
    BucketMap map = store.load("orders").orElseThrow();
    assertThat(store.compareAndSet("orders", map.version(), map.withState(List.of(BUCKET), BucketState.FROZEN)
        .withVersion(map.version() + 1))).isTrue();
    sql(ds1, "CREATE TABLE t_order_gid_copy AS SELECT * FROM t_order WHERE 1 = 0");
    insert(ds1, "INSERT INTO t_order_gid_copy (id, customer) VALUES (?, ?)", List.<Object[]>of(new Object[] {
        (long) BUCKET, "stale"}));
    assertThatThrownBy(() -> mover().build().move(new BucketMove(BUCKET, 0, 1)))
        .hasMessage("bucket 5 of t_order differs after the copy: the first row that differs, in primary-key order,"
            + " is [5, c0] on target 0 but [5, stale] on target 1; the bucket stays frozen on target 0");
    assertThat(store.load("orders").orElseThrow().target(BUCKET)).isZero();
  }

  // scenario 5: a bucket moved back before cleanup, over its stale copy

  @Test
  void aBucketMovedBackBeforeCleanupKeepsEveryWriteMadeOnItsNewNode() throws Exception {
    itemsOfBucket(60);
    mover().build().move(new BucketMove(BUCKET, 0, 1));
    // the application writes the bucket on its new node; target 0 keeps the stale copy until cleanup
    sql(ds1, "UPDATE t_order SET customer = 'after the move'");
    sql(ds1, "DELETE FROM t_item WHERE order_id = " + (7L << G | BUCKET));
    insert(ds1, "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)", List.<Object[]>of(new Object[] {
        2_000_000L, 9L << G | BUCKET, "after the move"}));
    Map<Long, List<String>> orders = rows(ds1, "t_order");
    Map<Long, List<String>> items = rows(ds1, "t_item");

    mover().build().move(new BucketMove(BUCKET, 1, 0));
    assertThat(store.load("orders").orElseThrow().target(BUCKET)).isZero();
    assertThat(mover().build().cleanup("test")).as("the copies on target 1").isEqualTo(orders.size() + items.size());
    Map<Long, List<String>> back = rows(ds0, "t_order");
    back.keySet().removeIf(id -> Genes.of(id, G) != BUCKET);
    assertThat(back).as("every order as updated on target 1").isEqualTo(orders);
    Map<Long, List<String>> backItems = rows(ds0, "t_item");
    backItems.keySet().removeIf(id -> Genes.of(Long.parseLong(backItems.get(id).get(1)), G) != BUCKET);
    assertThat(backItems).as("every item as left on target 1").isEqualTo(items);
    assertThat(keys(ds1, "t_order", "id")).isEmpty();
  }

  // scenario 6: a scan (every data source, as ShardingSphere runs a statement without a sharding value) never
  // counts a row twice, and a read by key finds every row on the node the map names, at every step

  @Test
  void aScanNeverCountsARowTwiceAndAReadByKeyAlwaysFindsItsRow() throws Exception {
    List<Long> items = itemsOfBucket(60);
    long orders = 60;
    List<String> seen = new ArrayList<>();
    JdbcBucketMover.Builder watched = mover().batchSize(40).progressListener(p -> seen.add(check(orders,
        items.size() + 1, "after " + p.recorded().rowsCopied() + " rows")));
    watched.build().move(new BucketMove(BUCKET, 0, 1));
    seen.add(check(orders, items.size() + 1, "after the move"));
    watched.build().move(new BucketMove(BUCKET, 1, 0));
    seen.add(check(orders, items.size() + 1, "after moving back"));
    mover().build().cleanup("test");
    seen.add(check(orders, items.size() + 1, "after cleanup"));
    assertThat(seen).as("every step").containsOnly("");
  }

  /** "" when a scan counts each row once and each order is found on its node by key, else what is wrong. */
  private String check(long orders, long items, String step) {
    try {
      BucketMap map = store.load("orders").orElseThrow();
      DataSource owner = map.target(BUCKET) == 0 ? ds0 : ds1;
      long scannedOrders = count(ds0, "t_order") + count(ds1, "t_order");
      long scannedItems = count(ds0, "t_item") + count(ds1, "t_item");
      long found = 0;
      for (long o = 0; o < orders; o++) {
        found += count(owner, "t_order WHERE id = " + (o << G | BUCKET));
      }
      return scannedOrders == orders && scannedItems == items && found == orders ? "" : step + ": a scan counts "
          + scannedOrders + " of " + orders + " orders and " + scannedItems + " of " + items + " items, a read by key"
          + " finds " + found + " on target " + map.target(BUCKET);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static long count(DataSource ds, String from) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + from)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  // scenario 8: progress counts the whole move across a resume

  @Test
  void progressCountsTheWholeMoveAcrossAResume() throws Exception {
    List<Object[]> orders = new ArrayList<>();
    int[] next = store.load("orders").orElseThrow().targets();
    for (int b = 5; b < 9; b++) {
      next[b] = 1;
      for (long o = 0; o < 30; o++) {
        orders.add(new Object[] {o << G | b, "c" + o});
      }
    }
    insert(ds0, "INSERT INTO t_order (id, customer) VALUES (?, ?)", orders);
    List<JdbcBucketMover.Progress> seen = new ArrayList<>();
    JdbcBucketMover crashing = mover().batchSize(10).progressListener(p -> {
      seen.add(p);
      if (p.recorded().bucketsDone() == 2 && p.recorded().rowsCopied() == 80) {
        throw new IllegalStateException("killed");
      }
    }).build();
    assertThatThrownBy(() -> crashing.moveTo(BucketMap.of(G, next))).hasMessage("killed");
    long startedAt = seen.get(0).recorded().startedAtMillis();
    seen.clear();
    mover().batchSize(10).progressListener(seen::add).build().moveTo(BucketMap.of(G, next));
    JdbcBucketMover.Progress last = seen.get(seen.size() - 1);
    assertThat(seen.get(0).recorded().bucketsDone()).as("the resumed run starts at 2/4").isEqualTo(2);
    assertThat(last.recorded().bucketsDone()).isEqualTo(4);
    assertThat(last.recorded().bucketsTotal()).isEqualTo(4);
    assertThat(last.recorded().rowsCopied()).isEqualTo(120);
    assertThat(last.recorded().startedAtMillis()).isEqualTo(startedAt);
  }

  // #38 scenario 9: a generated column and an identity column; the staging copy was CREATE TABLE AS SELECT and the
  // publication INSERT ... SELECT *, which both databases refused, and the bucket stayed SWITCHING for good

  @Test
  void aTableWithGeneratedAndIdentityColumnsMovesAndKeepsThem() throws Exception {
    String generated = switch (kind()) {
      case MARIADB -> "total INT AS (qty * 2) STORED";
      default -> "total INT GENERATED ALWAYS AS (qty * 2) STORED";
    };
    if (kind() == SegmentDatabase.Kind.H2) {
      generated = "total INT GENERATED ALWAYS AS (qty * 2)";
    }
    String identity = kind() == SegmentDatabase.Kind.MARIADB ? "seq BIGINT NOT NULL AUTO_INCREMENT UNIQUE"
        : "seq BIGINT GENERATED ALWAYS AS IDENTITY";
    for (DataSource ds : List.of(ds0, ds1)) {
      sql(ds, "CREATE TABLE t_line (id BIGINT PRIMARY KEY, qty INT NOT NULL, " + generated + ", " + identity + ")");
    }
    for (long n = 0; n < 30; n++) {
      sql(ds0, "INSERT INTO t_line (id, qty) VALUES (" + (n << G | BUCKET) + ", " + n + ")");
    }
    Map<Long, List<String>> before = rows(ds0, "t_line");
    JdbcBucketMover mover = mover().tables(List.of(new JdbcBucketMover.Table("id", b -> "t_line"))).build();
    assertThat(mover.move(new BucketMove(BUCKET, 0, 1)).rowsCopied()).isEqualTo(30);
    assertThat(store.load("orders").orElseThrow().state(BUCKET)).isEqualTo(BucketState.MOVED);
    assertThat(rows(ds1, "t_line")).as("every column, the generated one computed again, the identity kept")
        .isEqualTo(before);
    sql(ds1, "INSERT INTO t_line (id, qty) VALUES (" + (99L << G | BUCKET) + ", 7)");
    assertThat(rows(ds1, "t_line").get(99L << G | BUCKET).get(2)).as("a new row's generated column").isEqualTo("14");
    // a column added between two moves: the side tables follow it
    mover.cleanup("test");
    for (DataSource ds : List.of(ds0, ds1)) {
      sql(ds, "ALTER TABLE t_line ADD COLUMN note VARCHAR(20)");
    }
    sql(ds1, "UPDATE t_line SET note = 'later'");
    Map<Long, List<String>> moved = rows(ds1, "t_line");
    mover.move(new BucketMove(BUCKET, 1, 0));
    assertThat(rows(ds0, "t_line")).as("moved back with the new column").isEqualTo(moved);
  }

  /** Waits until bucket 5 has a fence row on target 0 (committed before the mover installs the triggers). */
  void awaitFenced(Duration within) throws Exception {
    long end = System.nanoTime() + within.toNanos();
    while (true) {
      try (Connection c = ds0.getConnection(); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM gene_id_fence WHERE bucket = " + BUCKET)) {
        if (rs.next() && rs.getLong(1) > 0) {
          return;
        }
      } catch (SQLException notYet) {
        // no fence table yet
      }
      assertThat(System.nanoTime()).as("bucket 5 fenced on target 0 within %s", within).isLessThan(end);
      Thread.sleep(5);
    }
  }

  void awaitState(BucketState state, Duration within) throws InterruptedException {
    long end = System.nanoTime() + within.toNanos();
    while (store.load("orders").orElseThrow().state(BUCKET) != state) {
      assertThat(System.nanoTime()).as("bucket 5 %s within %s", state, within).isLessThan(end);
      Thread.sleep(5);
    }
  }

  /** {@code orders} orders of bucket 5 on target 0 with 1 to 11 items each, item ids not in order id order. */
  List<Long> itemsOfBucket(int orders) throws Exception { // 120: 715 items, no order ends at item 20, 100 or 500
    List<Object[]> orderRows = new ArrayList<>();
    List<Object[]> itemRows = new ArrayList<>();
    List<Long> items = new ArrayList<>();
    long item = 1_000_000;
    for (int o = 0; o < orders; o++) {
      long order = (long) o << G | BUCKET;
      orderRows.add(new Object[] {order, "c" + o});
      for (int i = 0; i <= o % 11; i++) {
        item = (item * 7919) % 1_000_003; // a permutation of [1, 1000002]: ids in no relation to order ids
        itemRows.add(new Object[] {item, order, "i" + i});
        items.add(item);
      }
    }
    insert(ds0, "INSERT INTO t_order (id, customer) VALUES (?, ?)", orderRows);
    insert(ds0, "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)", itemRows);
    // an item of another bucket, which stays
    insert(ds0, "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)", List.<Object[]>of(new Object[] {1L, 6L,
        "other"}));
    items.sort(null);
    return items;
  }

  static List<Long> genes(List<Long> keys) {
    return keys.stream().map(k -> Genes.of(k, G)).distinct().toList();
  }

  static List<Long> keys(DataSource ds, String table, String column) throws SQLException {
    List<Long> keys = new ArrayList<>();
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT " + column + " FROM " + table + " ORDER BY " + column)) {
      while (rs.next()) {
        keys.add(rs.getLong(1));
      }
    }
    return keys;
  }

  /** Every row of {@code table}, by its first column, as strings. */
  static Map<Long, List<String>> rows(DataSource ds, String table) throws SQLException {
    Map<Long, List<String>> rows = new TreeMap<>();
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        String[] row = new String[n];
        for (int i = 0; i < n; i++) {
          row[i] = rs.getString(i + 1);
        }
        rows.put(rs.getLong(1), Arrays.asList(row));
      }
    }
    return rows;
  }

  static void sql(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static void insert(DataSource ds, String sql, List<Object[]> rows) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (Object[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          ps.setObject(i + 1, row[i]);
        }
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }
}
