package io.geneid.shardingsphere;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;

/**
 * Physical databases {@code ds_0 .. ds_n-1} with unique names for one test run, each holding {@code t_order_k} and
 * {@code t_item_k} for each table suffix {@code k} ({@code 0, 1, ...} or months); every statement executed on them through ShardingSphere is logged. Closing drops them.
 */
final class ShardedDatabases implements AutoCloseable {

  final Backend backend;
  final List<String> statements = Collections.synchronizedList(new ArrayList<>());
  final Map<String, CountingDataSource> dataSources = new LinkedHashMap<>();
  private final List<String> names = new ArrayList<>();
  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<AutoCloseable> sharded = new ArrayList<>();

  ShardedDatabases(Backend backend, int databases, int tablesPerDatabase) throws SQLException {
    this(backend, databases, java.util.stream.IntStream.range(0, tablesPerDatabase).mapToObj(Integer::toString)
        .toList());
  }

  /** Databases of {@code t_order_<suffix>} and {@code t_item_<suffix>} for each suffix (e.g. months: 202611). */
  ShardedDatabases(Backend backend, int databases, List<String> tableSuffixes) throws SQLException {
    this.backend = backend;
    String run = "gid_ss_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    try {
      for (int d = 0; d < databases; d++) {
        String name = run + "_" + d;
        backend.create(name);
        names.add(name);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(backend.url(name));
        config.setUsername(backend.user());
        config.setPassword(backend.password());
        config.setMaximumPoolSize(10); // writers, a scan and the mover at once (AbstractReshardEndToEndTest)
        config.setPoolName(name);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
          for (String t : tableSuffixes) {
            s.execute("CREATE TABLE t_order_" + t + " (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
            s.execute("CREATE TABLE t_item_" + t
                + " (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, name VARCHAR(64) NOT NULL)");
          }
        }
        dataSources.put("ds_" + d, new CountingDataSource("ds_" + d, pool, backend.url(name), backend.user(),
            backend.password(), statements));
      }
    } catch (SQLException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** A ShardingSphere data source over these databases with the given rules YAML (no dataSources section). */
  DataSource shardingSphere(String rulesYaml) throws Exception {
    DataSource ds = YamlShardingSphereDataSourceFactory.createDataSource(new LinkedHashMap<>(dataSources),
        rulesYaml.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    sharded.add((AutoCloseable) ds);
    return ds;
  }

  /** The physical data source of {@code ds_i}, bypassing the statement log. */
  DataSource physical(String dataSourceName) {
    return dataSources.get(dataSourceName).target();
  }

  @Override
  public void close() throws SQLException {
    for (AutoCloseable ds : sharded) {
      try {
        ds.close();
      } catch (Exception ignored) {
        // the physical pools are closed below anyway
      }
    }
    pools.forEach(HikariDataSource::close);
    SQLException failure = null;
    for (String name : names) {
      try {
        backend.drop(name);
      } catch (SQLException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
