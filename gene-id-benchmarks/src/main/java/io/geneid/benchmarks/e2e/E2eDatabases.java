package io.geneid.benchmarks.e2e;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The physical databases of one {@link E2eRules.Shape} on one server ({@code ds_0 ..}, each with its share of
 * {@code t_order_<n>} and {@code t_order_item_<n>}), created under a unique name at start and dropped by
 * {@link #close()}. The rule sets run one after the other on the same databases, emptied by {@link #truncate()}.
 */
final class E2eDatabases implements AutoCloseable {

  /** A database server the benchmark runs on. */
  enum Server {
    /** MariaDB on 127.0.0.1:3306, user root without password (admin database {@code test}). */
    MARIADB("mariadb", "jdbc:mariadb://127.0.0.1:3306/", "test", "root", Set.of("mariadbd", "mysqld")),
    /** PostgreSQL on 127.0.0.1:5432, trust authentication, user postgres (admin database {@code test}). */
    POSTGRESQL("postgresql", "jdbc:postgresql://127.0.0.1:5432/", "test", "postgres", Set.of("postgres")),
    /** Embedded in-memory H2 (MySQL mode): a quick look, nothing on disk, no server. */
    H2("h2", "jdbc:h2:mem:", "", "sa", Set.of());

    private final String label;
    private final String urlPrefix;
    private final String adminDatabase;
    private final String user;
    private final Set<String> processNames;

    Server(String label, String urlPrefix, String adminDatabase, String user, Set<String> processNames) {
      this.label = label;
      this.urlPrefix = urlPrefix;
      this.adminDatabase = adminDatabase;
      this.user = user;
      this.processNames = processNames;
    }

    String label() {
      return label;
    }

    /** The names of the server's processes, whose CPU {@link MachineLoad} counts apart. */
    Set<String> processNames() {
      return processNames;
    }

    /**
     * The server named {@code label}.
     *
     * @throws IllegalArgumentException naming the label and the known ones
     */
    static Server of(String label) {
      for (Server s : values()) {
        if (s.label.equals(label.toLowerCase(Locale.ROOT))) {
          return s;
        }
      }
      throw new IllegalArgumentException("--db must be mariadb, postgresql or h2 but was " + label);
    }

    String url(String database) {
      return this == H2
          // DATABASE_TO_UPPER=FALSE: ShardingSphere then sees the lower-case names the rules use
          ? urlPrefix + database + ";MODE=MYSQL;DATABASE_TO_UPPER=FALSE;IGNORECASE=TRUE;"
              + "CASE_INSENSITIVE_IDENTIFIERS=TRUE;DB_CLOSE_DELAY=-1"
          : urlPrefix + database;
    }
  }

  private final Server server;
  private final E2eRules.Shape shape;
  private final List<String> names;
  private final Map<String, HikariDataSource> pools = new LinkedHashMap<>();

  private E2eDatabases(Server server, E2eRules.Shape shape, List<String> names) {
    this.server = server;
    this.shape = shape;
    this.names = names;
  }

  /** Creates the databases {@code <run>_<shape>_<n>} and their tables on {@code server}. */
  static E2eDatabases create(Server server, E2eRules.Shape shape, String run) throws SQLException {
    List<String> names = new ArrayList<>();
    for (int ds = 0; ds < shape.databases(); ds++) {
      names.add(run + "_" + shape.databases() + "x" + shape.tablesPerDatabase() + "_" + ds);
    }
    E2eDatabases dbs = new E2eDatabases(server, shape, names);
    try {
      for (int ds = 0; ds < names.size(); ds++) {
        if (server != Server.H2) {
          dbs.admin("CREATE DATABASE " + names.get(ds));
        }
        HikariDataSource pool = pool(server, names.get(ds));
        dbs.pools.put("ds_" + ds, pool);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
          for (int t : shape.tablesOf(ds)) {
            s.execute("CREATE TABLE t_order_" + t + " (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL)");
            s.execute("CREATE TABLE t_order_item_" + t + " (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL,"
                + " amount INT NOT NULL)");
            s.execute("CREATE INDEX idx_item_order_" + t + " ON t_order_item_" + t + " (order_id)");
          }
        }
      }
      return dbs;
    } catch (SQLException | RuntimeException e) {
      try {
        dbs.close();
      } catch (SQLException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static HikariDataSource pool(Server server, String database) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(server.url(database));
    config.setUsername(server.user);
    config.setPassword("");
    config.setMaximumPoolSize(4); // 2 client threads, each with one connection per database, and a spare
    config.setMinimumIdle(1);
    return new HikariDataSource(config);
  }

  private void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(server.url(server.adminDatabase), server.user, "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /**
   * New pools on the databases by ShardingSphere name ({@code ds_0 ..}), for its YAML factory: ShardingSphere
   * closes the data sources it was given when it closes, so each ShardingSphere instance gets its own.
   */
  Map<String, DataSource> dataSources() {
    Map<String, DataSource> sources = new LinkedHashMap<>();
    for (int ds = 0; ds < names.size(); ds++) {
      sources.put("ds_" + ds, pool(server, names.get(ds)));
    }
    return sources;
  }

  E2eRules.Shape shape() {
    return shape;
  }

  /** Empties every table. */
  void truncate() throws SQLException {
    for (int ds = 0; ds < names.size(); ds++) {
      try (Connection c = pools.get("ds_" + ds).getConnection(); Statement s = c.createStatement()) {
        for (int t : shape.tablesOf(ds)) {
          s.execute("TRUNCATE TABLE t_order_" + t);
          s.execute("TRUNCATE TABLE t_order_item_" + t);
        }
      }
    }
  }

  /** Rows of each physical table of {@code logical} ({@code t_order} or {@code t_order_item}), by table suffix. */
  long[] rowsPerTable(String logical) throws SQLException {
    if (!logical.equals("t_order") && !logical.equals("t_order_item")) {
      throw new IllegalArgumentException("table must be t_order or t_order_item but was " + logical);
    }
    long[] rows = new long[shape.shards()];
    for (int t = 0; t < rows.length; t++) {
      try (Connection c = pools.get("ds_" + shape.databaseOf(t)).getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + logical + "_" + t)) {
        rs.next();
        rows[t] = rs.getLong(1);
      }
    }
    return rows;
  }

  /** Closes the pools and drops the databases. */
  @Override
  public void close() throws SQLException {
    SQLException failure = null;
    for (int ds = 0; ds < names.size(); ds++) {
      HikariDataSource pool = pools.get("ds_" + ds);
      if (server == Server.H2 && pool != null) {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
          s.execute("SHUTDOWN");
        } catch (SQLException ignored) {
          // the in-memory database is gone either way
        }
      }
      if (pool != null) {
        pool.close();
      }
      if (server != Server.H2) {
        try {
          admin("DROP DATABASE IF EXISTS " + names.get(ds) + (server == Server.POSTGRESQL ? " WITH (FORCE)" : ""));
        } catch (SQLException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
