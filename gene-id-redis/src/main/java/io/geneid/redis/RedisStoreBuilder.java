package io.geneid.redis;

import io.geneid.core.GeneIdException;
import io.geneid.core.internal.Checks;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * What the builders of {@link RedisSegmentStore} and {@link RedisBucketMapStore} share: where Redis is (a URI the
 * store connects to and owns, or a connection it borrows), the key prefix and the command timeout, and the connect
 * step of {@code build()}.
 *
 * @param <B> the builder type, returned by the setters
 */
abstract class RedisStoreBuilder<B extends RedisStoreBuilder<B>> {

  private RedisConnections.@Nullable Target redisUri;
  private @Nullable StatefulRedisConnection<String, String> connection;
  private @Nullable StatefulRedisClusterConnection<String, String> clusterConnection;
  String keyPrefix = RedisSegmentStore.DEFAULT_KEY_PREFIX;
  Duration timeout = RedisSegmentStore.DEFAULT_TIMEOUT;

  RedisStoreBuilder() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * The Redis to connect to: {@code redis://127.0.0.1:6379/0}, {@code redis://:password@host:6379/0}, the master
   * of a Sentinel deployment ({@code redis-sentinel://host1:26379,host2:26379/0#mymaster}) or a Redis Cluster
   * ({@code redis-cluster://host1:6379,host2:6379}). The store owns (and closes) the client.
   *
   * @throws IllegalArgumentException if the URI cannot be parsed (the message never repeats its secrets)
   */
  public B redisUri(String redisUri) {
    this.redisUri = RedisConnections.parse("redisUri", Objects.requireNonNull(redisUri, "redisUri"));
    this.connection = null;
    this.clusterConnection = null;
    return self();
  }

  /** An existing connection (String codec), which the store uses as it is and never closes. */
  public B connection(StatefulRedisConnection<String, String> connection) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.clusterConnection = null;
    this.redisUri = null;
    return self();
  }

  /** An existing Redis Cluster connection (String codec), which the store uses as it is and never closes. */
  public B clusterConnection(StatefulRedisClusterConnection<String, String> connection) {
    this.clusterConnection = Objects.requireNonNull(connection, "connection");
    this.connection = null;
    this.redisUri = null;
    return self();
  }

  /**
   * The first part of every key, shared by the module's stores and {@link RedisWorkerIdAssigner}'s lease keys.
   * Non-empty, without <code>{ }</code>. Default {@code gene-id}.
   */
  public B keyPrefix(String keyPrefix) {
    this.keyPrefix = RedisConnections.checkKeyPrefix(keyPrefix);
    return self();
  }

  /** Connect and command timeout of an owned client, in [10 ms, 60 s]. Default 2 s. */
  public B commandTimeout(Duration commandTimeout) {
    this.timeout = Checks.duration("commandTimeout", commandTimeout, Duration.ofMillis(10), Duration.ofSeconds(60));
    return self();
  }

  /**
   * The link to Redis for {@code build()}: the given connection, or a new client for the URI; {@code check} runs
   * on it with the link and its description ({@code scheme://host:port/db} or the connection), and a client this
   * made is closed if it fails.
   *
   * @param role what the store is, for messages: "the segment store"
   * @throws IllegalArgumentException without a URI or connection
   * @throws GeneIdException if Redis cannot be reached
   */
  final Connected connect(String role, BiConsumer<RedisConnections.Link, String> check) {
    if (connection == null && clusterConnection == null && redisUri == null) {
      throw new IllegalArgumentException("a Redis URI (redisUri) or a connection is required");
    }
    if (connection != null || clusterConnection != null) {
      RedisConnections.Link given = connection != null ? RedisConnections.Link.of(connection)
          : RedisConnections.Link.of(Objects.requireNonNull(clusterConnection));
      String where = "connection " + given.connection();
      check.accept(given, where);
      return new Connected(given, where);
    }
    RedisConnections.Target target = Objects.requireNonNull(redisUri);
    String where = RedisConnections.describe(target);
    RedisConnections.Link client;
    try {
      client = RedisConnections.connect(target, timeout);
    } catch (RedisException e) {
      throw new GeneIdException(RedisConnections.connectFailure(role, where, e), e);
    }
    try {
      check.accept(client, where);
    } catch (RedisException e) {
      client.close();
      throw new GeneIdException("cannot reach " + role + ", Redis at " + where + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
    return new Connected(client, where);
  }

  /** A link and how messages name it. */
  record Connected(RedisConnections.Link link, String where) {}
}
