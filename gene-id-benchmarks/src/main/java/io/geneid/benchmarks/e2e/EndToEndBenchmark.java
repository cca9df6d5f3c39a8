package io.geneid.benchmarks.e2e;

import io.geneid.core.GeneContext;
import java.lang.management.ManagementFactory;
import com.sun.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.apache.shardingsphere.driver.jdbc.core.statement.ShardingSpherePreparedStatement;

/**
 * Orders with items through ShardingSphere-JDBC on MariaDB, PostgreSQL or H2, for each {@link E2eRules rule set}:
 * insert of an order and its 3 items in one transaction, query of an order's items by order id, query of an item
 * by its id alone, physical tables each query reads, and the balance of rows over the tables after a low-rate and
 * a high-rate load. Run it with {@code gene-id-benchmarks/e2e.sh} (see {@code docs/benchmarks.md}).
 *
 * <p>A plain timed runner rather than JMH: every figure is a whole phase on a fresh table set (the balance phases
 * need a paced load and row counts, the inserts a transaction per order), and the comparison is across rule sets
 * measured back to back, so one <em>repetition</em> runs every rule set once in a rotated order and the report
 * gives the median over repetitions with its spread (min–max), each phase with the machine's load beside it.
 *
 * <p>Each (repetition, shape, rule set): start ShardingSphere on empty tables; warm up (inserts and queries, not
 * measured); empty the tables; <b>low-rate load</b> (one order every 20 ms, 1 thread) then balance; empty the
 * tables; <b>inserts</b> at 1 then at 2 threads (each thread its own connection, one transaction per order);
 * balance after that <b>high-rate load</b>; <b>queries</b> by order id then by item id at 1 and 2 threads over the
 * rows just inserted; tables read per query from the physical statements ShardingSphere ran for a sample.
 */
public final class EndToEndBenchmark {

  static final String INSERT_ORDER = "INSERT INTO t_order (customer_id) VALUES (?)";
  static final String INSERT_ITEM = "INSERT INTO t_order_item (order_id, amount) VALUES (?, ?)";
  static final String ITEMS_OF_ORDER = "SELECT id, amount FROM t_order_item WHERE order_id = ?";
  static final String ITEM_BY_ID = "SELECT order_id, amount FROM t_order_item WHERE id = ?";
  static final int ITEMS_PER_ORDER = 3;
  private static final Pattern ITEM_TABLE = Pattern.compile("t_order_item_\\d+");
  private static final int TABLE_SAMPLE = 50;
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** What to run, from the command line. */
  record Settings(E2eDatabases.Server server, boolean quick, int repetitions, List<E2eRules.Shape> shapes,
      List<E2eRules> rules, List<Integer> threads, int warmupOrders, int insertOrders, int queries,
      int lowRateOrders, int lowRatePeriodMillis, Path out) {

    static Settings parse(String... args) {
      E2eDatabases.Server server = E2eDatabases.Server.H2;
      boolean quick = false;
      Integer repetitions = null;
      List<E2eRules> rules = List.of(E2eRules.values());
      List<E2eRules.Shape> shapes = List.of(new E2eRules.Shape(2, 2), new E2eRules.Shape(2, 4));
      Integer orders = null;
      Path out = null;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--db" -> server = E2eDatabases.Server.of(value(args, ++i, "--db"));
          case "--quick" -> quick = true;
          case "--repetitions" -> repetitions = positive(value(args, ++i, "--repetitions"), "--repetitions");
          case "--rules" -> rules = Arrays.stream(value(args, ++i, "--rules").split(",")).map(E2eRules::of)
              .toList();
          case "--shapes" -> shapes = Arrays.stream(value(args, ++i, "--shapes").split(","))
              .map(E2eRules.Shape::of).toList();
          case "--orders" -> orders = positive(value(args, ++i, "--orders"), "--orders");
          case "--out" -> out = Path.of(value(args, ++i, "--out"));
          default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: [--db mariadb|"
              + "postgresql|h2] [--quick] [--repetitions N] [--rules " + String.join(",", E2eRules.labels())
              + "] [--shapes 2x2,2x4] [--orders N] [--out FILE]");
        }
      }
      int reps = repetitions != null ? repetitions : quick ? 3 : 5;
      Path file = out != null ? out : Path.of("gene-id-benchmarks", "results",
          "e2e-" + server.label() + (quick ? "-quick" : "") + ".md");
      int perThread = orders != null ? orders : quick ? 300 : 2000;
      return quick
          // low-rate counts are multiples of 8: gene ids then fill 4 and 8 tables exactly, as they can
          ? new Settings(server, true, reps, shapes, rules, List.of(1, 2), 300, perThread, 300, 96, 20, file)
          : new Settings(server, false, reps, shapes, rules, List.of(1, 2), 1000, perThread, 2000, 320, 20, file);
    }

    private static String value(String[] args, int i, String name) {
      if (i >= args.length) {
        throw new IllegalArgumentException(name + " needs a value");
      }
      return args[i];
    }

    private static int positive(String text, String name) {
      try {
        int n = Integer.parseInt(text);
        if (n >= 1) {
          return n;
        }
      } catch (NumberFormatException ignored) {
        // reported below
      }
      throw new IllegalArgumentException(name + " must be a whole number >= 1 but was " + text);
    }
  }

  private final Settings settings;
  private final MachineLoad load;
  private final E2eReport report;

  EndToEndBenchmark(Settings settings) {
    this.settings = settings;
    this.load = new MachineLoad(settings.server().processNames());
    this.report = new E2eReport(settings);
  }

  /** Runs the benchmark; see the class comment and {@link Settings#parse(String...)} for the arguments. */
  public static void main(String[] args) throws Exception {
    Settings settings = Settings.parse(args);
    new EndToEndBenchmark(settings).run();
  }

  void run() throws Exception {
    String run = "gid_e2e_" + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36)
        + ThreadLocalRandom.current().nextInt(100);
    log("%s on %s, %d repetition(s), databases %s_*", settings.quick() ? "quick run" : "run",
        settings.server().label(), settings.repetitions(), run);
    Instant started = Instant.now();
    List<E2eDatabases> databases = new ArrayList<>();
    try {
      for (E2eRules.Shape shape : settings.shapes()) {
        databases.add(E2eDatabases.create(settings.server(), shape, run));
      }
      // one unmeasured pass of every rule set first: the JIT compiles ShardingSphere's and each rule set's code
      // before repetition 1, which would otherwise pay for it in its first rule set
      for (E2eRules rules : settings.rules()) {
        log("JIT warm-up, %s, %s", databases.get(0).shape(), rules.label());
        runOnce(databases.get(0), rules, false);
      }
      for (int rep = 0; rep < settings.repetitions(); rep++) {
        for (E2eDatabases dbs : databases) {
          List<E2eRules> order = new ArrayList<>(settings.rules());
          Collections.rotate(order, -rep); // no rule set always goes first
          for (E2eRules rules : order) {
            log("repetition %d/%d, %s, %s", rep + 1, settings.repetitions(), dbs.shape(), rules.label());
            runOnce(dbs, rules, true);
          }
        }
      }
    } finally {
      for (E2eDatabases dbs : databases) {
        dbs.close();
      }
    }
    report.write(started, Instant.now());
    log("wrote %s", settings.out());
  }

  private void runOnce(E2eDatabases dbs, E2eRules rules, boolean measure) throws Exception {
    E2eRules.Shape shape = dbs.shape();
    dbs.truncate();
    DataSource ds = YamlShardingSphereDataSourceFactory.createDataSource(dbs.dataSources(),
        rules.yaml(shape).getBytes(StandardCharsets.UTF_8));
    try {
      // warm-up: the same work as measured, on rows thrown away
      long t0 = System.nanoTime();
      Loaded warm = insert(ds, 2, settings.warmupOrders() / 2, 0);
      query(ds, ITEMS_OF_ORDER, Loaded.array(warm.orderIds()), 2, settings.warmupOrders() / 2);
      query(ds, ITEM_BY_ID, Loaded.array(warm.itemIds()), 2, settings.warmupOrders() / 2);
      dbs.truncate();
      log("  warm-up %.1f s", (System.nanoTime() - t0) / 1e9);
      if (!measure) {
        return;
      }

      MachineLoad.Mark mark = load.start();
      insert(ds, 1, settings.lowRateOrders(), settings.lowRatePeriodMillis());
      report.add(shape, rules, "balance-low", 0, balance(dbs.rowsPerTable("t_order")), mark.end());
      dbs.truncate();

      List<Long> orderIds = new ArrayList<>();
      List<Long> itemIds = new ArrayList<>();
      for (int threads : settings.threads()) {
        mark = load.start();
        Loaded loaded = insert(ds, threads, settings.insertOrders(), 0);
        MachineLoad.Phase phase = mark.end();
        report.add(shape, rules, "insert-tps", threads, loaded.perSecond(), phase);
        report.add(shape, rules, "insert-p50", threads, loaded.percentileMicros(0.50), phase);
        report.add(shape, rules, "insert-p99", threads, loaded.percentileMicros(0.99), phase);
        report.add(shape, rules, "insert-cpu", threads, loaded.cpuMicrosEach(), phase);
        report.add(shape, rules, "insert-kb", threads, loaded.kilobytesEach(), phase);
        log("  insert %d thread(s): %.0f orders/s, p50 %.0f us, client CPU %.0f us and %.1f KB/order, other CPU %.2f",
            threads, loaded.perSecond(), loaded.percentileMicros(0.5), loaded.cpuMicrosEach(), loaded.kilobytesEach(),
            phase.otherCores());
        orderIds.addAll(loaded.orderIds());
        itemIds.addAll(loaded.itemIds());
      }
      long[] rows = dbs.rowsPerTable("t_order");
      report.add(shape, rules, "balance-high", 0, balance(rows), null);
      report.add(shape, rules, "high-orders", 0, Arrays.stream(rows).sum(), null);
      checkItemsWithOrders(dbs, rows);

      long[] orders = Loaded.array(orderIds);
      long[] items = Loaded.array(itemIds);
      for (int threads : settings.threads()) {
        mark = load.start();
        Loaded q = query(ds, ITEMS_OF_ORDER, orders, threads, settings.queries());
        MachineLoad.Phase phase = mark.end();
        report.add(shape, rules, "by-order-qps", threads, q.perSecond(), phase);
        report.add(shape, rules, "by-order-p50", threads, q.percentileMicros(0.50), phase);
        report.add(shape, rules, "by-order-p99", threads, q.percentileMicros(0.99), phase);
        report.add(shape, rules, "by-order-cpu", threads, q.cpuMicrosEach(), phase);
        mark = load.start();
        q = query(ds, ITEM_BY_ID, items, threads, settings.queries());
        phase = mark.end();
        report.add(shape, rules, "by-item-qps", threads, q.perSecond(), phase);
        report.add(shape, rules, "by-item-p50", threads, q.percentileMicros(0.50), phase);
        report.add(shape, rules, "by-item-p99", threads, q.percentileMicros(0.99), phase);
        report.add(shape, rules, "by-item-cpu", threads, q.cpuMicrosEach(), phase);
        log("  by item %d thread(s): %.0f queries/s, p50 %.0f us", threads, q.perSecond(), q.percentileMicros(0.5));
      }
      report.add(shape, rules, "by-order-tables", 0, tablesRead(ds, ITEMS_OF_ORDER, orders), null);
      report.add(shape, rules, "by-item-tables", 0, tablesRead(ds, ITEM_BY_ID, items), null);
    } finally {
      if (ds instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  /** Orders and items inserted by one phase, and the latency of each transaction. */
  record Loaded(List<Long> orderIds, List<Long> itemIds, long[] nanos, long wallNanos, long cpuNanos,
      long allocatedBytes) {
    double perSecond() {
      return nanos.length * 1e9 / wallNanos;
    }

    /** CPU time of the client threads (ShardingSphere, the driver, the key generator) per operation, in µs. */
    double cpuMicrosEach() {
      return cpuNanos / 1e3 / nanos.length;
    }

    /**
     * Bytes the client threads allocated per operation: a measure of the client's work that other processes do not
     * change, unlike its time.
     */
    double kilobytesEach() {
      return allocatedBytes / 1024.0 / nanos.length;
    }

    double percentileMicros(double p) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e3;
    }

    static long[] array(List<Long> ids) {
      return ids.stream().mapToLong(Long::longValue).toArray();
    }
  }

  /**
   * {@code ordersPerThread} orders (each with {@link #ITEMS_PER_ORDER} items, one transaction) from each of
   * {@code threads} threads; with a period, one order per period from one thread (a paced, low-rate load).
   */
  private static Loaded insert(DataSource ds, int threads, int ordersPerThread, int periodMillis) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Loaded>> parts = new ArrayList<>();
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        parts.add(pool.submit(() -> insertOrders(ds, thread, ordersPerThread, periodMillis)));
      }
      List<Long> orders = new ArrayList<>();
      List<Long> items = new ArrayList<>();
      List<long[]> nanos = new ArrayList<>();
      long cpu = 0;
      long bytes = 0;
      for (Future<Loaded> f : parts) {
        Loaded part = f.get();
        orders.addAll(part.orderIds());
        items.addAll(part.itemIds());
        nanos.add(part.nanos());
        cpu += part.cpuNanos();
        bytes += part.allocatedBytes();
      }
      long wall = System.nanoTime() - start;
      return new Loaded(orders, items, nanos.stream().flatMapToLong(Arrays::stream).toArray(), wall, cpu, bytes);
    } finally {
      pool.shutdown();
    }
  }

  static Loaded insertOrders(DataSource ds, int thread, int count, int periodMillis) throws SQLException,
      InterruptedException {
    List<Long> orders = new ArrayList<>(count);
    List<Long> items = new ArrayList<>(count * ITEMS_PER_ORDER);
    long[] nanos = new long[count];
    long cpu;
    long bytes;
    try (Connection c = ds.getConnection();
        PreparedStatement order = c.prepareStatement(INSERT_ORDER, Statement.RETURN_GENERATED_KEYS);
        PreparedStatement item = c.prepareStatement(INSERT_ITEM, Statement.RETURN_GENERATED_KEYS)) {
      c.setAutoCommit(false);
      long cpu0 = THREADS.getCurrentThreadCpuTime();
      long bytes0 = THREADS.getCurrentThreadAllocatedBytes();
      long next = System.nanoTime();
      for (int o = 0; o < count; o++) {
        if (periodMillis > 0) {
          next += periodMillis * 1_000_000L;
          long wait = next - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
          }
        }
        long t0 = System.nanoTime();
        order.setLong(1, thread * 1_000_000L + o);
        order.executeUpdate();
        long orderId = generatedKey(order);
        try (GeneContext.Scope scope = GeneContext.inherit(orderId)) { // ignored by non-gene key generators
          for (int i = 0; i < ITEMS_PER_ORDER; i++) {
            item.setLong(1, orderId);
            item.setInt(2, i);
            item.executeUpdate();
            items.add(generatedKey(item));
          }
        }
        c.commit();
        nanos[o] = System.nanoTime() - t0;
        orders.add(orderId);
      }
      cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
      bytes = THREADS.getCurrentThreadAllocatedBytes() - bytes0;
      c.setAutoCommit(true);
    }
    return new Loaded(orders, items, nanos, 0, cpu, bytes);
  }

  private static long generatedKey(PreparedStatement insert) throws SQLException {
    try (ResultSet keys = insert.getGeneratedKeys()) {
      if (!keys.next()) {
        throw new SQLException("no generated key from " + insert);
      }
      return keys.getLong(1); // the label differs between databases: read by index
    }
  }

  /** {@code queriesPerThread} runs of {@code sql} with random keys from {@code keys} on each of {@code threads}. */
  private static Loaded query(DataSource ds, String sql, long[] keys, int threads, int queriesPerThread)
      throws Exception {
    if (keys.length == 0) {
      throw new IllegalStateException("no rows to query with " + sql);
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicInteger missing = new AtomicInteger();
    try {
      List<Future<long[]>> parts = new ArrayList<>();
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        parts.add(pool.submit(() -> {
          long[] nanos = new long[queriesPerThread + 1];
          SplittableRandom random = new SplittableRandom();
          long cpu0 = THREADS.getCurrentThreadCpuTime();
          try (Connection c = ds.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
            for (int i = 0; i < queriesPerThread; i++) {
              long t0 = System.nanoTime();
              q.setLong(1, keys[random.nextInt(keys.length)]);
              int rows = 0;
              try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                  rows++;
                }
              }
              nanos[i] = System.nanoTime() - t0;
              if (rows == 0) {
                missing.incrementAndGet();
              }
            }
          }
          nanos[queriesPerThread] = THREADS.getCurrentThreadCpuTime() - cpu0; // carried in the last slot
          return nanos;
        }));
      }
      List<long[]> nanos = new ArrayList<>();
      long cpu = 0;
      for (Future<long[]> f : parts) {
        long[] part = f.get();
        cpu += part[queriesPerThread];
        nanos.add(Arrays.copyOf(part, queriesPerThread));
      }
      long wall = System.nanoTime() - start;
      if (missing.get() > 0) {
        throw new IllegalStateException(missing.get() + " runs of " + sql + " found no row: the routing lost rows");
      }
      return new Loaded(List.of(), List.of(), nanos.stream().flatMapToLong(Arrays::stream).toArray(), wall, cpu, 0);
    } finally {
      pool.shutdown();
    }
  }

  /**
   * Physical tables per query, averaged over a sample: the {@code t_order_item_<n>} names in the SQL of the
   * statements ShardingSphere ran. Counting statements would undercount: ShardingSphere merges the tables of one
   * database into one {@code UNION ALL} statement.
   */
  private static double tablesRead(DataSource ds, String sql, long[] keys) throws SQLException {
    SplittableRandom random = new SplittableRandom(1);
    long tables = 0;
    try (Connection c = ds.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      for (int i = 0; i < TABLE_SAMPLE; i++) {
        q.setLong(1, keys[random.nextInt(keys.length)]);
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            // read it all, as the timed queries do
          }
          for (PreparedStatement routed : q.unwrap(ShardingSpherePreparedStatement.class).getRoutedStatements()) {
            tables += distinctTables(routed.toString());
          }
        }
      }
    }
    return (double) tables / TABLE_SAMPLE;
  }

  /** The distinct physical item tables named in a driver statement's text (its {@code toString()}). */
  static int distinctTables(String statementText) {
    Matcher m = ITEM_TABLE.matcher(statementText);
    java.util.Set<String> names = new java.util.HashSet<>();
    while (m.find()) {
      names.add(m.group());
    }
    if (names.isEmpty()) {
      throw new IllegalStateException("the driver statement does not show its SQL, so tables read cannot be counted: "
          + statementText);
    }
    return names.size();
  }

  /** Items must sit with their order: same number of tables with items as with orders, 3 items per order each. */
  private static void checkItemsWithOrders(E2eDatabases dbs, long[] orderRows) throws SQLException {
    long[] itemRows = dbs.rowsPerTable("t_order_item");
    for (int t = 0; t < orderRows.length; t++) {
      if (itemRows[t] != orderRows[t] * ITEMS_PER_ORDER) {
        throw new IllegalStateException("table " + t + " holds " + orderRows[t] + " orders but " + itemRows[t]
            + " items (expected " + ITEMS_PER_ORDER + " per order): items did not follow their order");
      }
    }
  }

  /** max / mean rows per table; 1.00 is even. */
  static double balance(long[] rows) {
    long sum = Arrays.stream(rows).sum();
    if (sum == 0) {
      throw new IllegalStateException("no rows to weigh");
    }
    return Arrays.stream(rows).max().orElseThrow() / ((double) sum / rows.length);
  }

  static void log(String format, Object... args) {
    System.out.printf("[e2e %tT] %s%n", System.currentTimeMillis(), String.format(format, args));
  }
}
