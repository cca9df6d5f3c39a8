package io.geneid.core.settings;

/**
 * The kebab-case keys the store modules read (gene-id-redis, gene-id-jdbc, gene-id-zookeeper, gene-id-etcd), kept
 * in core so that every front end (Spring Boot properties, ShardingSphere props, the CLI, gene-id-server) names them
 * without the store module on its class path. The providers that read them
 * ({@code io.geneid.core.lease.WorkerIdAssignerProvider}, {@code io.geneid.core.segment.SegmentStoreProvider},
 * {@code io.geneid.core.bucket.BucketMapStoreProvider}) say which of them they read.
 */
public final class StoreKeys {

  /** A Redis URI: {@code redis://}, {@code rediss://}, {@code redis-sentinel://} or {@code redis-cluster://}. */
  public static final String REDIS_URI = "redis-uri";
  /** The first part of every Redis key. */
  public static final String REDIS_KEY_PREFIX = "redis-key-prefix";
  /** The Redis command timeout of a lease assigner. */
  public static final String REDIS_TIMEOUT = "redis-timeout";
  /** Whether a segment store accepts a Redis that keeps nothing on disk. */
  public static final String REDIS_ALLOW_WITHOUT_PERSISTENCE = "redis-allow-without-persistence";

  /** A JDBC URL ({@code jdbc:...}), connected through {@link java.sql.DriverManager}. */
  public static final String JDBC_URL = "jdbc-url";
  /** The database user. */
  public static final String JDBC_USERNAME = "jdbc-username";
  /** The database password. */
  public static final String JDBC_PASSWORD = "jdbc-password";
  /** The store's table. */
  public static final String JDBC_TABLE = "jdbc-table";
  /** Whether the store creates its table on first use. */
  public static final String JDBC_CREATE_TABLE = "jdbc-create-table";
  /** The query timeout of every statement of a lease assigner. */
  public static final String JDBC_STATEMENT_TIMEOUT = "jdbc-statement-timeout";

  /** The ZooKeeper connect string. */
  public static final String ZOOKEEPER_CONNECT = "zookeeper-connect";
  /** The base path of the lease nodes. */
  public static final String ZOOKEEPER_BASE_PATH = "zookeeper-base-path";
  /** The ZooKeeper session timeout. */
  public static final String ZOOKEEPER_SESSION_TIMEOUT = "zookeeper-session-timeout";
  /** The ZooKeeper connection timeout. */
  public static final String ZOOKEEPER_CONNECTION_TIMEOUT = "zookeeper-connection-timeout";
  /** The ZooKeeper digest user. */
  public static final String ZOOKEEPER_USERNAME = "zookeeper-username";
  /** The ZooKeeper digest password. */
  public static final String ZOOKEEPER_PASSWORD = "zookeeper-password";

  /** The etcd endpoints. */
  public static final String ETCD_ENDPOINTS = "etcd-endpoints";
  /** The first part of every etcd key. */
  public static final String ETCD_KEY_PREFIX = "etcd-key-prefix";
  /** The etcd request timeout. */
  public static final String ETCD_TIMEOUT = "etcd-timeout";
  /** The etcd user. */
  public static final String ETCD_USERNAME = "etcd-username";
  /** The etcd password. */
  public static final String ETCD_PASSWORD = "etcd-password";

  private StoreKeys() {}
}
