package io.geneid.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import io.geneid.shardingsphere.GeneShardingCheck;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.apache.shardingsphere.driver.jdbc.core.statement.ShardingSpherePreparedStatement;
import org.apache.shardingsphere.driver.yaml.YamlJDBCConfiguration;
import org.apache.shardingsphere.infra.util.yaml.YamlEngine;
import org.jspecify.annotations.Nullable;

/**
 * Orders and their items through ShardingSphere-JDBC over 4 auto tables in 2 databases ({@code sharding-demo.yaml} on
 * the classpath; {@code GENE_MOD_AUTO} puts table {@code i} in {@code ds_(i % 2)}): orders get root ids from {@code GENE_SNOWFLAKE}, items are inserted inside
 * {@link GeneContext#inherit(Object)} so their ids carry their order's gene. The demo then reads every physical
 * table to show where each row landed, checks that every item sits with its order, and counts the physical
 * statements of a query by order id, by item id and by neither.
 *
 * <p>Arguments: {@code --db=h2} (default, embedded), {@code --db=mariadb} (127.0.0.1:3306, root) or
 * {@code --db=postgresql} (127.0.0.1:5432, postgres); on a server it creates two databases with unique names and
 * drops them at the end.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
public final class ShardingDemo {

  private static final Pattern PHYSICAL_TABLE = Pattern.compile("\\b(t_(?:order|item)_\\d+)\\b");
  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  private final Map<String, DataSource> physical = new LinkedHashMap<>();
  /** Data source name by the catalog (database) its connections report, to name where a routed statement ran. */
  private final Map<String, String> dataSourceByCatalog = new LinkedHashMap<>();

  private ShardingDemo() {}

  public static void main(String[] args) throws Exception {
    String db = "h2";
    for (String arg : args) {
      if (arg.startsWith("--db=")) {
        db = arg.substring("--db=".length()).toLowerCase(Locale.ROOT);
      } else {
        throw new IllegalArgumentException("unknown argument " + arg + "; usage: [--db=h2|mariadb|postgresql]");
      }
    }
    if (!List.of("h2", "mariadb", "postgresql").contains(db)) {
      throw new IllegalArgumentException("--db must be h2, mariadb or postgresql but was " + db);
    }
    new ShardingDemo().run(db);
  }

  private void run(String db) throws Exception {
    byte[] yaml;
    try (InputStream in = ShardingDemo.class.getResourceAsStream("/sharding-demo.yaml")) {
      if (in == null) {
        throw new IllegalStateException("sharding-demo.yaml is not on the classpath");
      }
      yaml = in.readAllBytes();
    }
    @Nullable Server server = Server.of(db);
    List<HikariDataSource> pools = new ArrayList<>();
    List<String> created = new ArrayList<>();
    try {
      Map<String, DataSource> dataSources = new LinkedHashMap<>();
      Map<String, Map<String, Object>> configured = YamlEngine.unmarshal(yaml, YamlJDBCConfiguration.class)
          .getDataSources();
      String run = "gid_demo_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
      for (Map.Entry<String, Map<String, Object>> e : configured.entrySet()) {
        String name = e.getKey();
        HikariConfig config = new HikariConfig();
        if (server == null) {
          config.setJdbcUrl(String.valueOf(e.getValue().get("jdbcUrl")));
          config.setUsername(String.valueOf(e.getValue().get("username")));
          config.setPassword(String.valueOf(e.getValue().getOrDefault("password", "")));
        } else {
          String database = run + "_" + name.replace("ds_", "");
          server.admin("CREATE DATABASE " + database);
          created.add(database);
          config.setJdbcUrl(server.url(database));
          config.setUsername(server.user);
          config.setPassword("");
        }
        config.setMaximumPoolSize(4);
        config.setPoolName("demo-" + name);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        createTables(pool, name);
        physical.put(name, pool);
        try (Connection c = pool.getConnection()) {
          dataSourceByCatalog.put(c.getCatalog(), name);
        }
        dataSources.put(name, pool);
      }
      System.out.println("gene-id ShardingSphere demo on " + (server == null ? "embedded H2" : server.label + " "
          + created) + ": " + physical.keySet() + ", tables t_order_0..3 / t_item_0..3, table i in ds_(i % 2)");
      System.out.println("ids: " + LAYOUT + "; routing (sharding-demo.yaml, GENE_MOD_AUTO): table = gene % 4");
      DataSource sharded = YamlShardingSphereDataSourceFactory.createDataSource(dataSources, yaml);
      try {
        GeneShardingCheck.verify(sharded);
        System.out.println("GeneShardingCheck: every gene routes to a configured node, every node is reachable");
        demo(sharded);
      } finally {
        ((AutoCloseable) sharded).close();
      }
    } finally {
      pools.forEach(HikariDataSource::close);
      for (String database : created) {
        server.admin("DROP DATABASE IF EXISTS " + database + (server.label.equals("PostgreSQL") ? " WITH (FORCE)"
            : ""));
      }
      if (server == null) {
        for (Map<String, Object> ds : YamlEngine.unmarshal(yaml, YamlJDBCConfiguration.class).getDataSources()
            .values()) {
          try (Connection c = DriverManager.getConnection(String.valueOf(ds.get("jdbcUrl")), "sa", "");
              Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
          }
        }
      }
    }
  }

  /** The suffixes of the auto tables ShardingSphere places in data source {@code ds_<k>}: k and k + 2. */
  private static List<Integer> tablesOf(String dataSource) {
    int k = Integer.parseInt(dataSource.substring(dataSource.lastIndexOf('_') + 1));
    return List.of(k, k + 2);
  }

  private static void createTables(DataSource ds, String name) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      for (int t : tablesOf(name)) {
        s.execute("CREATE TABLE t_order_" + t + " (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
        s.execute("CREATE TABLE t_item_" + t
            + " (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, name VARCHAR(64) NOT NULL)");
      }
    }
  }

  private void demo(DataSource sharded) throws SQLException {
    Map<Long, List<Long>> itemsByOrder = new LinkedHashMap<>();
    try (Connection c = sharded.getConnection()) {
      // orders: root rows, no scope; GENE_SNOWFLAKE spreads their genes so they balance over the shards
      for (String customer : List.of("alice", "bob", "carol", "dave", "erin", "frank")) {
        itemsByOrder.put(insert(c, "INSERT INTO t_order (customer) VALUES (?)", customer), new ArrayList<>());
      }
      List<Long> orders = new ArrayList<>(itemsByOrder.keySet());
      // items one at a time: the scope hands the order's gene to the key generator
      for (long order : orders) {
        try (var scope = GeneContext.inherit(order)) {
          for (String name : List.of("book", "pen")) {
            itemsByOrder.get(order).add(insert(c, "INSERT INTO t_item (order_id, name) VALUES (?, ?)", order, name));
          }
        }
      }
      // one multi-row INSERT with items of three orders: one parent per row, in VALUES order
      List<Long> parents = List.of(orders.get(0), orders.get(2), orders.get(4));
      try (var scope = GeneContext.inheritEach(parents);
          PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (order_id, name) VALUES (?, ?), (?, ?),"
              + " (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
        for (int i = 0; i < parents.size(); i++) {
          ps.setLong(2 * i + 1, parents.get(i));
          ps.setString(2 * i + 2, "lamp");
        }
        ps.executeUpdate();
        List<Long> ids = keys(ps);
        for (int i = 0; i < parents.size(); i++) {
          itemsByOrder.get(parents.get(i)).add(ids.get(i));
        }
      }
    }

    // where did the rows land? read every physical table directly
    Map<Long, String> node = new LinkedHashMap<>();
    Map<String, Integer> rowsPerTable = new TreeMap<>();
    for (Map.Entry<String, DataSource> e : physical.entrySet()) {
      try (Connection c = e.getValue().getConnection(); Statement s = c.createStatement()) {
        List<String> tables = new ArrayList<>();
        for (int t : tablesOf(e.getKey())) {
          tables.add("t_order_" + t);
          tables.add("t_item_" + t);
        }
        for (String table : tables) {
          try (ResultSet rs = s.executeQuery("SELECT id FROM " + table)) {
            while (rs.next()) {
              node.put(rs.getLong(1), e.getKey() + "." + table);
              rowsPerTable.merge(e.getKey() + "." + table, 1, Integer::sum);
            }
          }
        }
      }
    }
    System.out.println();
    int items = 0;
    int together = 0;
    for (Map.Entry<Long, List<Long>> e : itemsByOrder.entrySet()) {
      long order = e.getKey();
      System.out.printf("order %19d  gene %2d -> %s%n", order, LAYOUT.geneOf(order), node.get(order));
      for (long item : e.getValue()) {
        items++;
        boolean same = node.get(item) != null && node.get(order) != null
            && node.get(item).replace("t_item_", "").equals(node.get(order).replace("t_order_", ""));
        together += same ? 1 : 0;
        System.out.printf("  item %19d  gene %2d -> %-14s %s%n", item, LAYOUT.geneOf(item), node.get(item),
            same ? "with its order" : "NOT WITH ITS ORDER");
      }
    }
    System.out.println();
    System.out.println("rows per physical table: " + rowsPerTable);
    System.out.println("every item sits with its order: " + (together == items ? "yes" : "NO") + " (" + together
        + " of " + items + " items)");
    if (together != items) {
      throw new IllegalStateException((items - together) + " items do not sit with their order");
    }

    long order = itemsByOrder.keySet().iterator().next();
    long item = itemsByOrder.get(order).get(0);
    System.out.println();
    System.out.println("physical statements per query:");
    try (Connection c = sharded.getConnection()) {
      query(c, "SELECT id, name FROM t_item WHERE order_id = ?", order, "by order id");
      query(c, "SELECT order_id, name FROM t_item WHERE id = ?", item, "by item id");
      query(c, "SELECT id FROM t_item WHERE name = ?", "pen", "by neither");
    }
  }

  /**
   * Runs {@code sql} and prints how many physical statements ShardingSphere routed it to
   * ({@link ShardingSpherePreparedStatement#getRoutedStatements()}) and on which tables: the data source from the
   * statement's connection, the tables from its SQL as the driver shows it.
   */
  private void query(Connection c, String sql, Object parameter, String label) throws SQLException {
    int rows = 0;
    List<PreparedStatement> run;
    List<String> tables = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, parameter);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows++;
        }
        run = new ArrayList<>(ps.unwrap(ShardingSpherePreparedStatement.class).getRoutedStatements());
        for (PreparedStatement routed : run) {
          String ds = dataSourceByCatalog.get(routed.getConnection().getCatalog());
          Matcher m = PHYSICAL_TABLE.matcher(routed.toString()); // H2, MariaDB and PostgreSQL show their SQL
          while (m.find()) {
            tables.add(ds + "." + m.group(1));
          }
        }
      }
    }
    tables.sort(null);
    System.out.printf("  %-12s %-63s -> %d row%s, %d physical statement%s on %d table%s %s%n", label,
        sql.replace("?", parameter instanceof String ? "'" + parameter + "'" : String.valueOf(parameter)), rows,
        rows == 1 ? "" : "s", run.size(), run.size() == 1 ? "" : "s", tables.size(), tables.size() == 1 ? "" : "s",
        tables);
  }

  private static long insert(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      ps.executeUpdate();
      return keys(ps).get(0);
    }
  }

  /** Generated keys, read by index: the column label differs between databases. */
  private static List<Long> keys(PreparedStatement ps) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (ResultSet rs = ps.getGeneratedKeys()) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    return ids;
  }

  /** A database server on loopback where the demo creates its two databases. */
  private static final class Server {
    final String label;
    final String prefix;
    final String user;

    private Server(String label, String prefix, String user) {
      this.label = label;
      this.prefix = prefix;
      this.user = user;
    }

    static @Nullable Server of(String db) {
      switch (db) {
        case "mariadb":
          return new Server("MariaDB", "jdbc:mariadb://127.0.0.1:3306/", "root");
        case "postgresql":
          return new Server("PostgreSQL", "jdbc:postgresql://127.0.0.1:5432/", "postgres");
        default:
          return null;
      }
    }

    String url(String database) {
      return prefix + database;
    }

    void admin(String sql) throws SQLException {
      Connection c;
      try {
        c = DriverManager.getConnection(url("test"), user, "");
      } catch (SQLException e) {
        throw new IllegalStateException(label + " at " + url("test") + " is not reachable: " + e.getMessage(), e);
      }
      try (c; Statement s = c.createStatement()) {
        s.execute(sql);
      }
    }
  }
}
