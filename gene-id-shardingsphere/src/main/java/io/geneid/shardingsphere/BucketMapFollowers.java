package io.geneid.shardingsphere;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.internal.StoreUrls;
import io.geneid.jdbc.JdbcBucketMapStore;
import io.geneid.redis.RedisBucketMapStore;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The map stores and routers of {@code GENE_BUCKET} algorithms configured with {@code map-store}: one store and one
 * {@link BucketMapRouter} per (store, map name, router settings) in this JVM, shared by every algorithm instance that
 * names them (ShardingSphere makes two of each algorithm, and a data source built again makes two more), with a count
 * of users: the last {@link Follower#close()} stops the router and closes the store. The store modules are optional
 * dependencies: each is touched only through its own nested class, so a missing module is reported by
 * {@link #requireModule(String)} as the artifact to add.
 */
final class BucketMapFollowers {

  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(BucketMapFollowers.class);

  /**
   * What a follower is made from.
   *
   * @param type {@code jdbc} or {@code redis}
   * @param key identifies the store, map and router settings, without the password
   * @param props the store's settings: url, username, password, table, create-table or key-prefix
   * @param mapName the map's name in the store
   * @param refreshInterval how often the router refreshes
   * @param staleAfter after how long without a refresh writes stop
   * @param routerId the router's id in heartbeats
   */
  record Config(String type, String key, Map<String, String> props, String mapName, Duration refreshInterval,
      Duration staleAfter, String routerId) {

    /** The store as messages show it: the type and the URL without its secrets. */
    String where() {
      return type + " map store at " + StoreUrls.describe(props.get(GeneBucketShardingAlgorithm.MAP_STORE_URL));
    }
  }

  private static final Map<String, Shared> SHARED = new ConcurrentHashMap<>();

  private BucketMapFollowers() {}

  /**
   * @throws IllegalArgumentException naming the artifact to add when the store's module is not on the class path
   */
  static void requireModule(String type) {
    String className = type.equals("jdbc") ? "io.geneid.jdbc.JdbcBucketMapStore"
        : "io.geneid.redis.RedisBucketMapStore";
    try {
      Class.forName(className, false, BucketMapFollowers.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(GeneBucketShardingAlgorithm.TYPE + " property '"
          + GeneBucketShardingAlgorithm.MAP_STORE + "' is " + type + " but " + className + " is not on the class"
          + " path: add the dependency io.geneid:gene-id-" + type, e);
    }
  }

  /** Checks a JDBC table name as the store will (no database is reached). */
  static void checkJdbcTable(String table) {
    Jdbc.checkTable(table);
  }

  /** Checks a Redis URI and key prefix as the store will (no connection is made). */
  static void checkRedis(String uri, String keyPrefix) {
    Redis.check(uri, keyPrefix);
  }

  /**
   * Follows the map {@code config} names for {@code algorithm}: the JVM-wide router for it, created on first call
   * (the store is reached, the map loaded, or stored from {@code seed} as version 1 when the store has none, and the
   * router started). The algorithm routes with the router's map from now on and is told of every new version.
   *
   * @throws GeneIdException if the store cannot be reached or holds a map of other gene bits than {@code seed}
   */
  static Follower follow(Config config, BucketMap seed, GeneBucketShardingAlgorithm algorithm) {
    synchronized (SHARED) {
      Shared shared = SHARED.get(config.key());
      if (shared == null) {
        shared = Shared.start(config, seed);
        SHARED.put(config.key(), shared);
      }
      BucketMap current = shared.latest;
      if (current.geneBits() != seed.geneBits()) {
        throw new GeneIdException(GeneBucketShardingAlgorithm.TYPE + " has gene-bits " + seed.geneBits() + " but"
            + " bucket map '" + config.mapName() + "' in the " + config.where() + " has gene-bits "
            + current.geneBits() + ": ids would route elsewhere; use the key generator's gene-bits");
      }
      // added first, then given the latest map: a refresh running now either sees it in the list or set latest
      // before this reads it; an older map never replaces a newer one
      shared.algorithms.add(algorithm);
      algorithm.useMapIfNewer(shared.latest);
      algorithm.follow(shared.router);
      shared.users++;
      return new Follower(config.key(), shared, algorithm);
    }
  }

  /**
   * Stops every router and closes every store of this JVM, whoever holds them (for tests: ShardingSphere's
   * configuration checker drops its algorithm instances without closing them, so a count of users never reaches
   * zero under ShardingSphere; a data source built again reuses the router it finds here).
   */
  static void stopAll() {
    synchronized (SHARED) {
      SHARED.values().forEach(Shared::close);
      SHARED.clear();
    }
  }

  /** How many algorithm instances share the follower of {@code key} (for tests). */
  static int users(String key) {
    synchronized (SHARED) {
      Shared shared = SHARED.get(key);
      return shared == null ? 0 : shared.users;
    }
  }

  /** One algorithm's hold on a shared router; {@link #close()} gives it up (idempotent). */
  static final class Follower implements AutoCloseable {
    private final String key;
    private final Shared shared;
    private final GeneBucketShardingAlgorithm algorithm;
    private boolean closed;

    private Follower(String key, Shared shared, GeneBucketShardingAlgorithm algorithm) {
      this.key = key;
      this.shared = shared;
      this.algorithm = algorithm;
    }

    BucketMapRouter router() {
      return shared.router;
    }

    @Override
    public void close() {
      synchronized (SHARED) {
        if (closed) {
          return;
        }
        closed = true;
        shared.algorithms.remove(algorithm);
        if (--shared.users == 0) {
          SHARED.remove(key, shared);
          shared.close();
        }
      }
    }
  }

  /** A store and its started router, and the algorithms that route with its maps. */
  private static final class Shared {
    final BucketMapStore store;
    final BucketMapRouter router;
    final List<GeneBucketShardingAlgorithm> algorithms = new CopyOnWriteArrayList<>();
    /** The router's map, set before the algorithms are told of it. */
    volatile BucketMap latest;
    int users;

    private Shared(Config config, BucketMapStore store) {
      this.store = store;
      this.router = BucketMapRouter.builder(store, config.mapName()).routerId(config.routerId())
          .refreshInterval(config.refreshInterval()).staleAfter(config.staleAfter())
          .onNewMap(map -> {
            latest = map;
            algorithms.forEach(a -> a.useMapIfNewer(map));
          }).build();
    }

    static Shared start(Config config, BucketMap seed) {
      BucketMapStore store = config.type().equals("jdbc") ? Jdbc.create(config.props()) : Redis.create(config.props());
      Shared shared = null;
      try {
        seed(store, config, seed);
        shared = new Shared(config, store);
        shared.router.start();
        shared.latest = shared.router.current(); // throws with the refresh's error if the first one failed
        LOG.info("{} follows bucket map '{}' in the {} as router {}: version {}, refreshed every {} ms, writes refused"
            + " after {} ms without a refresh", GeneBucketShardingAlgorithm.TYPE, config.mapName(), config.where(),
            config.routerId(), shared.router.current().version(), config.refreshInterval().toMillis(),
            config.staleAfter().toMillis());
        return shared;
      } catch (RuntimeException e) {
        if (shared != null) {
          shared.router.close();
        }
        closeStore(store);
        throw new GeneIdException(GeneBucketShardingAlgorithm.TYPE + " cannot follow bucket map '" + config.mapName()
            + "' in the " + config.where() + ": " + e.getMessage(), e);
      }
    }

    /** Stores {@code seed} as version 1 when the store has no map of that name (another process may win). */
    private static void seed(BucketMapStore store, Config config, BucketMap seed) {
      if (store.load(config.mapName()).isPresent()) {
        return;
      }
      if (store.compareAndSet(config.mapName(), -1, seed.withVersion(1))) {
        LOG.info("{} stored its configured map as version 1 of bucket map '{}' in the {}: {}",
            GeneBucketShardingAlgorithm.TYPE, config.mapName(), config.where(), seed.format());
      }
    }

    void close() {
      router.close();
      closeStore(store);
    }

    private static void closeStore(BucketMapStore store) {
      if (store instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          LOG.warn("closing {} failed: {}", store, e.toString());
        }
      }
    }
  }

  /** Loaded only with {@code map-store: jdbc}. */
  private static final class Jdbc {
    static void checkTable(String table) {
      JdbcBucketMapStore.ddl(table, false);
    }

    static BucketMapStore create(Map<String, String> props) {
      return JdbcBucketMapStore.builder()
          .dataSource(new DriverManagerDataSource(props.get(GeneBucketShardingAlgorithm.MAP_STORE_URL),
              props.get(GeneBucketShardingAlgorithm.MAP_STORE_USERNAME),
              props.get(GeneBucketShardingAlgorithm.MAP_STORE_PASSWORD)))
          .table(props.get(GeneBucketShardingAlgorithm.MAP_STORE_TABLE))
          .createTable(Boolean.parseBoolean(props.get(GeneBucketShardingAlgorithm.MAP_STORE_CREATE_TABLE)))
          .build();
    }
  }

  /** Loaded only with {@code map-store: redis}. */
  private static final class Redis {
    static void check(String uri, String keyPrefix) {
      RedisBucketMapStore.builder().redisUri(uri).keyPrefix(keyPrefix);
    }

    static BucketMapStore create(Map<String, String> props) {
      return RedisBucketMapStore.builder().redisUri(props.get(GeneBucketShardingAlgorithm.MAP_STORE_URL))
          .keyPrefix(props.get(GeneBucketShardingAlgorithm.MAP_STORE_KEY_PREFIX))
          .build();
    }
  }

  /**
   * Connections from {@link DriverManager}, one per store operation (a refresh is a load and a heartbeat, once per
   * refresh interval): the map table is read a few times a second at most, so it needs no pool of its own, and the
   * ShardingSphere YAML gives it only a URL. Its messages never show the password.
   */
  private static final class DriverManagerDataSource implements DataSource {
    private final String url;
    private final Properties credentials = new Properties();

    DriverManagerDataSource(String url, @Nullable String user, @Nullable String password) {
      this.url = url;
      if (user != null) {
        credentials.setProperty("user", user);
      }
      if (password != null) {
        credentials.setProperty("password", password);
      }
    }

    @Override
    public Connection getConnection() throws SQLException {
      try {
        return DriverManager.getConnection(url, credentials);
      } catch (SQLException e) {
        // "No suitable driver found for <the URL, password and all>"
        throw new SQLException(StoreUrls.scrub(e.getMessage(), url), e.getSQLState(), e.getErrorCode());
      }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      throw new SQLFeatureNotSupportedException("the map store connects with the configured user only");
    }

    @Override
    public @Nullable PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(@Nullable PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException("no java.util.logging");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }

    @Override
    public String toString() {
      return "DriverManager " + StoreUrls.describe(url);
    }
  }
}
