package io.geneid.shardingsphere;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.internal.StoreUrls;
import io.geneid.core.bucket.BucketMapStoreProvider;
import io.geneid.core.bucket.BucketMapStores;
import io.geneid.core.settings.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The map stores and routers of {@code GENE_BUCKET} algorithms configured with {@code map-store}: one store and one
 * {@link BucketMapRouter} per (store, map name, router settings) in this JVM, shared by every algorithm instance that
 * names them (ShardingSphere makes two of each algorithm, and a data source built again makes two more), with a count
 * of users: the last {@link Follower#close()} stops the router and closes the store. The store modules are optional
 * dependencies found through their {@link BucketMapStoreProvider}, so a missing module is reported by
 * {@link #provider(String)} as the artifact to add.
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
   * The provider of {@code map-store} {@code type}.
   *
   * @throws IllegalArgumentException naming the artifact to add when the store's module is not on the class path
   */
  static BucketMapStoreProvider provider(String type) {
    try {
      return BucketMapStores.provider(type);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(GeneBucketShardingAlgorithm.TYPE + " property '"
          + GeneBucketShardingAlgorithm.MAP_STORE + "' is " + type + " but gene-id-" + type + " (its bucket map store"
          + " provider) is not on the class path: add the dependency io.geneid:gene-id-" + type, e);
    }
  }

  /** {@code props} ({@code map-store-*} properties) as the store provider reads them, named as in the YAML. */
  static SettingsReader storeSettings(String type, Map<String, ?> props) {
    return BucketMapStores.storeSettings(type, props).ownedBy(GeneBucketShardingAlgorithm.TYPE);
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
      BucketMapStore store = provider(config.type()).create(storeSettings(config.type(), config.props()));
      Shared shared = null;
      try {
        seed(store, config, seed);
        shared = new Shared(config, store);
        shared.router.start();
        shared.latest = shared.router.current(); // throws with the refresh's error if the first one failed
        LOG.info("{} follows bucket map '{}' in the {} as router {}: version {}, refreshed every {} ms, writes refused"
            + " after {} ms without a refresh", GeneBucketShardingAlgorithm.TYPE, config.mapName(), config.where(),
            shared.router.routerId(), shared.router.current().version(), config.refreshInterval().toMillis(),
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
}
