package io.geneid.jdbc;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import io.geneid.core.internal.Checks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves gene buckets between databases, one at a time, while the application keeps running: for each move
 * {@code (bucket, from, to)} it
 * <ol>
 *   <li>freezes the bucket in the map store (writes to it are refused by {@code GENE_BUCKET_FREEZE}) and waits until
 *       every live router routes with that version, then for {@code settle} (writes already past the audit land);
 *   <li>copies the bucket's rows of every table of the family from {@code from} to {@code to} in id order, in
 *       batches with keyset pagination ({@code id > last ORDER BY id}), each batch in one transaction; a restart
 *       resumes after the highest id already at {@code to}, so a crash mid-copy loses nothing and copies nothing
 *       twice;
 *   <li>verifies per table the row count and the sum of ids on both sides;
 *   <li>switches the bucket to {@code to} (state {@link BucketState#MOVED}) and waits for the routers.
 * </ol>
 * {@link #cleanup(String)} later deletes the moved buckets' rows from every other target and marks them NORMAL.
 * A bucket's rows are found by {@code MOD(<key column>, 2^G) = bucket}, which MariaDB/MySQL, PostgreSQL and H2 all
 * compute, for tables keyed by a gene id or a numeric parent key.
 */
public final class JdbcBucketMover {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcBucketMover.class);

  /**
   * A table of a family: its key column (a gene id or numeric parent key) and its physical name for a bucket.
   *
   * @param keyColumn the column whose gene is the bucket, e.g. {@code id} or {@code order_id}
   * @param physicalTable the physical table of a bucket, e.g. {@code b -> "t_order_" + (b / 2) % 2}
   */
  public record Table(String keyColumn, IntFunction<String> physicalTable) {
    /** Checks the column name. */
    public Table {
      JdbcSession.checkTable("key column", keyColumn);
    }
  }

  private final BucketMapStore store;
  private final String name;
  private final Map<Integer, DataSource> targets;
  private final List<Table> tables;
  private final int batchSize;
  private final Duration routerWait;
  private final Duration settle;
  private final Duration liveWindow;
  private final LongSupplier clock;

  private JdbcBucketMover(BucketMapStore store, String name, Map<Integer, DataSource> targets, List<Table> tables,
      int batchSize, Duration routerWait, Duration settle, Duration liveWindow, LongSupplier clock) {
    this.store = store;
    this.name = name;
    this.targets = Map.copyOf(targets);
    this.tables = List.copyOf(tables);
    this.batchSize = batchSize;
    this.routerWait = routerWait;
    this.settle = settle;
    this.liveWindow = liveWindow;
    this.clock = clock;
  }

  /**
   * A mover of the map {@code name} in {@code store} over {@code targets} (target index -> database).
   *
   * @param batchSize rows per copied batch, in [1, 100000]
   * @param routerWait how long to wait for the live routers to see a change, in [1 ms, 1 h]
   * @param settle how long to wait after they have seen a freeze, for writes already past the audit, in [0, 1 h]
   * @param liveWindow a router whose last heartbeat is older is not waited for, in [1 ms, 1 h]
   */
  public static JdbcBucketMover of(BucketMapStore store, String name, Map<Integer, DataSource> targets,
      List<Table> tables, int batchSize, Duration routerWait, Duration settle, Duration liveWindow) {
    Checks.range("batch size", batchSize, 1, 100_000);
    Checks.duration("router wait", routerWait, Duration.ofMillis(1), Duration.ofHours(1));
    Checks.duration("settle", settle, Duration.ZERO, Duration.ofHours(1));
    Checks.duration("live window", liveWindow, Duration.ofMillis(1), Duration.ofHours(1));
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("a mover needs at least one table of the family");
    }
    return new JdbcBucketMover(Objects.requireNonNull(store, "store"), name, targets, tables, batchSize, routerWait,
        settle, liveWindow, System::currentTimeMillis);
  }

  /** What one move did. */
  public record MoveResult(BucketMove move, long rowsCopied, Duration frozenFor) {}

  /**
   * Moves every bucket whose target differs between the stored map and {@code next}, one at a time; a bucket already
   * on its new target is skipped, so a second run after a crash resumes.
   *
   * @throws GeneIdException if the store or a database fails, the routers do not follow in time, or a verification
   *     finds the two sides different (the bucket then stays frozen on its old node, which still has every row)
   */
  public List<MoveResult> moveTo(BucketMap next) {
    List<MoveResult> results = new ArrayList<>();
    BucketMap current = load();
    for (int b = 0; b < current.bucketCount(); b++) {
      if (current.target(b) != next.target(b)) {
        results.add(move(new BucketMove(b, current.target(b), next.target(b))));
      }
    }
    return results;
  }

  /** Moves one bucket: freeze, wait, copy, verify, switch, wait. */
  public MoveResult move(BucketMove move) {
    BucketMap map = load();
    if (map.target(move.bucket()) != move.from()) {
      throw new GeneIdException("bucket " + move.bucket() + " is on target " + map.target(move.bucket())
          + ", not " + move.from() + ", in map '" + name + "' version " + map.version());
    }
    long frozenAt = clock.getAsLong();
    if (map.state(move.bucket()) != BucketState.FROZEN) {
      map = publish(map, map.withState(List.of(move.bucket()), BucketState.FROZEN));
    }
    awaitRouters(map.version());
    sleep(settle);
    long copied = 0;
    for (Table table : tables) {
      copied += copy(move, table);
      verify(move, table);
    }
    map = publish(map, map.withTarget(move.bucket(), move.to()).withState(List.of(move.bucket()),
        BucketState.MOVED));
    Duration frozen = Duration.ofMillis(clock.getAsLong() - frozenAt);
    awaitRouters(map.version());
    LOG.info("moved bucket {} from {} to {}: {} rows, frozen {} ms", move.bucket(), move.from(), move.to(), copied,
        frozen.toMillis());
    return new MoveResult(move, copied, frozen);
  }

  /**
   * Deletes the rows of every {@link BucketState#MOVED} bucket from the targets it is no longer on, and marks it
   * NORMAL.
   *
   * @return the rows deleted
   */
  public long cleanup(String reason) {
    BucketMap map = load();
    long deleted = 0;
    List<Integer> moved = map.bucketsIn(BucketState.MOVED);
    for (int bucket : moved) {
      for (Map.Entry<Integer, DataSource> target : targets.entrySet()) {
        if (target.getKey() == map.target(bucket)) {
          continue;
        }
        for (Table table : tables) {
          deleted += update(target.getValue(), "DELETE FROM " + table.physicalTable().apply(bucket) + " WHERE MOD("
              + table.keyColumn() + ", " + map.bucketCount() + ") = " + bucket);
        }
      }
    }
    if (!moved.isEmpty()) {
      publish(map, map.withState(moved, BucketState.NORMAL));
    }
    LOG.info("cleanup ({}): {} rows of {} moved buckets deleted", reason, deleted, moved.size());
    return deleted;
  }

  private long copy(BucketMove move, Table table) {
    int mod = load().bucketCount();
    String physical = table.physicalTable().apply(move.bucket());
    String where = "MOD(" + table.keyColumn() + ", " + mod + ") = " + move.bucket();
    DataSource from = target(move.from());
    DataSource to = target(move.to());
    long copied = 0;
    try (Connection src = from.getConnection(); Connection dst = to.getConnection()) {
      long last = Long.MIN_VALUE;
      try (PreparedStatement max = dst.prepareStatement("SELECT MAX(" + table.keyColumn() + ") FROM " + physical
          + " WHERE " + where); ResultSet rs = max.executeQuery()) {
        if (rs.next() && rs.getObject(1) != null) {
          last = rs.getLong(1); // resume after what a crashed run committed
        }
      }
      dst.setAutoCommit(false);
      String select = "SELECT * FROM " + physical + " WHERE " + where + " AND " + table.keyColumn() + " > ? ORDER BY "
          + table.keyColumn();
      while (true) {
        List<Object[]> rows = new ArrayList<>();
        String insert = null;
        int keyIndex = -1;
        try (PreparedStatement ps = src.prepareStatement(select)) {
          ps.setMaxRows(batchSize);
          ps.setLong(1, last);
          try (ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            StringBuilder columns = new StringBuilder();
            StringBuilder marks = new StringBuilder();
            for (int i = 1; i <= n; i++) {
              columns.append(i > 1 ? ", " : "").append(md.getColumnLabel(i));
              marks.append(i > 1 ? ", ?" : "?");
              if (md.getColumnLabel(i).equalsIgnoreCase(table.keyColumn())) {
                keyIndex = i - 1;
              }
            }
            insert = "INSERT INTO " + physical + " (" + columns + ") VALUES (" + marks + ")";
            while (rs.next() && rows.size() < batchSize) {
              Object[] row = new Object[n];
              for (int i = 0; i < n; i++) {
                row[i] = rs.getObject(i + 1);
              }
              rows.add(row);
            }
          }
        }
        if (rows.isEmpty()) {
          break;
        }
        try (PreparedStatement ps = dst.prepareStatement(insert)) {
          for (Object[] row : rows) {
            for (int i = 0; i < row.length; i++) {
              ps.setObject(i + 1, row[i]);
            }
            ps.addBatch();
          }
          ps.executeBatch();
          dst.commit();
        } catch (SQLException e) {
          dst.rollback();
          throw e;
        }
        copied += rows.size();
        last = ((Number) rows.get(rows.size() - 1)[keyIndex]).longValue();
      }
      dst.setAutoCommit(true);
    } catch (SQLException e) {
      throw new GeneIdException("copying bucket " + move.bucket() + " of " + physical + " from target "
          + move.from() + " to " + move.to() + " failed: " + e.getMessage(), e);
    }
    return copied;
  }

  private void verify(BucketMove move, Table table) {
    int mod = load().bucketCount();
    String physical = table.physicalTable().apply(move.bucket());
    String sql = "SELECT COUNT(*), SUM(" + table.keyColumn() + ") FROM " + physical + " WHERE MOD("
        + table.keyColumn() + ", " + mod + ") = " + move.bucket();
    long[] source = countAndSum(target(move.from()), sql);
    long[] copy = countAndSum(target(move.to()), sql);
    if (source[0] != copy[0] || source[1] != copy[1]) {
      throw new GeneIdException("bucket " + move.bucket() + " of " + physical + " differs after the copy: target "
          + move.from() + " has " + source[0] + " rows (id sum " + source[1] + "), target " + move.to() + " has "
          + copy[0] + " (id sum " + copy[1] + "); the bucket stays frozen on target " + move.from());
    }
  }

  private static long[] countAndSum(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
         ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getObject(2) == null ? 0 : rs.getBigDecimal(2).longValue()};
    } catch (SQLException e) {
      throw new GeneIdException("verifying with " + sql + " failed: " + e.getMessage(), e);
    }
  }

  private static long update(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new GeneIdException(sql + " failed: " + e.getMessage(), e);
    }
  }

  private BucketMap load() {
    return store.load(name).orElseThrow(() -> new GeneIdException("no bucket map named '" + name + "' in " + store));
  }

  private BucketMap publish(BucketMap current, BucketMap next) {
    BucketMap versioned = next.withVersion(current.version() + 1);
    if (!store.compareAndSet(name, current.version(), versioned)) {
      throw new GeneIdException("bucket map '" + name + "' changed under the mover (expected version "
          + current.version() + "); is another mover running?");
    }
    return versioned;
  }

  private void awaitRouters(long version) {
    long deadline = System.nanoTime() + routerWait.toNanos();
    while (true) {
      long now = clock.getAsLong();
      List<String> behind = new ArrayList<>();
      for (RouterHeartbeat router : store.routers(name)) {
        if (now - router.atMillis() <= liveWindow.toMillis() && router.version() < version) {
          behind.add(router.routerId() + " (version " + router.version() + ")");
        }
      }
      if (behind.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new GeneIdException("routers " + behind + " did not reach version " + version + " of map '" + name
            + "' within " + routerWait.toMillis() + "ms");
      }
      sleep(Duration.ofMillis(10));
    }
  }

  private DataSource target(int index) {
    DataSource ds = targets.get(index);
    if (ds == null) {
      throw new GeneIdException("no database for target " + index + "; the mover has " + targets.keySet());
    }
    return ds;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GeneIdException("interrupted while moving buckets", e);
    }
  }
}
