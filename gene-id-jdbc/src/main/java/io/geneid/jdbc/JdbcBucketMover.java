package io.geneid.jdbc;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.bucket.BucketMapStore.MoveProgress;
import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import io.geneid.core.internal.Checks;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves gene buckets between databases, one at a time, while the application keeps running: for each move
 * {@code (bucket, from, to)} it
 * <ol>
 *   <li>deletes the bucket's stale rows at {@code to} (a copy an earlier move left there) and freezes the bucket in
 *       the map store (writes to it are refused by {@code GENE_BUCKET_FREEZE}); waits until every live router routes
 *       with that version, then for {@code settle} (a statement already past the audit reaches its database), then
 *       until every transaction open on {@code from} since before that moment has ended
 *       ({@link Builder#transactionWait}; the database lists them), so no write admitted before the freeze commits
 *       after the copy has read the bucket;
 *   <li>copies the bucket's rows of every table of the family from {@code from} into a staging table at {@code to}
 *       ({@link #stagingTable}, which no rule routes to) in primary-key order, in batches with keyset pagination
 *       ({@code pk > last ORDER BY pk}, a unique order, so the children of an order straddling a batch boundary are
 *       not skipped), each batch in one transaction; a restart resumes after the last row, in primary-key order,
 *       committed in the staging table, so a crash mid-copy loses nothing and copies nothing twice;
 *   <li>verifies, right before the switch, every table's rows of the bucket on both sides, every column, in
 *       primary-key order (nothing can change them any more: the bucket is frozen and the transactions of before the
 *       freeze have ended);
 *   <li>switches: marks the bucket {@link BucketState#SWITCHING} (still on {@code from}) and waits for the routers
 *       and {@code settle}; publishes the copy at {@code to} (staging table to routed table, one transaction);
 *       switches the bucket to {@code to} (still SWITCHING) and waits for the routers; sets the old rows aside at
 *       {@code from} (routed table to {@link #asideTable}, one transaction); marks the bucket
 *       {@link BucketState#MOVED}, which takes writes again.
 * </ol>
 * After each batch and each bucket it stores a {@link MoveProgress} in the map store ({@code gene-id reshard status}
 * shows it) and hands it, with the rate and the time left, to the {@link Builder#progressListener listener}; a run
 * that resumes an interrupted one continues its counters (buckets 29/32 after 29 moved, not 0/3).
 * {@link #cleanup(String)} later deletes the set-aside rows and marks the moved buckets NORMAL.
 *
 * <p><b>What reads see.</b> A read by key goes to the one node the router's map names; a statement without a
 * sharding value (a scan, {@code COUNT(*)}) goes to every node's routed table. Until the switch, the bucket's rows
 * are in {@code from}'s routed table only (the copy is staged), and every router names {@code from}. Routers do not
 * switch at one instant, and a router still on the old map must find the rows at {@code from} while one on the new
 * map finds them at {@code to}: for that while both routed tables must hold the bucket, and a scan would count it
 * twice. So the switch is bracketed by {@link BucketState#SWITCHING}, in which {@code GENE_BUCKET_FREEZE} refuses,
 * with the retryable SQLState 40001, every statement of the family that cannot prove it avoids the bucket, and lets
 * reads by key through. At every instant:
 * <ul>
 *   <li>before every live router has seen SWITCHING (plus {@code settle}, for a statement already past the audit),
 *       only {@code from}'s routed table holds the bucket: a scan counts it once, a read by key finds it at
 *       {@code from};
 *   <li>from the publication of the copy to the set-aside, both routed tables hold it, and every live router refuses
 *       scans; a router on the old map reads by key at {@code from}, one on the new map at {@code to}, and both hold
 *       the same rows (the bucket takes no writes);
 *   <li>the old rows leave {@code from} only once every live router names {@code to}, which holds them; from then on
 *       one routed table holds the bucket, and MOVED lets scans through again.
 * </ul>
 * Reads by key of the switching bucket are not refused: the node they go to holds its committed rows throughout,
 * so refusing them would cost availability and protect nothing. A router that cannot reach the map store is not
 * waited for (it is not live) and routes with its last map; it refuses writes, not reads, so its scans and reads by
 * key of a bucket that moved meanwhile can be wrong until it reaches the store again. A run interrupted while a bucket
 * is SWITCHING leaves scans of the family refused until the next run, which first finishes that switch: the bucket's
 * rows on every node other than the one the map names are set aside, and the bucket becomes MOVED.
 *
 * <p>A bucket's rows are found by {@link #geneSql}, the gene routing computes ({@code key & (2^G - 1)}, negative keys
 * included) in SQL that MariaDB/MySQL, PostgreSQL and H2 all run, for tables keyed by a gene id or a whole-number
 * parent key; a table keyed by a string (whose gene is its CRC-32C) is refused by name before anything freezes, and
 * so is a table without a primary key.
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
  private final Duration batchPause;
  private final Duration transactionWait;
  private final Consumer<Progress> listener;
  private final LongSupplier clock;
  /** This mover's random id, in the fence rows it makes. */
  private final String runId = String.format("%016x", new java.security.SecureRandom().nextLong());

  private JdbcBucketMover(Builder b) {
    this.store = b.store;
    this.name = b.name;
    this.targets = Map.copyOf(b.targets);
    this.tables = List.copyOf(b.tables);
    this.batchSize = b.batchSize;
    this.routerWait = b.routerWait;
    this.settle = b.settle;
    this.liveWindow = b.liveWindow;
    this.batchPause = b.batchPause;
    this.transactionWait = b.transactionWait;
    this.listener = b.listener;
    this.clock = b.clock;
  }

  /**
   * A builder of a mover of the map {@code name} in {@code store}; {@link Builder#targets} and
   * {@link Builder#tables} are required.
   */
  public static Builder builder(BucketMapStore store, String name) {
    return new Builder(store, name);
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
    return builder(store, name).targets(targets).tables(tables).batchSize(batchSize).routerWait(routerWait)
        .settle(settle).liveWindow(liveWindow).build();
  }

  /** What one move did. */
  public record MoveResult(BucketMove move, long rowsCopied, Duration frozenFor) {}

  /**
   * What the mover reports to its listener after each batch of rows and each bucket: the record it stored
   * ({@link BucketMapStore#saveProgress}), the rate so far and the time left.
   *
   * @param recorded the progress as stored in the map store
   * @param bucket the move this record is about (its bucket copying, or just switched), or null for a run with no
   *     moves
   * @param rowsPerSecond rows copied per second of this run so far
   * @param timeLeft the time left at the buckets per second so far; null until the first bucket is done
   */
  public record Progress(MoveProgress recorded, @Nullable BucketMove bucket, double rowsPerSecond,
      @Nullable Duration timeLeft) {

    /** The rate and time left of a stored record, at its {@code updatedAtMillis}. */
    public static Progress of(MoveProgress recorded, @Nullable BucketMove bucket) {
      long elapsed = Math.max(1, recorded.updatedAtMillis() - recorded.startedAtMillis());
      double rate = recorded.rowsCopied() * 1000.0 / elapsed;
      Duration left = recorded.bucketsDone() == 0 ? null : Duration.ofMillis(
          elapsed * (recorded.bucketsTotal() - recorded.bucketsDone()) / recorded.bucketsDone());
      return new Progress(recorded, bucket, rate, left);
    }

    /** E.g. {@code buckets 5/32, 12345 rows, 2310 rows/s, time left 1m12s}. */
    public String describe() {
      return "buckets " + recorded.bucketsDone() + "/" + recorded.bucketsTotal() + ", " + recorded.rowsCopied()
          + " rows, " + Math.round(rowsPerSecond) + " rows/s, time left "
          + (recorded.bucketsDone() == recorded.bucketsTotal() ? "0s" : timeLeft == null
              ? "unknown until a bucket is done" : duration(timeLeft));
    }

    /** {@code 1h02m03s}, {@code 2m05s}, {@code 7s}. */
    public static String duration(Duration d) {
      long s = Math.max(0, (d.toMillis() + 999) / 1000);
      return s >= 3600 ? String.format(Locale.ROOT, "%dh%02dm%02ds", s / 3600, s / 60 % 60, s % 60)
          : s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
    }
  }

  /**
   * The SQL of the gene of a whole-number key column for {@code bucketCount = 2^G} buckets: its low G bits, as
   * routing computes them ({@code Genes.of(long, int)}), negative keys included: {@code MOD(MOD(key, 2^G) + 2^G,
   * 2^G)} ({@code MOD} of a negative number is negative or zero, so the inner {@code MOD} alone would put -59 in
   * bucket -59, not 5). MariaDB/MySQL, PostgreSQL and H2 compute it alike.
   */
  public static String geneSql(String keyColumn, int bucketCount) {
    return "MOD(MOD(" + keyColumn + ", " + bucketCount + ") + " + bucketCount + ", " + bucketCount + ")";
  }

  /** The table at the destination a bucket is copied into, which no rule routes to: {@code <table>_gid_copy}. */
  public static String stagingTable(String physical) {
    return physical + "_gid_copy";
  }

  /**
   * The table at the source the moved rows are set aside in at the switch, which no rule routes to, until
   * {@link #cleanup}: {@code <table>_gid_aside}.
   */
  public static String asideTable(String physical) {
    return physical + "_gid_aside";
  }

  /**
   * Creates the staging table at the destination and the side table at the source with the columns the table has
   * now (those a row can be written with: generated columns are left out, the database computes them again). One
   * that exists with other columns (the table changed since an earlier move) is made again when it is empty, and
   * refused, naming both column lists, while it still holds rows: run {@code cleanup} first.
   */
  private void createSideTables(BucketMove move) {
    for (Table table : tables) {
      String physical = table.physicalTable().apply(move.bucket());
      Columns columns = columns(move.from(), physical);
      Columns there = columns(move.to(), physical);
      if (!there.names().equals(columns.names())) {
        throw new GeneIdException(physical + " has the columns " + columns.names() + " on target " + move.from()
            + " but " + there.names() + " on target " + move.to() + ": give both the same columns, in the same order,"
            + " before moving bucket " + move.bucket() + "; nothing was frozen");
      }
      sideTable(move.to(), physical, stagingTable(physical), columns);
      sideTable(move.from(), physical, asideTable(physical), columns);
    }
  }

  private void sideTable(int target, String physical, String side, Columns columns) {
    DataSource ds = target(target);
    if (exists(ds, side)) {
      Columns present = columns(target, side);
      if (present.names().equals(columns.names())) {
        return;
      }
      long rows = count(ds, "SELECT COUNT(*) FROM " + side);
      if (rows > 0) {
        throw new GeneIdException(side + " on target " + target + " has the columns " + present.names() + " but "
            + physical + " now has " + columns.names() + ", and it still holds " + rows + " rows of an earlier move;"
            + " run `gene-id reshard cleanup` (JdbcBucketMover.cleanup) first, then move again; nothing was frozen");
      }
      update(ds, "DROP TABLE " + side);
    }
    update(ds, "CREATE TABLE " + side + " AS SELECT " + columns.list() + " FROM " + physical + " WHERE 1 = 0");
  }

  /**
   * The columns of a table a copy writes, in table order: every column but the generated ones; {@code overriding}
   * when one of them is an identity column {@code GENERATED ALWAYS} (PostgreSQL, H2), whose value an INSERT may
   * give only with {@code OVERRIDING SYSTEM VALUE}.
   */
  record Columns(List<String> names, boolean overriding) {
    String list() {
      return String.join(", ", names);
    }

    String insertInto(String table) {
      return "INSERT INTO " + table + " (" + list() + ")" + (overriding ? " OVERRIDING SYSTEM VALUE" : "");
    }
  }

  private Columns columns(int target, String physical) {
    try (Connection c = target(target).getConnection()) {
      DatabaseMetaData md = c.getMetaData();
      for (String name : new LinkedHashSet<>(List.of(physical, physical.toUpperCase(Locale.ROOT),
          physical.toLowerCase(Locale.ROOT)))) {
        List<String> names = new ArrayList<>();
        try (ResultSet rs = md.getColumns(c.getCatalog(), c.getSchema(), name, null)) {
          TreeMap<Integer, String> ordered = new TreeMap<>();
          while (rs.next()) {
            if (!"YES".equalsIgnoreCase(rs.getString("IS_GENERATEDCOLUMN"))) {
              ordered.put(rs.getInt("ORDINAL_POSITION"), rs.getString("COLUMN_NAME"));
            }
          }
          names.addAll(ordered.values());
        }
        if (names.isEmpty()) {
          continue;
        }
        boolean always = false;
        if (BucketFence.Kind.of(c) != BucketFence.Kind.MYSQL) {
          try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM information_schema.columns"
              + " WHERE table_schema = ? AND table_name = ? AND identity_generation = 'ALWAYS'")) {
            ps.setString(1, c.getSchema());
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
              always = rs.next() && rs.getLong(1) > 0;
            }
          }
        }
        return new Columns(List.copyOf(names), always);
      }
      throw new GeneIdException("no table " + physical + " on target " + target);
    } catch (SQLException e) {
      throw new GeneIdException("reading the columns of " + physical + " on target " + target + " failed: "
          + e.getMessage(), e);
    }
  }

  /**
   * Deletes, before a fresh freeze, the bucket's rows at the destination: in the staging table (a copy of an
   * abandoned run), in the routed table (a copy a crash left between the publication and the switch) and in the
   * side table (the copy set aside when the bucket last moved away from there, not yet cleaned up: a bucket moved
   * back). The destination does not own the bucket, so no read by key goes there and nothing there is current; left
   * in the staging table, such rows would pass for the copy of an interrupted run (which resumes after the last row
   * it committed) and skip every row. A bucket already FROZEN is an interrupted move's: its staged rows are that
   * run's copy, and are kept.
   */
  private void dropStaleCopies(BucketMove move, int bucketCount) {
    long stale = 0;
    for (Table table : tables) {
      String physical = table.physicalTable().apply(move.bucket());
      String where = " WHERE " + geneSql(table.keyColumn(), bucketCount) + " = " + move.bucket();
      stale += update(target(move.to()), "DELETE FROM " + stagingTable(physical) + where);
      stale += update(target(move.to()), "DELETE FROM " + physical + where);
      if (exists(target(move.to()), asideTable(physical))) {
        stale += update(target(move.to()), "DELETE FROM " + asideTable(physical) + where);
      }
    }
    if (stale > 0) {
      LOG.info("bucket {}: deleted {} stale rows at target {}, copies an earlier move left there", move.bucket(),
          stale, move.to());
    }
  }

  /**
   * Publishes the verified copy at the destination: in one transaction there, the staged rows move into the routed
   * table (after deleting any a crash left there) and leave the staging table.
   */
  private void publishCopy(BucketMove move, int bucketCount) {
    try {
      inTransaction(target(move.to()), st -> {
        for (Table table : tables) {
          String physical = table.physicalTable().apply(move.bucket());
          String where = " WHERE " + geneSql(table.keyColumn(), bucketCount) + " = " + move.bucket();
          Columns columns = columns(move.to(), physical);
          st.executeUpdate("DELETE FROM " + physical + where);
          int in = st.executeUpdate(columns.insertInto(physical) + " SELECT " + columns.list() + " FROM "
              + stagingTable(physical) + where);
          int out = st.executeUpdate("DELETE FROM " + stagingTable(physical) + where);
          if (in != out) {
            throw new SQLException("published " + in + " rows of " + physical + " but staged " + out);
          }
        }
        return null;
      });
    } catch (SQLException e) {
      throw new GeneIdException("publishing the copy of bucket " + move.bucket() + " at target " + move.to()
          + " failed: " + e.getMessage() + "; the bucket stays SWITCHING on target " + move.from() + ", run the move"
          + " again", e);
    }
  }

  /**
   * Sets the old rows aside at the source once every router reads the bucket at the destination: in one transaction
   * there, the bucket's rows move from the routed table into {@link #asideTable}, which no rule routes to.
   */
  private long setAside(BucketMove move, int bucketCount) {
    try {
      return inTransaction(target(move.from()), st -> {
        long rows = 0;
        for (Table table : tables) {
          String physical = table.physicalTable().apply(move.bucket());
          String where = " WHERE " + geneSql(table.keyColumn(), bucketCount) + " = " + move.bucket();
          Columns columns = columns(move.from(), asideTable(physical));
          st.executeUpdate(columns.insertInto(asideTable(physical)) + " SELECT " + columns.list() + " FROM " + physical
              + where);
          rows += st.executeUpdate("DELETE FROM " + physical + where);
        }
        return rows;
      });
    } catch (SQLException e) {
      throw new GeneIdException("setting bucket " + move.bucket() + "'s old rows aside at target " + move.from()
          + " failed: " + e.getMessage() + "; the bucket stays SWITCHING (scans of the family and its writes are"
          + " refused, retryably): run the move again, which sets them aside first", e);
    }
  }

  /** Work on one statement of a transaction. */
  @FunctionalInterface
  private interface InTransaction<T> {
    T run(Statement statement) throws SQLException;
  }

  /**
   * Runs {@code work} in one transaction on {@code ds}, as the mover (its writes pass the fence): committed if it
   * returns, rolled back if it throws.
   */
  private static <T> T inTransaction(DataSource ds, InTransaction<T> work) throws SQLException {
    try (Connection c = ds.getConnection()) {
      BucketFence.enter(c);
      try {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
          T result = work.run(st);
          c.commit();
          return result;
        } catch (SQLException | RuntimeException e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
        }
      } finally {
        BucketFence.leave(c);
      }
    }
  }

  private static boolean exists(DataSource ds, String table) {
    try (Connection c = ds.getConnection()) {
      DatabaseMetaData md = c.getMetaData();
      for (String name : new LinkedHashSet<>(List.of(table, table.toUpperCase(Locale.ROOT),
          table.toLowerCase(Locale.ROOT)))) {
        try (ResultSet rs = md.getTables(c.getCatalog(), c.getSchema(), name, new String[] {"TABLE"})) {
          if (rs.next()) {
            return true;
          }
        }
      }
      return false;
    } catch (SQLException e) {
      throw new GeneIdException("looking for table " + table + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Refuses, before anything freezes, a key column whose gene SQL cannot compute: anything but a whole number (a
   * string key's gene is the CRC-32C of its UTF-8 bytes).
   */
  private void checkKeyColumns(BucketMove move, int geneBits) {
    for (Table table : tables) {
      String physical = table.physicalTable().apply(move.bucket());
      try (Connection c = target(move.from()).getConnection(); PreparedStatement ps = c.prepareStatement(
          "SELECT " + table.keyColumn() + " FROM " + physical + " WHERE 1 = 0"); ResultSet rs = ps.executeQuery()) {
        ResultSetMetaData md = rs.getMetaData();
        int type = md.getColumnType(1);
        boolean whole = type == Types.BIGINT || type == Types.INTEGER || type == Types.SMALLINT
            || type == Types.TINYINT || (type == Types.NUMERIC || type == Types.DECIMAL) && md.getScale(1) == 0;
        if (!whole) {
          boolean text = type == Types.CHAR || type == Types.VARCHAR || type == Types.LONGVARCHAR
              || type == Types.NCHAR || type == Types.NVARCHAR || type == Types.LONGNVARCHAR || type == Types.CLOB;
          throw new GeneIdException(physical + "." + table.keyColumn() + " on target " + move.from() + " is "
              + (text ? "a character column (" : "not a whole-number column (") + md.getColumnTypeName(1)
              + "): the mover selects a bucket by the low " + geneBits + " bits of a whole-number key, and a string"
              + " key's gene is its CRC-32C (Genes.of(String, int)), which SQL does not compute; move " + physical
              + " by hand (see docs/resharding.md, 'Moving buckets offline') or key it by a whole number");
        }
      } catch (SQLException e) {
        throw new GeneIdException("reading the key column " + table.keyColumn() + " of " + physical + " on target "
            + move.from() + " failed: " + e.getMessage(), e);
      }
    }
  }

  /** One run's counters, recorded in the store as they change. */
  private final class Run {
    long startedAt = clock.getAsLong();
    int total;
    int done;
    long rows;
    long version;

    Run(int total, long version) {
      this.total = total;
      this.version = version;
    }

    /**
     * Continues the counters of an interrupted run of the same move: one whose last record is unfinished with as
     * many buckets left as this run has to move (its frozen bucket among them).
     */
    void resume(@Nullable MoveProgress last) {
      if (last != null && last.bucketsDone() < last.bucketsTotal()
          && last.bucketsTotal() - last.bucketsDone() == total) {
        total = last.bucketsTotal();
        done = last.bucketsDone();
        rows = last.rowsCopied();
        startedAt = last.startedAtMillis();
      }
    }

    void record(@Nullable BucketMove bucket) {
      MoveProgress p = new MoveProgress(version, done, total, rows, startedAt, clock.getAsLong());
      store.saveProgress(name, p);
      listener.accept(Progress.of(p, bucket));
    }
  }

  /**
   * Moves every bucket whose target differs between the stored map and {@code next}, one at a time; a bucket already
   * on its new target is skipped, so a second run after a crash resumes.
   *
   * @throws GeneIdException if the store or a database fails, the routers do not follow in time, a transaction of
   *     before the freeze stays open past the transaction wait, or a verification finds the two sides different (the bucket then stays frozen on its old node, which still has every row)
   */
  public List<MoveResult> moveTo(BucketMap next) {
    BucketMap current = load();
    int switched = 0; // buckets an interrupted run had switched to their new target: moved, counted as done
    for (int b : current.bucketsIn(BucketState.SWITCHING)) {
      current = finishSwitch(current, b); // an interrupted switch: its bucket stays where the map names it
      switched += next.geneBits() == current.geneBits() && current.target(b) == next.target(b) ? 1 : 0;
    }
    if (next.geneBits() != current.geneBits()) {
      throw new IllegalArgumentException("the new map has gene-bits " + next.geneBits() + " but map '" + name
          + "' has " + current.geneBits());
    }
    releaseStaleFences(current);
    List<BucketMove> moves = new ArrayList<>();
    for (int b = 0; b < current.bucketCount(); b++) {
      if (current.target(b) != next.target(b)) {
        moves.add(new BucketMove(b, current.target(b), next.target(b)));
      } else if (current.state(b) == BucketState.FROZEN) {
        throw new GeneIdException("bucket " + b + " of map '" + name + "' is FROZEN by an interrupted move, but the"
            + " new map keeps it on target " + current.target(b) + "; give a new map that moves it (plan from the"
            + " stored map, version " + current.version() + ")");
      }
    }
    Run run = new Run(moves.size() + switched, current.version());
    run.resume(store.progress(name).orElse(null));
    run.done += switched;
    run.record(moves.isEmpty() ? null : moves.get(0));
    List<MoveResult> results = new ArrayList<>();
    for (BucketMove move : moves) {
      results.add(move(move, run));
    }
    uninstallUnusedFences(current);
    return results;
  }

  /** Moves one bucket: freeze, wait, copy, verify, switch, wait. */
  public MoveResult move(BucketMove move) {
    releaseStaleFences(load());
    Run run = new Run(1, load().version());
    return move(move, run);
  }

  private MoveResult move(BucketMove move, Run run) {
    BucketMap map = load();
    if (map.state(move.bucket()) == BucketState.SWITCHING) {
      map = finishSwitch(map, move.bucket()); // an interrupted switch; then the move starts over
    }
    if (map.target(move.bucket()) != move.from()) {
      throw new GeneIdException("bucket " + move.bucket() + " is on target " + map.target(move.bucket())
          + ", not " + move.from() + ", in map '" + name + "' version " + map.version());
    }
    checkKeyColumns(move, map.geneBits());
    createSideTables(move);
    BucketFence fence = fence(map);
    long frozenAt = clock.getAsLong();
    // the fence in every database first: from here no write of the bucket commits anywhere but the mover's,
    // whatever the client, once the transactions open now have ended (awaited below); the other databases never own
    // the bucket while it moves (an UPDATE that sets a key into it, routed by its old key, is refused there too)
    List<BucketFence.Fenced> fenced = BucketFence.tables(tables, map.geneBits());
    boolean freezing = map.state(move.bucket()) != BucketState.FROZEN;
    try {
      for (int target : new TreeMap<>(targets).keySet()) {
        fence.fence(target(target), target, move.bucket(), map.version() + 1, runId, fenced);
      }
      if (freezing) {
        dropStaleCopies(move, map.bucketCount());
        map = publish(map, map.withState(List.of(move.bucket()), BucketState.FROZEN));
      }
    } catch (RuntimeException failed) {
      if (freezing) { // the fence of a freeze that never was: this run takes back what it made, nothing another made
        for (int target : targets.keySet()) {
          fence.unfenceOwn(target(target), target, move.bucket(), runId);
        }
      }
      throw failed;
    }
    run.version = map.version();
    awaitRouters(map.version());
    sleep(settle);
    awaitTransactions(move.bucket(), "its fence", move.from(), move.to());
    long copied = 0;
    for (Table table : tables) {
      copied += copy(move, table, run);
    }
    for (Table table : tables) {
      verify(move, table);
    }
    // the switch (see the class comment): scans refused, copy published, map switched, old rows set aside
    map = publish(map, map.withState(List.of(move.bucket()), BucketState.SWITCHING));
    awaitRouters(map.version());
    sleep(settle); // a scan that passed the audit before the routers saw SWITCHING reaches its databases
    publishCopy(move, map.bucketCount());
    // a snapshot taken before the publication (REPEATABLE READ) would not see the copy: none may be open when the
    // routers start reading the bucket there
    awaitTransactions(move.bucket(), "the publication of its copy", move.to(), move.from());
    map = publish(map, map.withTarget(move.bucket(), move.to()));
    awaitRouters(map.version());
    sleep(settle); // a statement routed under the old map before the routers saw the switch reaches its database
    setAside(move, map.bucketCount());
    // a snapshot taken before the set-aside still holds the old rows: none may be open when scans count the bucket
    awaitTransactions(move.bucket(), "the set-aside of its old rows", move.from(), move.to());
    fence.unfence(target(move.to()), move.to(), move.bucket()); // the new node takes its writes; the old keeps refusing
    map = publish(map, map.withState(List.of(move.bucket()), BucketState.MOVED));
    Duration frozen = Duration.ofMillis(clock.getAsLong() - frozenAt);
    run.version = map.version();
    run.done++;
    MoveProgress p = new MoveProgress(run.version, run.done, run.total, run.rows, run.startedAt, clock.getAsLong());
    store.saveProgress(name, p);
    Progress progress = Progress.of(p, move);
    LOG.info("moved bucket {} from {} to {}: {} rows, frozen {} ms; {}", move.bucket(), move.from(), move.to(),
        copied, frozen.toMillis(), progress.describe());
    listener.accept(progress);
    return new MoveResult(move, copied, frozen);
  }

  /**
   * Finishes the switch of a bucket an interrupted run left {@link BucketState#SWITCHING}: its target (old or new)
   * holds its rows, as a read by key needs; once every live router names that target, the bucket's rows on every other
   * target are set aside, and the bucket becomes {@link BucketState#MOVED}. Scans stay refused until then.
   */
  private BucketMap finishSwitch(BucketMap map, int bucket) {
    awaitRouters(map.version());
    sleep(settle); // a statement routed under an older map before the routers saw this one reaches its database
    int owner = map.target(bucket);
    BucketFence fence = fence(map);
    List<Integer> others = new ArrayList<>();
    for (int other : targets.keySet()) {
      if (other != owner) {
        BucketMove aside = new BucketMove(bucket, other, owner);
        createSideTables(aside);
        fence.fence(target(other), other, bucket, map.version(), runId, BucketFence.tables(tables, map.geneBits()));
        setAside(aside, map.bucketCount());
        others.add(other);
      }
    }
    others.add(owner);
    awaitTransactions(bucket, "the set-aside of its old rows", others.stream().mapToInt(Integer::intValue).toArray());
    fence.unfence(target(owner), owner, bucket);
    LOG.info("bucket {}: finished the switch an interrupted run left, the bucket stays on target {}", bucket, owner);
    return publish(map, map.withState(List.of(bucket), BucketState.MOVED));
  }

  /**
   * Deletes the rows of every {@link BucketState#MOVED} bucket from the targets it is no longer on (the rows set
   * aside in {@link #asideTable}, and any a crash at the switch left in the routed table), lifts their fences there,
   * and marks the bucket NORMAL; then removes the fence's triggers from every database where no bucket of the map is
   * fenced any more.
   *
   * <p>Bucket by bucket, and safe beside a move of the same bucket (a move back, by another mover): on each old node
   * the deletion runs in one transaction that first locks the bucket's fence row there and checks that it is still the
   * one the finished move left (fenced at or before the map version cleanup read); a move that started since has
   * fenced it again, with a newer version, and that node is left alone. The bucket becomes NORMAL by a
   * compare-and-set on the map that re-reads it and requires the bucket still MOVED on the same target; otherwise it
   * stays as the newer move left it.
   *
   * @return the rows deleted
   */
  public long cleanup(String reason) {
    BucketMap map = load();
    releaseStaleFences(map);
    BucketFence fence = fence(map);
    long deleted = 0;
    List<Integer> cleaned = new ArrayList<>();
    List<Integer> moved = map.bucketsIn(BucketState.MOVED);
    for (int bucket : moved) {
      int owner = map.target(bucket);
      boolean complete = true;
      for (Map.Entry<Integer, DataSource> target : targets.entrySet()) {
        if (target.getKey() != owner) {
          long rows = cleanupOn(fence, map, bucket, target.getKey(), target.getValue());
          complete &= rows >= 0;
          deleted += Math.max(0, rows);
        }
      }
      if (complete && markNormal(bucket, owner, map.version())) {
        cleaned.add(bucket);
      }
    }
    for (int target : targets.keySet()) {
      fence.uninstallIfUnused(target(target), target, BucketFence.tables(tables, map.geneBits()));
    }
    LOG.info("cleanup ({}): {} rows of {} moved buckets deleted", reason, deleted, cleaned.size());
    return deleted;
  }

  /**
   * Deletes a moved bucket's rows on one old node and lifts its fence there, in one transaction holding the fence
   * row's lock; -1 when a newer move fenced the bucket there since cleanup read the map (nothing is deleted then).
   */
  private long cleanupOn(BucketFence fence, BucketMap map, int bucket, int target, DataSource ds) {
    try {
      return inTransaction(ds, st -> {
        Connection c = st.getConnection();
        // the routed table is touched only under the fence row the finished move left here: without it this node may
        // own the bucket again (a move back lifted it as its destination), with a newer one a move is under way
        boolean fenceRow = false;
        if (exists(ds, BucketFence.TABLE)) {
          try (PreparedStatement ps = c.prepareStatement("SELECT fenced_version FROM " + BucketFence.TABLE
              + " WHERE map_name = ? AND bucket = ? FOR UPDATE")) {
            ps.setString(1, name);
            ps.setInt(2, bucket);
            try (ResultSet rs = ps.executeQuery()) {
              fenceRow = rs.next();
              if (fenceRow && rs.getLong(1) > map.version()) {
                LOG.info("cleanup: bucket {} was fenced again on target {} (version {}, cleanup read {}): a newer"
                    + " move; left alone", bucket, target, rs.getLong(1), map.version());
                return -1L;
              }
            }
          }
        }
        long rows = 0;
        for (Table table : tables) {
          String physical = table.physicalTable().apply(bucket);
          String where = " WHERE " + geneSql(table.keyColumn(), map.bucketCount()) + " = " + bucket;
          if (fenceRow) {
            rows += st.executeUpdate("DELETE FROM " + physical + where); // left by a crash at the switch
          }
          if (exists(ds, asideTable(physical))) { // set-aside rows are never read: always safe to delete
            rows += st.executeUpdate("DELETE FROM " + asideTable(physical) + where);
          }
        }
        if (fenceRow) {
          try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + BucketFence.TABLE
              + " WHERE map_name = ? AND bucket = ?")) {
            ps.setString(1, name);
            ps.setInt(2, bucket);
            ps.executeUpdate();
          }
        }
        return rows;
      });
    } catch (SQLException e) {
      throw new GeneIdException("cleanup of bucket " + bucket + " on target " + target + " failed: "
          + e.getMessage() + "; its rows there stay set aside, run cleanup again", e);
    }
  }

  /** Marks {@code bucket} NORMAL if it is still MOVED on {@code owner}, re-reading the map on a lost race. */
  private boolean markNormal(int bucket, int owner, long readVersion) {
    while (true) {
      BucketMap now = load();
      if (now.state(bucket) != BucketState.MOVED || now.target(bucket) != owner) {
        LOG.info("cleanup: bucket {} changed since version {} ({} on target {}); left as it is", bucket, readVersion,
            now.state(bucket), now.target(bucket));
        return false;
      }
      BucketMap next = now.withState(List.of(bucket), BucketState.NORMAL).withVersion(now.version() + 1);
      if (store.compareAndSet(name, now.version(), next)) {
        return true;
      }
    }
  }

  private BucketFence fence(BucketMap map) {
    return new BucketFence(name, map.geneBits(), transactionWait);
  }

  /**
   * Lifts, on every target, the fence rows of buckets that target owns and that are not moving: left by a mover that
   * lost the compare-and-set of its freeze, or died between its fence and its freeze.
   */
  private void releaseStaleFences(BucketMap current) {
    BucketFence fence = fence(current);
    for (int target : targets.keySet()) {
      fence.releaseStale(target(target), target, current);
    }
  }

  /** Removes the fence's triggers from the targets where no bucket of the map is fenced any more. */
  private void uninstallUnusedFences(BucketMap map) {
    List<BucketFence.Fenced> fenced = BucketFence.tables(tables, map.geneBits());
    BucketFence fence = fence(map);
    for (int target : targets.keySet()) {
      fence.uninstallIfUnused(target(target), target, fenced);
    }
  }

  private long copy(BucketMove move, Table table, Run run) {
    int mod = load().bucketCount();
    String physical = table.physicalTable().apply(move.bucket());
    String where = geneSql(table.keyColumn(), mod) + " = " + move.bucket();
    long copied = 0;
    try (Connection src = target(move.from()).getConnection(); Connection dst = target(move.to()).getConnection()) {
      List<String> key = primaryKey(src, physical, move.from());
      String order = String.join(", ", key);
      String after = key.size() == 1 ? key.get(0) + " > ?"
          : "(" + order + ") > (" + String.join(", ", Collections.nCopies(key.size(), "?")) + ")";
      // resume after the last row, in primary-key order, that an earlier run committed at the destination
      Object @Nullable [] last = null;
      try (PreparedStatement ps = dst.prepareStatement("SELECT " + order + " FROM " + stagingTable(physical)
          + " WHERE " + where + " ORDER BY " + String.join(" DESC, ", key) + " DESC")) {
        ps.setMaxRows(1);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            last = new Object[key.size()];
            for (int i = 0; i < key.size(); i++) {
              last[i] = rs.getObject(i + 1);
            }
          }
        }
      }
      dst.setAutoCommit(false);
      while (true) {
        List<Object[]> rows = new ArrayList<>();
        String insert;
        int[] keyIndex = new int[key.size()];
        try (PreparedStatement ps = src.prepareStatement("SELECT " + columns(move.from(), physical).list() + " FROM "
            + physical + " WHERE " + where
            + (last == null ? "" : " AND " + after) + " ORDER BY " + order)) {
          ps.setMaxRows(batchSize);
          for (int i = 0; last != null && i < last.length; i++) {
            ps.setObject(i + 1, last[i]);
          }
          try (ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            StringBuilder columns = new StringBuilder();
            for (int i = 1; i <= n; i++) {
              columns.append(i > 1 ? ", " : "").append(md.getColumnLabel(i));
              for (int k = 0; k < key.size(); k++) {
                if (md.getColumnLabel(i).equalsIgnoreCase(key.get(k))) {
                  keyIndex[k] = i - 1;
                }
              }
            }
            insert = "INSERT INTO " + stagingTable(physical) + " (" + columns + ") VALUES ("
                + String.join(", ", Collections.nCopies(n, "?")) + ")";
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
        run.rows += rows.size();
        Object[] lastRow = rows.get(rows.size() - 1);
        last = new Object[key.size()];
        for (int k = 0; k < key.size(); k++) {
          last[k] = lastRow[keyIndex[k]];
        }
        run.record(move);
        if (!batchPause.isZero()) {
          sleep(batchPause);
        }
      }
      dst.setAutoCommit(true);
    } catch (SQLException e) {
      throw new GeneIdException("copying bucket " + move.bucket() + " of " + physical + " from target "
          + move.from() + " to " + move.to() + " failed: " + e.getMessage(), e);
    }
    return copied;
  }

  /**
   * The primary key columns of {@code physical}, in key order: the unique order a bucket's rows are paged and
   * compared in, so that no row is skipped at a batch boundary (a key column such as {@code order_id} is not unique).
   */
  private static List<String> primaryKey(Connection c, String physical, int target) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    for (String name : new LinkedHashSet<>(List.of(physical, physical.toUpperCase(Locale.ROOT),
        physical.toLowerCase(Locale.ROOT)))) {
      TreeMap<Short, String> columns = new TreeMap<>();
      try (ResultSet rs = md.getPrimaryKeys(c.getCatalog(), c.getSchema(), name)) {
        while (rs.next()) {
          columns.put(rs.getShort("KEY_SEQ"), rs.getString("COLUMN_NAME"));
        }
      }
      if (!columns.isEmpty()) {
        return List.copyOf(columns.values());
      }
    }
    throw new GeneIdException(physical + " on target " + target + " has no primary key: the mover pages a bucket's"
        + " rows in primary-key order, the one order in which no row can be skipped or copied twice (a key column"
        + " such as order_id is not unique); add a primary key to " + physical);
  }

  /**
   * Waits until every transaction open now on each of {@code on} has ended, as the database lists them (by identity:
   * an id that comes back later is another transaction only if it began later). Called after each step that changes
   * what a transaction may see or write: after the fence (a write that passed the fence check before the fence row
   * committed may sit in one, and must commit before the copy reads the bucket; a transaction begun later sees the
   * fence row), after the publication of the copy (a snapshot taken before it, REPEATABLE READ, would not see the
   * copy once the routers read the bucket there) and after the set-aside (a snapshot taken before it still holds the
   * old rows, and a scan could count them with the new ones). MariaDB/MySQL lists them in
   * {@code information_schema.INNODB_TRX} (connections whose database is the node's, by trx_id; MariaDB refreshes
   * it only when it has not been read for 100 ms, so the mover reads it every 150 ms, and a tool that reads it more
   * often keeps it stale), PostgreSQL in {@code pg_stat_activity} (client backends of the database, by pid and
   * xact_start) and {@code pg_prepared_xacts} (prepared transactions, by gid), H2 in
   * {@code INFORMATION_SCHEMA.SESSIONS} (sessions holding uncommitted changes). Past {@code transactionWait} the move
   * stops, naming the oldest.
   */
  private void awaitTransactions(int bucket, String step, int... on) {
    long deadline = System.nanoTime() + transactionWait.toNanos();
    for (int target : on) {
      try (Connection c = target(target).getConnection()) {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        boolean postgres = product.contains("postgres");
        String sql = postgres ? POSTGRES_TRANSACTIONS : product.contains("h2") ? H2_TRANSACTIONS
            : MARIADB_TRANSACTIONS;
        // MariaDB refreshes INNODB_TRX from a cache only when it has not been read for 100 ms: poll slower than that,
        // and take the transactions open at the step from two reads, the second one surely fresh
        Duration poll = sql == MARIADB_TRANSACTIONS ? Duration.ofMillis(150) : Duration.ofMillis(20);
        Set<String> atStep = new HashSet<>(openTransactions(c, sql, target, postgres).keySet());
        if (sql == MARIADB_TRANSACTIONS) {
          sleep(poll);
          atStep.addAll(openTransactions(c, sql, target, postgres).keySet());
        }
        while (true) {
          Map<String, String> open = openTransactions(c, sql, target, postgres);
          open.keySet().retainAll(atStep);
          if (open.isEmpty()) {
            break;
          }
          if (System.nanoTime() > deadline) {
            List<String> waiting = new ArrayList<>(open.values());
            throw new GeneIdException("transaction " + waiting.get(0) + ", did not end within "
                + transactionWait.toMillis() + " ms of " + step + " (bucket " + bucket + "); the bucket stays "
                + "fenced and its move unfinished: end that transaction (a write of before the step, or a snapshot"
                + " of before it, may be in it), or raise the transaction wait, and run the move again"
                + (waiting.size() > 1 ? " (" + (waiting.size() - 1) + " more open: "
                    + waiting.subList(1, Math.min(waiting.size(), 4)) + ")" : ""));
          }
          sleep(poll);
        }
      } catch (SQLException e) {
        throw new GeneIdException("listing the transactions open on target " + target + " failed: "
            + e.getMessage() + "; the bucket " + bucket + " stays fenced, run the move again", e);
      }
    }
  }

  /**
   * The transactions open on the database of {@code c} (other than its own), oldest first, as a message:
   * {@code transaction <the oldest> <what>} and how many more.
   */
  static String describeOpenTransactions(Connection c, int target, String what) {
    try {
      String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
      boolean postgres = product.contains("postgres");
      String sql = postgres ? POSTGRES_TRANSACTIONS : product.contains("h2") ? H2_TRANSACTIONS : MARIADB_TRANSACTIONS;
      List<String> open = new ArrayList<>(openTransactions(c, sql, target, postgres).values());
      if (open.isEmpty()) {
        return "no transaction listed on target " + target + " " + what;
      }
      return "transaction " + open.get(0) + " " + what + (open.size() > 1 ? " (" + (open.size() - 1) + " more open: "
          + open.subList(1, Math.min(open.size(), 4)) + ")" : "");
    } catch (SQLException e) {
      return "the transactions on target " + target + " could not be listed (" + e.getMessage() + ") " + what;
    }
  }

  // each lists the other connections' open transactions, oldest first: an identity, a description, the age in ms
  private static final String MARIADB_TRANSACTIONS = "SELECT t.trx_id, CONCAT('InnoDB ', t.trx_id, ' of connection ',"
      + " t.trx_mysql_thread_id), CONCAT_WS(', ', p.USER, p.HOST, t.trx_state, NULLIF(p.STATE, ''), CONCAT(t.trx_rows_modified, ' rows"
      + " modified'), CONCAT(t.trx_rows_locked, ' rows locked'), LEFT(t.trx_query, 100)),"
      + " TIMESTAMPDIFF(SECOND, t.trx_started, NOW()) * 1000 FROM information_schema.INNODB_TRX t"
      + " JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
      + " WHERE t.trx_mysql_thread_id <> CONNECTION_ID() AND p.DB = DATABASE() ORDER BY t.trx_started";
  private static final String POSTGRES_TRANSACTIONS = "SELECT pid || '/' || xact_start, 'of backend ' || pid"
      + " || COALESCE(' (xid ' || backend_xid || ')', ''), concat_ws(', ', usename, client_addr, application_name,"
      + " state, left(query, 100)), (extract(epoch from clock_timestamp() - xact_start) * 1000)::bigint"
      + " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
      + " AND backend_type = 'client backend' AND xact_start IS NOT NULL ORDER BY xact_start";
  private static final String POSTGRES_PREPARED = "SELECT 'prepared ' || gid || '/' || transaction, 'prepared"
      + " transaction ' || gid, concat_ws(', ', owner, 'prepared at ' || prepared), (extract(epoch from"
      + " clock_timestamp() - prepared) * 1000)::bigint FROM pg_prepared_xacts WHERE database = current_database()";
  private static final String H2_TRANSACTIONS = "SELECT SESSION_ID, 'of H2 session ' || SESSION_ID,"
      + " CONCAT_WS(', ', USER_NAME, SESSION_STATE, LEFT(EXECUTING_STATEMENT, 100)),"
      + " DATEDIFF('MILLISECOND', SESSION_START, CURRENT_TIMESTAMP) FROM INFORMATION_SCHEMA.SESSIONS"
      + " WHERE SESSION_ID <> SESSION_ID() AND CONTAINS_UNCOMMITTED ORDER BY SESSION_START";

  private static Map<String, String> openTransactions(Connection c, String sql, int target, boolean postgres)
      throws SQLException {
    Map<String, String> open = new LinkedHashMap<>();
    for (String query : postgres ? List.of(sql, POSTGRES_PREPARED) : List.of(sql)) {
      try (PreparedStatement ps = c.prepareStatement(query); ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          open.put(rs.getString(1), rs.getString(2) + " on target " + target + ", open for " + rs.getLong(4)
              + " ms (" + rs.getString(3) + ")");
        }
      }
    }
    return open;
  }

  /**
   * Compares the bucket's rows on both sides, every column, in primary-key order, and names the first row that
   * differs: a count and a sum of keys pass with a stale or changed column, or a row swapped for another.
   */
  private void verify(BucketMove move, Table table) {
    int mod = load().bucketCount();
    String physical = table.physicalTable().apply(move.bucket());
    try (Connection src = target(move.from()).getConnection(); Connection dst = target(move.to()).getConnection()) {
      List<String> key = primaryKey(src, physical, move.from());
      String sql = " WHERE " + geneSql(table.keyColumn(), mod) + " = " + move.bucket() + " ORDER BY "
          + String.join(", ", key);
      String select = "SELECT " + columns(move.from(), physical).list() + " FROM ";
      try (PreparedStatement ps = src.prepareStatement(select + physical + sql);
           ResultSet a = ps.executeQuery();
           PreparedStatement pd = dst.prepareStatement(select + stagingTable(physical) + sql);
           ResultSet b = pd.executeQuery()) {
        long rows = 0;
        while (true) {
          List<String> left = a.next() ? row(a) : null;
          List<String> right = b.next() ? row(b) : null;
          if (left == null && right == null) {
            return;
          }
          if (left == null || right == null || !left.equals(right)) {
            throw new GeneIdException("bucket " + move.bucket() + " of " + physical + " differs after the copy: "
                + (left == null ? "target " + move.from() + " has " + rows + " rows, target " + move.to()
                    + " more, the next " + right
                : right == null ? "target " + move.to() + " has " + rows + " rows, target " + move.from()
                    + " more, the next " + left
                : "the first row that differs, in primary-key order, is " + left + " on target " + move.from()
                    + " but " + right + " on target " + move.to()) + "; the bucket stays frozen on target " + move.from());
          }
          rows++;
        }
      }
    } catch (SQLException e) {
      throw new GeneIdException("verifying bucket " + move.bucket() + " of " + physical + " failed: "
          + e.getMessage() + "; the bucket stays frozen on target " + move.from(), e);
    }
  }

  private static List<String> row(ResultSet rs) throws SQLException {
    int n = rs.getMetaData().getColumnCount();
    List<String> row = new ArrayList<>(n);
    for (int i = 1; i <= n; i++) {
      Object v = rs.getObject(i);
      row.add(v instanceof byte[] ? HexFormat.of().formatHex((byte[]) v)
          : v instanceof BigDecimal ? ((BigDecimal) v).stripTrailingZeros().toPlainString()
          : String.valueOf(v));
    }
    return row;
  }


  /** One statement on {@code ds}, as the mover (it passes the fence). */
  private static long update(DataSource ds, String sql) {
    try {
      return inTransaction(ds, st -> (long) st.executeUpdate(sql));
    } catch (SQLException e) {
      throw new GeneIdException(sql + " failed: " + e.getMessage(), e);
    }
  }

  private static long count(DataSource ds, String sql) {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
         ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0;
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
      // live by the store's own clock, never this host's against a router host's
      List<String> behind = new ArrayList<>();
      // refuses to go on when one router id shows two writers: it could not tell which of them has seen the change
      for (RouterHeartbeat router : store.liveRoutersOnePerId(name, liveWindow)) {
        if (router.version() < version) {
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

  /** Settings of a {@link JdbcBucketMover}. */
  public static final class Builder {
    private final BucketMapStore store;
    private final String name;
    private Map<Integer, DataSource> targets = Map.of();
    private List<Table> tables = List.of();
    private int batchSize = 500;
    private Duration routerWait = Duration.ofSeconds(30);
    private Duration settle = Duration.ofSeconds(1);
    private Duration liveWindow = Duration.ofSeconds(30);
    private Duration batchPause = Duration.ZERO;
    private Duration transactionWait = Duration.ofSeconds(30);
    private Consumer<Progress> listener = p -> { };
    private LongSupplier clock = System::currentTimeMillis;

    private Builder(BucketMapStore store, String name) {
      this.store = Objects.requireNonNull(store, "store");
      this.name = Objects.requireNonNull(name, "name");
    }

    /** Target index to database (a pool such as HikariCP); the mover never closes them. Required. */
    public Builder targets(Map<Integer, DataSource> targets) {
      this.targets = Map.copyOf(targets);
      return this;
    }

    /** The tables of the family: every table whose rows of a bucket move with it. Required, at least one. */
    public Builder tables(List<Table> tables) {
      this.tables = List.copyOf(tables);
      return this;
    }

    /** Rows per copied batch (one transaction each), in [1, 100000]. Default 500. */
    public Builder batchSize(int batchSize) {
      Checks.range("batch size", batchSize, 1, 100_000);
      this.batchSize = batchSize;
      return this;
    }

    /** How long to wait for the live routers to see a change, in [1 ms, 1 h]. Default 30 s. */
    public Builder routerWait(Duration routerWait) {
      this.routerWait = Checks.duration("router wait", routerWait, Duration.ofMillis(1), Duration.ofHours(1));
      return this;
    }

    /** How long to wait after the routers have seen a freeze, for writes already past the audit, in [0, 1 h]. */
    public Builder settle(Duration settle) {
      this.settle = Checks.duration("settle", settle, Duration.ZERO, Duration.ofHours(1));
      return this;
    }

    /**
     * A router whose last heartbeat is older is not waited for, in [1 ms, 1 h]; at least the routers'
     * {@code stale-after}. Default 30 s.
     */
    public Builder liveWindow(Duration liveWindow) {
      this.liveWindow = Checks.duration("live window", liveWindow, Duration.ofMillis(1), Duration.ofHours(1));
      return this;
    }

    /**
     * How long to wait, after the routers have seen a freeze, for the transactions open on the old node since
     * before it to end, in [1 ms, 1 h]; past it the move stops, naming the oldest. Default 30 s.
     */
    public Builder transactionWait(Duration transactionWait) {
      this.transactionWait = Checks.duration("transaction wait", transactionWait, Duration.ofMillis(1),
          Duration.ofHours(1));
      return this;
    }

    /** A pause after each copied batch, to spare the databases, in [0, 1 min]. Default 0. */
    public Builder batchPause(Duration batchPause) {
      this.batchPause = Checks.duration("batch pause", batchPause, Duration.ZERO, Duration.ofMinutes(1));
      return this;
    }

    /** Called on the mover's thread after each batch and each bucket, once the progress is stored. */
    public Builder progressListener(Consumer<Progress> listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    Builder clock(LongSupplier clock) {
      this.clock = clock;
      return this;
    }

    /**
     * The mover.
     *
     * @throws IllegalArgumentException without targets or tables
     */
    public JdbcBucketMover build() {
      if (tables.isEmpty()) {
        throw new IllegalArgumentException("a mover needs at least one table of the family");
      }
      if (targets.isEmpty()) {
        throw new IllegalArgumentException("a mover needs the databases of its targets");
      }
      return new JdbcBucketMover(this);
    }
  }
}
