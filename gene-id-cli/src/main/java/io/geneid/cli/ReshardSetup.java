package io.geneid.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.bucket.BucketMapStores;
import io.geneid.core.internal.StoreUrls;
import io.geneid.jdbc.JdbcBucketMapStore;
import io.geneid.jdbc.JdbcBucketMover;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * What {@code reshard move}, {@code cleanup} and {@code status} share: the family and data sources of the
 * application's ShardingSphere YAML, connection pools to them (opened on first use, closed with this), and the map
 * store ({@code --map-store-url}, or the {@code map-store-url} property of the {@code GENE_BUCKET} algorithm): a
 * JDBC URL (a {@code JdbcBucketMapStore}) or a {@code redis://}, {@code rediss://}, {@code redis-sentinel://} or
 * {@code redis-cluster://} URI (a {@code RedisBucketMapStore}, keys under the algorithm's
 * {@code map-store-key-prefix} if it has one).
 *
 * <p>The map store's user and password are those of the URL, or the algorithm's {@code map-store-username} and
 * {@code map-store-password} when the URL is the algorithm's. Values of the data sources and of the map store may
 * be ShardingSphere's placeholders
 * {@code $${NAME::default}}: {@code NAME} from the environment, else from a system property, else the default.
 */
final class ReshardSetup implements AutoCloseable {

  /** The {@code GENE_BUCKET} properties naming the application's map store. */
  static final String MAP_STORE_URL = BucketMapStores.MAP_STORE_URL;
  static final String MAP_NAME = BucketMapStores.MAP_NAME;
  static final String MAP_STORE_TABLE = BucketMapStores.MAP_STORE_TABLE;
  static final String MAP_STORE_USERNAME = BucketMapStores.MAP_STORE_USERNAME;
  static final String MAP_STORE_PASSWORD = BucketMapStores.MAP_STORE_PASSWORD;
  static final String MAP_STORE_KEY_PREFIX = BucketMapStores.MAP_STORE_KEY_PREFIX;

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\$\\{([^:}]+)(?:::([^}]*))?}");

  final ShardingConfig.Family family;
  private final Map<Integer, HikariDataSource> pools = new LinkedHashMap<>();
  private @Nullable String mapName;
  private @Nullable BucketMapStore store;
  /** The store this opened through its provider (Redis), closed with this. */
  private @Nullable AutoCloseable ownedStore;
  private @Nullable String storeUrl;
  /** Where in the store the map is: its table, or its key prefix. */
  private String storeTable = "table " + JdbcBucketMapStore.DEFAULT_TABLE;
  private @Nullable HikariDataSource storePool;

  private ReshardSetup(ShardingConfig.Family family) {
    this.family = family;
  }

  /** The family and data sources of the YAML, without a map store (for counting rows). */
  static ReshardSetup databases(Path config, String algorithm) {
    return new ReshardSetup(ShardingConfig.family(config, algorithm));
  }

  /**
   * Reads the YAML and connects to the map store.
   *
   * @param mapStoreUrl {@code --map-store-url}, else the algorithm's {@code map-store-url}
   * @param mapName {@code --map-name}, else the algorithm's {@code map-name}, else the algorithm's name
   * @param table {@code --map-store-table}, else the algorithm's {@code map-store-table}, else the default
   */
  static ReshardSetup open(Path config, String algorithm, @Nullable String mapStoreUrl, @Nullable String mapName,
      @Nullable String table) {
    ReshardSetup setup = databases(config, algorithm);
    ShardingConfig.Family family = setup.family;
    Map<String, String> props = family.props();
    String url = mapStoreUrl != null ? mapStoreUrl : props.get(MAP_STORE_URL);
    if (url == null || url.isBlank()) {
      throw new BadInputException("no map store: give --map-store-url <jdbc url or redis uri>, or the property "
          + MAP_STORE_URL + " of '" + algorithm + "' in " + config);
    }
    url = resolve(url.trim(), "the map store URL");
    String name = mapName != null ? mapName : props.getOrDefault(MAP_NAME, algorithm);
    if (url.startsWith("redis")) {
      setup.storeUrl = url;
      setup.mapName = name;
      try {
        Map<String, String> redis = new LinkedHashMap<>();
        redis.put(MAP_STORE_URL, url);
        String prefix = mapStoreUrl == null ? props.get(MAP_STORE_KEY_PREFIX) : null;
        if (prefix != null) {
          redis.put(MAP_STORE_KEY_PREFIX, prefix);
          setup.storeTable = "key prefix " + prefix;
        } else {
          setup.storeTable = "default key prefix";
        }
        BucketMapStore store = BucketMapStores.provider("redis").create(BucketMapStores.storeSettings("redis", redis));
        setup.ownedStore = store instanceof AutoCloseable closeable ? closeable : null;
        setup.store = store;
        return setup;
      } catch (RuntimeException e) {
        setup.close();
        throw new BadInputException("the map store " + StoreUrls.describe(url) + " cannot be used: "
            + e.getMessage());
      }
    }
    if (!url.startsWith("jdbc:")) {
      throw new BadInputException("the map store URL must be a JDBC URL (jdbc:mariadb:, jdbc:postgresql:, jdbc:h2:)"
          + " or a Redis URI (redis://, rediss://, redis-sentinel://, redis-cluster://) but was '"
          + StoreUrls.describe(url) + "'");
    }
    String tableName = table != null ? table : props.getOrDefault(MAP_STORE_TABLE, JdbcBucketMapStore.DEFAULT_TABLE);
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(url);
    if (mapStoreUrl == null && props.get(MAP_STORE_USERNAME) != null) {
      hikari.setUsername(resolve(props.get(MAP_STORE_USERNAME), MAP_STORE_USERNAME + " of '" + algorithm + "'"));
    }
    if (mapStoreUrl == null && props.get(MAP_STORE_PASSWORD) != null) {
      hikari.setPassword(resolve(props.get(MAP_STORE_PASSWORD), MAP_STORE_PASSWORD + " of '" + algorithm + "'"));
    }
    hikari.setPoolName("gene-id map store");
    HikariDataSource pool = pool(hikari, "the map store " + StoreUrls.describe(url), url);
    setup.storePool = pool;
    setup.storeUrl = url;
    setup.mapName = name;
    setup.storeTable = "table " + tableName;
    try {
      setup.store = JdbcBucketMapStore.builder().dataSource(pool).table(tableName).createTable(true).build();
      return setup;
    } catch (IllegalArgumentException e) {
      setup.close();
      throw new BadInputException(e.getMessage());
    }
  }

  /** The map store; only after {@link #open}. */
  BucketMapStore store() {
    return Objects.requireNonNull(store, "no map store was opened");
  }

  /** The map's name in the store; only after {@link #open}. */
  String mapName() {
    return Objects.requireNonNull(mapName, "no map store was opened");
  }

  /** The map store, shown without its secrets. */
  String storeDescription() {
    return StoreUrls.describe(storeUrl) + ", " + storeTable + ", map '" + mapName() + "'";
  }

  /** The pool of target {@code index}'s data source, opened on first use. */
  DataSource target(int index) {
    HikariDataSource pool = pools.get(index);
    if (pool == null) {
      String name = family.dataSourceOf(index);
      pool = connect(name, family.dataSources().get(name));
      pools.put(index, pool);
    }
    return pool;
  }

  /** The JDBC URL of a data source of the YAML ({@code jdbcUrl}, {@code url} or {@code jdbc-url}), resolved. */
  static String url(String name, Map<?, ?> settings) {
    return Objects.requireNonNull(setting(settings, name, true, "jdbcUrl", "url", "jdbc-url"));
  }

  /** A small pool to a data source of the YAML, from its URL, user, password and driver. */
  static HikariDataSource connect(String name, Map<?, ?> settings) {
    String url = url(name, settings);
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(url);
    String user = setting(settings, name, false, "username", "user");
    if (user != null) {
      hikari.setUsername(user);
    }
    String password = setting(settings, name, false, "password");
    if (password != null) {
      hikari.setPassword(password);
    }
    String driver = setting(settings, name, false, "driverClassName", "driver-class-name");
    if (driver != null) {
      hikari.setDriverClassName(driver);
    }
    hikari.setPoolName("gene-id " + name);
    return pool(hikari, "data source " + name + " (" + StoreUrls.describe(url) + ")", url);
  }

  /** The family as the mover takes it. */
  List<JdbcBucketMover.Table> moverTables() {
    List<JdbcBucketMover.Table> tables = new ArrayList<>();
    for (ShardingConfig.FamilyTable t : family.tables()) {
      try {
        tables.add(new JdbcBucketMover.Table(t.keyColumn(), t.physicalTable()));
      } catch (IllegalArgumentException e) {
        throw new BadInputException("table " + t.name() + ": " + e.getMessage());
      }
    }
    return tables;
  }

  /**
   * The rows of each bucket of the family, counted where {@code current} puts it: per target and physical table,
   * {@code SELECT <gene>, COUNT(*) ... GROUP BY <gene>} with the mover's {@link JdbcBucketMover#geneSql} (negative keys
   * included); rows of a bucket found elsewhere are not counted.
   */
  long[] countRows(BucketMap current) {
    long[] rows = new long[current.bucketCount()];
    for (int t = 0; t < current.targetCount(); t++) {
      List<Integer> own = current.bucketsOf(t);
      if (own.isEmpty()) {
        continue;
      }
      DataSource ds = target(t);
      for (ShardingConfig.FamilyTable table : family.tables()) {
        Set<String> physical = new LinkedHashSet<>();
        own.forEach(b -> physical.add(table.physicalTable().apply(b)));
        for (String name : physical) {
          String mod = JdbcBucketMover.geneSql(table.keyColumn(), current.bucketCount());
          String sql = "SELECT " + mod + ", COUNT(*) FROM " + name + " GROUP BY " + mod;
          try (Connection c = ds.getConnection(); Statement st = c.createStatement();
               ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
              int b = rs.getInt(1);
              if (b >= 0 && b < rows.length && current.target(b) == t
                  && table.physicalTable().apply(b).equals(name)) {
                rows[b] += rs.getLong(2);
              }
            }
          } catch (SQLException e) {
            throw new GeneIdException("counting rows with " + sql + " on data source " + family.dataSourceOf(t)
                + " failed: " + e.getMessage(), e);
          }
        }
      }
    }
    return rows;
  }

  private static HikariDataSource pool(HikariConfig hikari, String what, String url) {
    hikari.setMaximumPoolSize(3);
    hikari.setConnectionTimeout(10_000);
    try {
      return new HikariDataSource(hikari);
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new GeneIdException("cannot connect to " + what + ": " + StoreUrls.scrub(cause.getMessage(), url));
    }
  }

  private static @Nullable String setting(Map<?, ?> settings, String dataSource, boolean required,
      String... keys) {
    for (String key : keys) {
      Object value = settings.get(key);
      if (value != null) {
        return resolve(String.valueOf(value), key + " of data source " + dataSource);
      }
    }
    if (required) {
      throw new BadInputException("data source " + dataSource + " has none of " + List.of(keys)
          + ": its JDBC URL is needed");
    }
    return null;
  }

  /**
   * Replaces ShardingSphere's placeholders {@code $${NAME::default}} by the environment variable {@code NAME},
   * else the system property, else the default.
   *
   * @throws BadInputException naming the variable when it is unset and has no default
   */
  static String resolve(String value, String what) {
    Matcher m = PLACEHOLDER.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1).trim();
      String found = System.getenv(name);
      if (found == null) {
        found = System.getProperty(name);
      }
      if (found == null) {
        found = m.group(2);
      }
      if (found == null) {
        throw new BadInputException(what + " refers to $${" + name + "}, which is neither an environment variable"
            + " nor a system property, and has no default ($${" + name + "::default})");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(found));
    }
    m.appendTail(out);
    return out.toString();
  }

  @Override
  public void close() {
    pools.values().forEach(HikariDataSource::close);
    if (storePool != null) {
      storePool.close();
    }
    if (ownedStore != null) {
      try {
        ownedStore.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new GeneIdException("closing the map store failed: " + e.getMessage(), e);
      }
    }
  }
}
