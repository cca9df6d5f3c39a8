package io.geneid.jdbc;

import static io.geneid.jdbc.AbstractJdbcBucketMoverScenarioTest.count;
import static io.geneid.jdbc.AbstractJdbcBucketMoverScenarioTest.insert;
import static io.geneid.jdbc.AbstractJdbcBucketMoverScenarioTest.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import io.geneid.core.testing.TestTime;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of the database fence of issue #38: cases the change did not list. The first four failed
 * before their fixes (cleanup racing a move back deleted 20 of 20 rows on the new owner; a lost FROZEN
 * compare-and-set left a NORMAL bucket fenced for good; cleanup dropped the triggers of a move that fenced since
 * its check, and a late write was acknowledged and then deleted; triggers of another map over the same tables were
 * kept and fenced nothing); the ones named sound* held from the start.
 */
abstract class AbstractFenceReviewTest {

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
    db0 = SegmentDatabase.create(kind());
    db1 = SegmentDatabase.create(kind());
    ds0 = db0.pool();
    ds1 = db1.pool();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:h2:mem:fence_review_store_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
    storePool = new HikariDataSource(config);
    store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
    for (DataSource ds : List.of(ds0, ds1)) {
      sql(ds, "CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
    }
    int[] targets = new int[1 << G];
    targets[63] = 1;
    assertThat(store.compareAndSet("orders", -1, BucketMap.of(G, targets).withVersion(1))).isTrue();
    List<Object[]> rows = new ArrayList<>();
    for (long o = 0; o < 20; o++) {
      rows.add(new Object[] {o << G | BUCKET, "c" + o});
      rows.add(new Object[] {o << G | 6, "six" + o});
    }
    insert(ds0, "INSERT INTO t_order (id, customer) VALUES (?, ?)", rows);
  }

  @AfterEach
  void tearDown() {
    storePool.close();
    db0.close();
    db1.close();
  }

  JdbcBucketMover.Builder mover(BucketMapStore s, String map, DataSource t0, DataSource t1) {
    return JdbcBucketMover.builder(s, map).targets(Map.of(0, t0, 1, t1))
        .tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order")))
        .batchSize(50).settle(Duration.ZERO).routerWait(Duration.ofSeconds(2)).liveWindow(Duration.ofSeconds(5));
  }

  JdbcBucketMover.Builder mover() {
    return mover(store, "orders", ds0, ds1);
  }

  BucketMap map() {
    return store.load("orders").orElseThrow();
  }

  /** null when the plain (non-mover) write went through, else the SQLState of its refusal. */
  static String plainWrite(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.executeUpdate(sql);
      return null;
    } catch (SQLException e) {
      return e.getSQLState();
    }
  }

  /** A proxy of {@code target} (an interface) whose calls go to {@code handler} first. */
  @SuppressWarnings("unchecked")
  static <T> T proxy(Class<T> type, T target, Hook hook) {
    return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
      Object replaced = hook.before(m.getName(), args);
      if (replaced != null) {
        return replaced;
      }
      try {
        return m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
  }

  @FunctionalInterface
  interface Hook {
    Object before(String method, Object[] args) throws Exception;
  }

  /** {@code ds} whose plain statements run {@code onDropTrigger} once, just before the first DROP TRIGGER. */
  static DataSource beforeFirstDropTrigger(DataSource ds, Runnable onDropTrigger) {
    AtomicBoolean done = new AtomicBoolean();
    return proxy(DataSource.class, ds, (m, a) -> {
      if (!m.equals("getConnection")) {
        return null;
      }
      Connection c = ds.getConnection();
      return proxy(Connection.class, c, (cm, ca) -> {
        if (!cm.equals("createStatement") || ca != null && ca.length > 0) {
          return null;
        }
        Statement st = c.createStatement();
        return proxy(Statement.class, st, (sm, sa) -> {
          if (sm.equals("execute") && sa != null && sa.length == 1 && sa[0] instanceof String q
              && q.toUpperCase().startsWith("DROP TRIGGER") && done.compareAndSet(false, true)) {
            onDropTrigger.run();
          }
          return null;
        });
      });
    });
  }

  // ---------------------------------------------------------------------------------------------------------------
  // 1. cleanup that read the map before a move back finished deletes the new owner's rows

  @Test
  void cleanupThatReadTheMapBeforeAMoveBackDeletesTheNewOwnersRows() throws Exception {
    mover().build().move(new BucketMove(BUCKET, 0, 1)); // bucket 5 MOVED on target 1, rows set aside on 0
    BucketMap readByCleanup = map();
    // the cleanup process reads the map, then stalls (GC, a slow delete of other buckets, a paused pod) while an
    // operator moves bucket 5 back to target 0 with another mover
    AtomicBoolean first = new AtomicBoolean(true);
    BucketMapStore slow = proxy(BucketMapStore.class, store, (m, a) -> {
      if (m.equals("load") && first.compareAndSet(true, false)) {
        mover().build().move(new BucketMove(BUCKET, 1, 0));
        return java.util.Optional.of(readByCleanup);
      }
      return null;
    });
    mover(slow, "orders", ds0, ds1).build().cleanup("racing a move back");
    assertThat(map().target(BUCKET)).isZero();
    assertThat(count(ds0, "t_order WHERE MOD(id, 64) = 5"))
        .as("rows of bucket 5 on target 0, which owns it after the move back").isEqualTo(20);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // 2. a map change under the mover between its fence and its FROZEN publication leaves the bucket fenced for good

  @Test
  void aLostFrozenPublicationLeavesANormalBucketFencedForGood() throws Exception {
    AtomicBoolean first = new AtomicBoolean(true);
    BucketMapStore racing = proxy(BucketMapStore.class, store, (m, a) -> {
      if (m.equals("compareAndSet") && first.compareAndSet(true, false)) {
        // another mover / an operator publishes an unrelated change of bucket 40 just before our FROZEN
        BucketMap now = map();
        store.compareAndSet("orders", now.version(), now.withState(List.of(40), BucketState.NORMAL)
            .withVersion(now.version() + 1));
      }
      return null;
    });
    assertThatThrownBy(() -> mover(racing, "orders", ds0, ds1).build().move(new BucketMove(BUCKET, 0, 1)))
        .hasMessageContaining("is another mover running?");
    assertThat(map().state(BUCKET)).as("the map").isEqualTo(BucketState.NORMAL);
    // the operator stops "the other mover", runs cleanup and re-plans without bucket 5
    mover().build().cleanup("after the failed move");
    mover().build().moveTo(map());
    assertThat(plainWrite(ds0, "UPDATE t_order SET customer = 'x' WHERE id = " + BUCKET))
        .as("a plain write of NORMAL bucket 5 after cleanup and an empty moveTo").isNull();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // 3. cleanup drops the triggers of a database that a move started since its check has just fenced

  @Test
  void cleanupDropsTheTriggersUnderAMoveThatFencedSinceItsCheck() throws Exception {
    mover().build().move(new BucketMove(BUCKET, 0, 1));
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread[] other = new Thread[1];
    DataSource watched = beforeFirstDropTrigger(ds0, () -> {
      // the next batch starts now: bucket 6, 0 -> 1, by another mover, slowed by a settle of 1.5 s
      other[0] = new Thread(() -> {
        try {
          mover().settle(TestTime.ofMillis(1500)).routerWait(Duration.ofSeconds(30)).build()
              .move(new BucketMove(6, 0, 1));
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      other[0].start();
      // since the fix the other mover waits for cleanup's lock on the fence: it cannot get FROZEN in this window
      long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
      while (map().state(6) != BucketState.FROZEN && System.nanoTime() < end) {
        Thread.onSpinWait();
      }
    });
    mover(store, "orders", watched, ds1).build().cleanup("next to a new move");
    if (other[0] == null) { // H2 keeps its triggers (no DROP TRIGGER): the next move starts after cleanup
      other[0] = new Thread(() -> {
        try {
          // slowed by a settle too, so that FROZEN lasts long enough to be seen on a busy machine
          mover().settle(TestTime.ofMillis(1500)).routerWait(Duration.ofSeconds(30)).build()
              .move(new BucketMove(6, 0, 1));
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      other[0].start();
    }
    long frozenBy = System.nanoTime() + Duration.ofSeconds(20).toNanos(); // the other mover waited for the lock
    while (map().state(6) != BucketState.FROZEN && System.nanoTime() < frozenBy) {
      Thread.sleep(5);
    }
    assertThat(map().state(6)).isEqualTo(BucketState.FROZEN);
    String during = plainWrite(ds0, "INSERT INTO t_order (id, customer) VALUES (" + (900L << G | 6) + ", 'during')");
    other[0].join(30_000);
    assertThat(failure.get()).isNull();
    String late = plainWrite(ds0, "INSERT INTO t_order (id, customer) VALUES (" + (901L << G | 6) + ", 'late')");
    long lateRows = count(ds0, "t_order WHERE id = " + (901L << G | 6));
    mover().build().cleanup("after");
    assertThat(List.of(String.valueOf(during), String.valueOf(late), lateRows, count(ds0, "t_order WHERE id = "
        + (901L << G | 6)), count(ds1, "t_order WHERE id = " + (901L << G | 6))))
        .as("refusal of a plain INSERT of FROZEN bucket 6 on target 0, of a late INSERT of MOVED bucket 6 there,"
            + " its rows on target 0 before and after cleanup, on target 1")
        .isEqualTo(List.of("40001", "40001", 0L, 0L, 0L));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // 4. triggers left by an interrupted run of another map over the same tables are kept, and fence nothing

  @Test
  void triggersOfAnotherMapAreKeptAndFenceNothing() throws Exception {
    int[] targets = new int[1 << G];
    targets[63] = 1;
    assertThat(store.compareAndSet("orders_old", -1, BucketMap.of(G, targets).withVersion(1))).isTrue();
    JdbcBucketMover killed = mover(store, "orders_old", ds0, ds1).progressListener(p -> {
      if (p.recorded().rowsCopied() > 0) {
        throw new IllegalStateException("killed");
      }
    }).build();
    assertThatThrownBy(() -> killed.move(new BucketMove(BUCKET, 0, 1))).hasMessage("killed");
    // ... the old map is abandoned (renamed to 'orders'); its rows in gene_id_fence would be deleted by hand
    sql(ds0, "DELETE FROM gene_id_fence");
    sql(ds1, "DELETE FROM gene_id_fence");
    AtomicReference<String> during = new AtomicReference<>("not run");
    String outcome;
    try {
      mover().progressListener(p -> {
        if (map().state(BUCKET) == BucketState.FROZEN && "not run".equals(during.get())) {
          during.set(plainWrite(ds0, "UPDATE t_order SET customer = 'during' WHERE id = " + (3L << G | BUCKET)));
        }
      }).build().move(new BucketMove(BUCKET, 0, 1));
      outcome = "moved";
    } catch (RuntimeException e) {
      outcome = e.getMessage();
    }
    assertThat(during.get()).as("a plain UPDATE of bucket 5 while map 'orders' has it FROZEN (the move: %s)",
        outcome).isEqualTo("40001");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // SOUND: cases checked and found to hold

  @Test
  void soundAMoveBackBeforeCleanupThenCleanupKeepsEveryRowAndLiftsEveryFence() throws Exception {
    mover().build().move(new BucketMove(BUCKET, 0, 1));
    sql(ds1, "UPDATE t_order SET customer = 'on 1' WHERE MOD(id, 64) = 5");
    assertThat(plainWrite(ds0, "INSERT INTO t_order (id, customer) VALUES (" + (800L << G | BUCKET) + ", 'stale')"))
        .as("the old node refuses after MOVED").isEqualTo("40001");
    mover().build().move(new BucketMove(BUCKET, 1, 0));
    assertThat(plainWrite(ds1, "INSERT INTO t_order (id, customer) VALUES (" + (801L << G | BUCKET) + ", 'stale')"))
        .as("target 1 refuses after the move back").isEqualTo("40001");
    mover().build().cleanup("test");
    assertThat(count(ds0, "t_order WHERE MOD(id, 64) = 5 AND customer = 'on 1'")).isEqualTo(20);
    assertThat(count(ds1, "t_order")).isZero();
    assertThat(plainWrite(ds0, "UPDATE t_order SET customer = 'after' WHERE id = " + BUCKET)).isNull();
    assertThat(plainWrite(ds1, "INSERT INTO t_order (id, customer) VALUES (63, 'x')")).isNull();
  }

  @Test
  void soundAnUpdateThatMovesAKeyIntoOrOutOfAFencedBucketIsRefusedAndOneBetweenTwoOtherBucketsPasses()
      throws Exception {
    BucketFence fence = new BucketFence("orders", G, Duration.ofSeconds(2));
    List<BucketFence.Fenced> t = List.of(new BucketFence.Fenced("t_order", "id"));
    fence.fence(ds0, 0, BUCKET, 99, "review", t);
    assertThat(plainWrite(ds0, "UPDATE t_order SET id = " + (500L << G | BUCKET) + " WHERE id = 6"))
        .as("into the bucket").isEqualTo("40001");
    assertThat(plainWrite(ds0, "UPDATE t_order SET id = " + (500L << G | 6) + " WHERE id = " + BUCKET))
        .as("out of the bucket").isEqualTo("40001");
    assertThat(plainWrite(ds0, "UPDATE t_order SET id = " + (500L << G | 7) + " WHERE id = 6"))
        .as("between two other buckets").isNull();
    assertThat(plainWrite(ds0, "INSERT INTO t_order (id, customer) VALUES (" + (501L << G | 6) + ", 'a'), ("
        + (502L << G | BUCKET) + ", 'b')")).as("a multi-row INSERT with one fenced row").isEqualTo("40001");
    assertThat(count(ds0, "t_order WHERE id = " + (501L << G | 6))).as("nothing of it stays").isZero();
    assertThat(plainWrite(ds0, "INSERT INTO t_order (id, customer) VALUES (" + (-(503L << G) + BUCKET) + ", 'n')"))
        .as("a negative key of the bucket").isEqualTo("40001");
  }
}
