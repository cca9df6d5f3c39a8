package io.geneid.shardingsphere;

import io.geneid.core.segment.SegmentStore;
import io.geneid.jdbc.JdbcSegmentStore;
import io.geneid.redis.RedisSegmentStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The segment stores of {@code GENE_SEGMENT}, one per store configuration in this JVM, created on first use. The
 * store modules are optional dependencies: each is touched only through its own nested class, so a missing module
 * is reported by {@link #requireModule(String)} as the artifact to add, never as a {@link NoClassDefFoundError}.
 */
final class SegmentStores {

  /** What a store is made from; {@code key} identifies it without the password. */
  record Config(String type, String key, Map<String, String> props) {}

  private static final Map<String, SegmentStore> STORES = new ConcurrentHashMap<>();

  private SegmentStores() {}

  /**
   * @throws IllegalArgumentException naming the artifact to add when the store's module is not on the class path
   */
  static void requireModule(String type, String property) {
    String className = type.equals("jdbc") ? "io.geneid.jdbc.JdbcSegmentStore" : "io.geneid.redis.RedisSegmentStore";
    try {
      Class.forName(className, false, SegmentStores.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException(GeneSegmentKeyGenerateAlgorithm.TYPE + " property '" + property + "' is "
          + type + " but " + className + " is not on the class path: add the dependency io.geneid:gene-id-" + type,
          e);
    }
  }

  /** Checks a JDBC table name as the store will (no database is reached). */
  static void checkJdbcTable(String table) {
    Jdbc.checkTable(table);
  }

  /**
   * Checks a Redis URI as the store will parse it (no connection is made).
   *
   * @throws IllegalArgumentException if it cannot be parsed
   */
  static void checkRedisUri(String uri) {
    Redis.checkUri(uri);
  }

  /** The JVM-wide store for this configuration, created (and for Redis connected) on first call. */
  static SegmentStore shared(Config config) {
    return STORES.computeIfAbsent(config.key(), k -> config.type().equals("jdbc") ? Jdbc.create(config.props())
        : Redis.create(config.props()));
  }

  /** Loaded only with {@code segment-store: jdbc}. */
  private static final class Jdbc {
    static void checkTable(String table) {
      JdbcSegmentStore.ddl(table);
    }

    static SegmentStore create(Map<String, String> props) {
      return JdbcSegmentStore.builder()
          .jdbcUrl(props.get(GeneSegmentKeyGenerateAlgorithm.JDBC_URL),
              props.get(GeneSegmentKeyGenerateAlgorithm.JDBC_USERNAME),
              props.get(GeneSegmentKeyGenerateAlgorithm.JDBC_PASSWORD))
          .table(props.getOrDefault(GeneSegmentKeyGenerateAlgorithm.JDBC_TABLE, JdbcSegmentStore.DEFAULT_TABLE))
          .createTable(Boolean.parseBoolean(props.get(GeneSegmentKeyGenerateAlgorithm.JDBC_CREATE_TABLE)))
          .build();
    }
  }

  /** Loaded only with {@code segment-store: redis}. */
  private static final class Redis {
    static void checkUri(String uri) {
      RedisSegmentStore.builder().redisUri(uri);
    }

    static SegmentStore create(Map<String, String> props) {
      return RedisSegmentStore.builder().redisUri(props.get(GeneSegmentKeyGenerateAlgorithm.REDIS_URI))
          .keyPrefix(props.getOrDefault(GeneSegmentKeyGenerateAlgorithm.REDIS_KEY_PREFIX,
              RedisSegmentStore.DEFAULT_KEY_PREFIX))
          .allowWithoutPersistence(Boolean.parseBoolean(
              props.get(GeneSegmentKeyGenerateAlgorithm.REDIS_ALLOW_WITHOUT_PERSISTENCE)))
          .build();
    }
  }
}
