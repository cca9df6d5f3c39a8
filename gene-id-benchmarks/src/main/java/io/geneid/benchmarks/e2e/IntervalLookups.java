package io.geneid.benchmarks.e2e;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.apache.shardingsphere.driver.jdbc.core.statement.ShardingSpherePreparedStatement;

/**
 * Issue #43's row of the end-to-end benchmark: a table per month in each of 2 databases (3 months, October to December
 * 2026), orders and their items, through ShardingSphere-JDBC 5.5.2 on MariaDB, PostgreSQL or H2, for two setups:
 * <ul>
 *   <li>{@code usual-interval}, what ShardingSphere users run for month tables: ShardingSphere's {@code INTERVAL} on a
 *       {@code create_time} column (orders and items each by their own time) and the database by {@code user_id}
 *       ({@code INLINE ds_${user_id % 2}}; {@code MOD} is an auto-table algorithm that {@code tables} refuses);
 *   <li>{@code gene-interval}: {@code GENE_INTERVAL} on the id's own timestamp and {@code GENE_MOD} on its gene, items
 *       by {@code id,order_id} (complex, {@code parent-columns: order_id}).
 * </ul>
 * Both get the same rows (ids, users, times; items up to two days after their order, so some cross a month's end) and
 * run the same lookups; per lookup the runner counts the physical statements ShardingSphere ran and the tables their
 * SQL names, and times it (p50 over {@code --queries} runs, one thread, with the machine's load beside it: counts do
 * not depend on load, times do).
 *
 * <pre>
 * java -cp "gene-id-benchmarks/target/classes:$(cat gene-id-benchmarks/target/benchmark-classpath.txt)" \
 *   io.geneid.benchmarks.e2e.IntervalLookups --db mariadb [--orders 300] [--queries 500] [--out FILE]
 * </pre>
 */
public final class IntervalLookups {

  static final List<String> MONTHS = List.of("202610", "202611", "202612");
  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  private static final Pattern TABLE = Pattern.compile("\\bt_order(?:_item)?_\\d{6}\\b");
  private static final Instant FIRST = Instant.parse("2026-10-01T00:00:00Z");
  /** Orders are placed up to here, so that their items (two days at most) stay within December's table. */
  private static final Instant LAST_ORDER = Instant.parse("2026-12-28T00:00:00Z");

  /** The two setups compared. */
  enum Setup {
    USUAL_INTERVAL("usual-interval"),
    GENE_INTERVAL("gene-interval");

    final String label;

    Setup(String label) {
      this.label = label;
    }

    String yaml() {
      String nodes = "ds_${0..1}.%s_${[" + String.join(", ", MONTHS) + "]}";
      if (this == USUAL_INTERVAL) {
        return """
            databaseName: gid_interval
            rules:
            - !SHARDING
              tables:
                t_order:
                  actualDataNodes: %1$s
                  databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: by_user}}
                  tableStrategy: {standard: {shardingColumn: create_time, shardingAlgorithmName: by_month}}
                t_order_item:
                  actualDataNodes: %2$s
                  databaseStrategy: {standard: {shardingColumn: user_id, shardingAlgorithmName: by_user}}
                  tableStrategy: {standard: {shardingColumn: create_time, shardingAlgorithmName: by_month}}
              shardingAlgorithms:
                by_user:
                  type: INLINE
                  props:
                    algorithm-expression: ds_${user_id %% 2}
                by_month:
                  type: INTERVAL
                  props:
                    datetime-pattern: 'yyyy-MM-dd HH:mm:ss'
                    datetime-lower: '2026-10-01 00:00:00'
                    datetime-upper: '2026-12-31 23:59:59'
                    sharding-suffix-pattern: yyyyMM
                    datetime-interval-amount: 1
                    datetime-interval-unit: MONTHS
            props:
              sql-show: false
            """.formatted(nodes.formatted("t_order"), nodes.formatted("t_order_item"));
      }
      return """
          databaseName: gid_interval
          rules:
          - !SHARDING
            tables:
              t_order:
                actualDataNodes: %1$s
                databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_gene}}
                tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_month}}
              t_order_item:
                actualDataNodes: %2$s
                databaseStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_gene}}
                tableStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_month}}
            shardingAlgorithms:
              by_gene:
                type: GENE_MOD
                props:
                  sharding-count: 2
              by_month:
                type: GENE_INTERVAL
                props:
                  datetime-lower: '2026-10-01 00:00:00'
                  datetime-upper: '2026-12-31 23:59:59'
                  datetime-interval-unit: MONTHS
                  parent-columns: order_id
          props:
            sql-show: false
          """.formatted(nodes.formatted("t_order"), nodes.formatted("t_order_item"));
    }
  }

  /** One row of the data: an order or an item, with what both setups route by. */
  record Row(long id, long orderId, long userId, LocalDateTime createTime) {}

  /** A lookup: its label, its SQL per setup, and its parameters per row. */
  record Lookup(String label, String usualSql, String geneSql) {}

  static final List<Lookup> LOOKUPS = List.of(
      new Lookup("an item by its id", "SELECT order_id, amount FROM t_order_item WHERE id = ?",
          "SELECT order_id, amount FROM t_order_item WHERE id = ?"),
      new Lookup("the items of an order, by order id", "SELECT id, amount FROM t_order_item WHERE order_id = ?",
          "SELECT id, amount FROM t_order_item WHERE order_id = ?"),
      new Lookup("the items of an order, by order id and user id",
          "SELECT id, amount FROM t_order_item WHERE order_id = ? AND user_id = ?",
          "SELECT id, amount FROM t_order_item WHERE order_id = ? AND user_id = ?"),
      new Lookup("an order by its id", "SELECT user_id FROM t_order WHERE id = ?",
          "SELECT user_id FROM t_order WHERE id = ?"),
      new Lookup("a month report (items of November)",
          "SELECT COUNT(*) FROM t_order_item WHERE create_time >= ? AND create_time < ?",
          "SELECT COUNT(*) FROM t_order_item WHERE id >= ? AND id < ?"));

  /** What one lookup cost under one setup. */
  record Measured(double statements, double tables, double p50Micros) {}

  private final E2eDatabases.Server server;
  private final int orders;
  private final int queries;
  private final List<Row> orderRows = new ArrayList<>();
  private final List<Row> itemRows = new ArrayList<>();

  IntervalLookups(E2eDatabases.Server server, int orders, int queries) {
    this.server = server;
    this.orders = orders;
    this.queries = queries;
  }

  public static void main(String[] args) throws Exception {
    E2eDatabases.Server server = E2eDatabases.Server.H2;
    int orders = 300;
    int queries = 500;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--db" -> server = E2eDatabases.Server.of(args[++i]);
        case "--orders" -> orders = Integer.parseInt(args[++i]);
        case "--queries" -> queries = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: [--db mariadb|"
            + "postgresql|h2] [--orders N] [--queries N] [--out FILE]");
      }
    }
    IntervalLookups runner = new IntervalLookups(server, orders, queries);
    String report = runner.run();
    System.out.println(report);
    Path file = out != null ? out : Path.of("gene-id-benchmarks", "results", "e2e-interval-" + server.label()
        + ".md");
    Files.writeString(file, report, StandardCharsets.UTF_8);
    EndToEndBenchmark.log("wrote %s", file);
  }

  /** Creates the databases, runs both setups on the same rows, drops the databases; the report in markdown. */
  String run() throws Exception {
    makeRows();
    String run = "gid_e2e_iv_" + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36)
        + ThreadLocalRandom.current().nextInt(100);
    List<String> databases = List.of(run + "_0", run + "_1");
    MachineLoad load = new MachineLoad(server.processNames());
    Map<Setup, Map<String, Measured>> results = new LinkedHashMap<>();
    MachineLoad.Mark mark = load.start();
    Instant started = Instant.now();
    try {
      for (String db : databases) {
        if (server != E2eDatabases.Server.H2) {
          admin("CREATE DATABASE " + db);
        }
      }
      for (Setup setup : Setup.values()) {
        createTables(databases);
        Map<String, DataSource> sources = new LinkedHashMap<>();
        for (int d = 0; d < 2; d++) {
          sources.put("ds_" + d, pool(databases.get(d)));
        }
        DataSource ds = YamlShardingSphereDataSourceFactory.createDataSource(sources,
            setup.yaml().getBytes(StandardCharsets.UTF_8));
        try {
          insert(ds);
          Map<String, Measured> bySetup = new LinkedHashMap<>();
          for (Lookup lookup : LOOKUPS) {
            bySetup.put(lookup.label(), measure(ds, setup, lookup));
            EndToEndBenchmark.log("%s, %s: %s", setup.label, lookup.label(), bySetup.get(lookup.label()));
          }
          results.put(setup, bySetup);
        } finally {
          ((AutoCloseable) ds).close();
        }
      }
    } finally {
      for (String db : databases) {
        if (server == E2eDatabases.Server.H2) {
          try (Connection c = DriverManager.getConnection(server.url(db), user(), "");
              Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
          }
        } else {
          admin("DROP DATABASE IF EXISTS " + db + (server == E2eDatabases.Server.POSTGRESQL ? " WITH (FORCE)" : ""));
        }
      }
    }
    return report(results, mark.end(), started);
  }

  /** Orders spread over the three months with root gene ids; items up to two days later, with their order's gene. */
  private void makeRows() {
    SplittableRandom random = new SplittableRandom(43);
    AtomicLong now = new AtomicLong(FIRST.toEpochMilli());
    GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(9).clock(now::get).buildUnshared();
    long span = LAST_ORDER.toEpochMilli() - FIRST.toEpochMilli();
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < orders; i++) {
      times.add(FIRST.toEpochMilli() + random.nextLong(span));
    }
    times.sort(null);
    List<long[]> items = new ArrayList<>(); // time, order index
    for (int i = 0; i < orders; i++) {
      for (int k = 0; k < 3; k++) {
        items.add(new long[] {times.get(i) + random.nextLong(2L * 24 * 3600 * 1000), i});
      }
    }
    items.sort((a, b) -> Long.compare(a[0], b[0]));
    // issue every id in time order on the one clock: orders and items interleaved as they would happen
    List<long[]> events = new ArrayList<>();
    for (int i = 0; i < orders; i++) {
      events.add(new long[] {times.get(i), -1, i});
    }
    items.forEach(it -> events.add(new long[] {it[0], 0, it[1]}));
    events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    long[] orderIds = new long[orders];
    long[] users = new long[orders];
    for (long[] e : events) {
      now.set(e[0]);
      int i = (int) e[2];
      LocalDateTime at = LocalDateTime.ofInstant(Instant.ofEpochMilli(e[0]), ZoneOffset.UTC).withNano(0);
      if (e[1] < 0) {
        orderIds[i] = ids.nextId();
        users[i] = 1 + random.nextInt(10_000);
        orderRows.add(new Row(orderIds[i], orderIds[i], users[i], at));
      } else {
        long id = ids.nextIdFor(orderIds[i]);
        itemRows.add(new Row(id, orderIds[i], users[i], at));
      }
    }
  }

  private void createTables(List<String> databases) throws SQLException {
    for (String db : databases) {
      try (Connection c = DriverManager.getConnection(server.url(db), user(), "");
          Statement s = c.createStatement()) {
        for (String m : MONTHS) {
          s.execute("DROP TABLE IF EXISTS t_order_" + m);
          s.execute("DROP TABLE IF EXISTS t_order_item_" + m);
          s.execute("CREATE TABLE t_order_" + m + " (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
              + " create_time TIMESTAMP NOT NULL)");
          s.execute("CREATE TABLE t_order_item_" + m + " (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL,"
              + " user_id BIGINT NOT NULL, create_time TIMESTAMP NOT NULL, amount INT NOT NULL)");
          s.execute("CREATE INDEX idx_item_order_" + m + " ON t_order_item_" + m + " (order_id)");
          s.execute("CREATE INDEX idx_item_time_" + m + " ON t_order_item_" + m + " (create_time)");
        }
      }
    }
  }

  private void insert(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement order = c.prepareStatement(
            "INSERT INTO t_order (id, user_id, create_time) VALUES (?, ?, ?)");
        PreparedStatement item = c.prepareStatement(
            "INSERT INTO t_order_item (id, order_id, user_id, create_time, amount) VALUES (?, ?, ?, ?, ?)")) {
      for (Row r : orderRows) {
        order.setLong(1, r.id());
        order.setLong(2, r.userId());
        order.setObject(3, r.createTime());
        order.executeUpdate();
      }
      for (Row r : itemRows) {
        item.setLong(1, r.id());
        item.setLong(2, r.orderId());
        item.setLong(3, r.userId());
        item.setObject(4, r.createTime());
        item.setInt(5, 1);
        item.executeUpdate();
      }
    }
  }

  /** Statements and tables per run (averaged over a sample of rows) and the p50 of {@code queries} runs. */
  private Measured measure(DataSource ds, Setup setup, Lookup lookup) throws SQLException {
    String sql = setup == Setup.USUAL_INTERVAL ? lookup.usualSql() : lookup.geneSql();
    SplittableRandom random = new SplittableRandom(7);
    long statements = 0;
    long tables = 0;
    long[] nanos = new long[queries];
    long november = itemRows.stream().filter(r -> r.createTime().getMonthValue() == 11).count();
    try (Connection c = ds.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
      for (int i = 0; i < queries; i++) { // warm-up: the same runs, not measured
        bind(q, setup, lookup, random);
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            // read it all, as the measured runs do
          }
        }
      }
      for (int i = 0; i < queries; i++) {
        int rows = bind(q, setup, lookup, random);
        long t0 = System.nanoTime();
        long found = 0;
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            found = lookup.label().startsWith("a month") ? rs.getLong(1) : found + 1;
          }
        }
        nanos[i] = System.nanoTime() - t0;
        if (found != (lookup.label().startsWith("a month") ? november : rows)) {
          throw new IllegalStateException(setup.label + ", " + lookup.label() + ": found " + found + " rows, expected "
              + (lookup.label().startsWith("a month") ? november : rows));
        }
        java.util.Collection<PreparedStatement> routed =
            q.unwrap(ShardingSpherePreparedStatement.class).getRoutedStatements();
        statements += routed.size();
        Set<String> names = new LinkedHashSet<>();
        for (PreparedStatement p : routed) {
          Matcher m = TABLE.matcher(p.toString());
          while (m.find()) {
            names.add(p.getConnection().getCatalog() + "." + m.group());
          }
        }
        tables += names.size();
      }
    }
    Arrays.sort(nanos);
    return new Measured((double) statements / queries, (double) tables / queries, nanos[queries / 2] / 1e3);
  }

  /** Binds the parameters of one run; returns the rows it must find (for the report: the count is checked apart). */
  private int bind(PreparedStatement q, Setup setup, Lookup lookup, SplittableRandom random) throws SQLException {
    switch (lookup.label()) {
      case "an item by its id" -> {
        q.setLong(1, itemRows.get(random.nextInt(itemRows.size())).id());
        return 1;
      }
      case "an order by its id" -> {
        q.setLong(1, orderRows.get(random.nextInt(orderRows.size())).id());
        return 1;
      }
      case "a month report (items of November)" -> {
        if (setup == Setup.USUAL_INTERVAL) {
          q.setObject(1, LocalDateTime.of(2026, 11, 1, 0, 0));
          q.setObject(2, LocalDateTime.of(2026, 12, 1, 0, 0));
        } else {
          q.setLong(1, LAYOUT.firstIdAt(Instant.parse("2026-11-01T00:00:00Z")));
          q.setLong(2, LAYOUT.firstIdAt(Instant.parse("2026-12-01T00:00:00Z")));
        }
        return -1;
      }
      default -> {
        Row order = orderRows.get(random.nextInt(orderRows.size()));
        q.setLong(1, order.id());
        if (lookup.label().endsWith("user id")) {
          q.setLong(2, order.userId());
        }
        return 3;
      }
    }
  }

  private String report(Map<Setup, Map<String, Measured>> results, MachineLoad.Phase phase, Instant started) {
    StringBuilder r = new StringBuilder();
    r.append("# Month tables: ShardingSphere INTERVAL on create_time vs GENE_INTERVAL (").append(server.label())
        .append(")\n\n");
    r.append(String.format(Locale.ROOT, "Run %s, %d orders with 3 items each over 2 databases x 3 months (%s), %d runs"
        + " per lookup after as many unmeasured, one thread; other processes used %.2f cores on average, load average %.1f.%n%n", started,
        orders, String.join(", ", MONTHS), queries, phase.otherCores(), phase.loadAverage()));
    r.append("| lookup | `usual-interval`: statements / tables / p50 µs | `gene-interval`: statements / tables / p50 µs"
        + " |\n|---|--:|--:|\n");
    for (Lookup lookup : LOOKUPS) {
      r.append("| ").append(lookup.label());
      for (Setup setup : Setup.values()) {
        Measured m = results.get(setup).get(lookup.label());
        r.append(String.format(Locale.ROOT, " | %.2f / %.2f / %.0f", m.statements(), m.tables(), m.p50Micros()));
      }
      r.append(" |\n");
    }
    r.append("\n`usual-interval`: ShardingSphere `INTERVAL` (months) on `create_time`, database `INLINE ds_${user_id %"
        + " 2}`; the month report is `WHERE create_time >= ? AND create_time < ?`. `gene-interval`: `GENE_INTERVAL` on"
        + " the id's timestamp, `GENE_MOD` on its gene, items by `id,order_id`; the month report is `WHERE id >= ? AND"
        + " id < ?` with `GeneIdLayout.firstIdAt` of the two instants. Tables are the distinct physical tables the"
        + " SQL of the routed statements names (ShardingSphere joins one database's tables into one `UNION ALL`"
        + " statement).\n");
    return r.toString();
  }

  private HikariDataSource pool(String database) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(server.url(database));
    config.setUsername(user());
    config.setPassword("");
    config.setMaximumPoolSize(2);
    return new HikariDataSource(config);
  }

  private String user() {
    return switch (server) {
      case MARIADB -> "root";
      case POSTGRESQL -> "postgres";
      case H2 -> "sa";
    };
  }

  private void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(server.url("test"), user(), "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
