package io.geneid.redis;

import io.geneid.core.GeneIdException;
import io.geneid.core.Segment;
import io.geneid.core.SegmentStore;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A {@link SegmentStore} over Redis: one counter key per business tag, advanced with {@code INCRBY key step}. The
 * reply {@code e} is the end of the claimed range {@code [e - step + 1, e]}; Redis runs commands one at a time, so
 * ranges handed to racing processes are disjoint.
 *
 * <p><b>Persistence.</b> The counters are the only record of which values were handed out. A Redis that restarts
 * without its data (no AOF/RDB, or a failover to a replica that lagged) starts counting from zero again and would
 * hand out used values: run it with {@code appendonly yes} and {@code appendfsync always} (or {@code everysec}, and
 * accept that a crash may lose the last second), or use {@code io.geneid.jdbc.JdbcSegmentStore}. A running
 * {@link io.geneid.core.GeneSegmentGenerator} refuses a segment that is not above the ones it has seen, but a
 * restarted process has nothing to compare with.
 *
 * <p><b>Failing fast.</b> A store built from a URI owns its Lettuce client, configured to reject commands at once
 * while disconnected ({@code DisconnectedBehavior.REJECT_COMMANDS}), with short connect and command timeouts
 * ({@link Builder#timeout(Duration)}) and reconnect attempts at most 2 s apart. {@link Builder#build()} connects, and
 * fails with a clear message when Redis cannot be reached. A store built over an existing connection uses that
 * connection's settings and does not close it.
 *
 * <pre>{@code
 * try (RedisSegmentStore store = RedisSegmentStore.builder("redis://127.0.0.1:6379").build();
 *     GeneSegmentGenerator orders = GeneSegmentGenerator.builder(store, "order").build()) {
 *   long id = orders.nextId();
 * }
 * }</pre>
 */
public final class RedisSegmentStore implements SegmentStore, AutoCloseable {

  /** The default {@link Builder#keyPrefix(String)}. */
  public static final String DEFAULT_KEY_PREFIX = "gene-id:segment:";
  /** The default {@link Builder#timeout(Duration)}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final String keyPrefix;
  private final String where;
  private final @Nullable RedisClient ownedClient;
  private final @Nullable ClientResources ownedResources;

  private RedisSegmentStore(StatefulRedisConnection<String, String> connection, String keyPrefix, String where,
      @Nullable RedisClient ownedClient, @Nullable ClientResources ownedResources) {
    this.connection = connection;
    this.commands = connection.sync();
    this.keyPrefix = keyPrefix;
    this.where = where;
    this.ownedClient = ownedClient;
    this.ownedResources = ownedResources;
  }

  /**
   * A builder for a store that connects to {@code redisUri} (e.g. {@code redis://127.0.0.1:6379/0}, or
   * {@code redis://:password@host:6379}) with its own client.
   *
   * @throws IllegalArgumentException if the URI cannot be parsed
   */
  public static Builder builder(String redisUri) {
    RedisURI uri;
    try {
      uri = RedisURI.create(Objects.requireNonNull(redisUri, "redisUri"));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("redisUri must be a Redis URI such as redis://127.0.0.1:6379 but was '"
          + redisUri + "'", e);
    }
    return new Builder(uri, null);
  }

  /** A builder for a store over an existing connection, which the store uses as it is and never closes. */
  public static Builder builder(StatefulRedisConnection<String, String> connection) {
    return new Builder(null, Objects.requireNonNull(connection, "connection"));
  }

  /**
   * Claims {@code step} values of {@code bizTag} with {@code INCRBY}.
   *
   * @throws IllegalArgumentException for an empty tag or a step below 1
   * @throws GeneIdException if Redis is unreachable, times out or refuses the command
   */
  @Override
  public Segment nextSegment(String bizTag, long step) {
    if (bizTag.isEmpty()) {
      throw new IllegalArgumentException("bizTag must not be empty");
    }
    if (step < 1) {
      throw new IllegalArgumentException("step must be at least 1 but was " + step);
    }
    String key = keyPrefix + bizTag;
    long end;
    try {
      end = commands.incrby(key, step);
    } catch (RedisException e) {
      throw new GeneIdException("the Redis segment store at " + where + " could not hand out " + step
          + " values of tag '" + bizTag + "' (INCRBY " + key + "): " + e.getMessage(), e);
    }
    if (end - step + 1 < 1) {
      throw new GeneIdException("the Redis key " + key + " at " + where + " held " + (end - step)
          + " before INCRBY " + step + ": a segment counter must not be negative");
    }
    return new Segment(end - step + 1, end);
  }

  /** The Redis key holding {@code bizTag}'s counter. */
  public String key(String bizTag) {
    return keyPrefix + bizTag;
  }

  /** Closes the connection and client if this store opened them. */
  @Override
  public void close() {
    if (ownedClient != null) {
      connection.close();
      ownedClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    if (ownedResources != null) {
      ownedResources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return "RedisSegmentStore[" + where + ", keyPrefix=" + keyPrefix + "]";
  }

  /** Configuration of a {@link RedisSegmentStore}. */
  public static final class Builder {
    private final @Nullable RedisURI uri;
    private final @Nullable StatefulRedisConnection<String, String> connection;
    private String keyPrefix = DEFAULT_KEY_PREFIX;
    private Duration timeout = DEFAULT_TIMEOUT;

    private Builder(@Nullable RedisURI uri, @Nullable StatefulRedisConnection<String, String> connection) {
      this.uri = uri;
      this.connection = connection;
    }

    /** Prefix of the counter keys ({@code prefix + bizTag}). Default {@code gene-id:segment:}. */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
      return this;
    }

    /** Connect and command timeout of an owned client, in [10 ms, 60 s]. Default 2 s. */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Connects (for a URI) and returns the store.
     *
     * @throws IllegalArgumentException for a setting out of range
     * @throws GeneIdException if Redis cannot be reached
     */
    public RedisSegmentStore build() {
      if (timeout.compareTo(Duration.ofMillis(10)) < 0 || timeout.compareTo(Duration.ofSeconds(60)) > 0) {
        throw new IllegalArgumentException("timeout must be in [PT0.01S, PT1M] but was " + timeout);
      }
      if (connection != null) {
        return new RedisSegmentStore(connection, keyPrefix, "connection " + connection, null, null);
      }
      RedisURI target = Objects.requireNonNull(uri);
      String where = "redis://" + target.getHost() + ":" + target.getPort() + "/" + target.getDatabase();
      target.setTimeout(timeout);
      ClientResources resources = DefaultClientResources.builder()
          .reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS))
          .build();
      RedisClient client = RedisClient.create(resources, target);
      client.setOptions(ClientOptions.builder()
          .autoReconnect(true)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
          .timeoutOptions(TimeoutOptions.enabled(timeout))
          .build());
      try {
        return new RedisSegmentStore(client.connect(), keyPrefix, where, client, resources);
      } catch (RedisException e) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        throw new GeneIdException("the Redis segment store cannot connect to " + where + ": " + e.getMessage(), e);
      }
    }
  }
}
