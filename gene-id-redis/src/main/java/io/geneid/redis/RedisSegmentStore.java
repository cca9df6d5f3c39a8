package io.geneid.redis;

import io.geneid.core.internal.Checks;
import io.geneid.core.GeneIdException;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SegmentStore} over Redis: one counter key per business tag, advanced with {@code INCRBY key step}. The
 * reply {@code e} is the end of the claimed range {@code [e - step + 1, e]}; Redis runs commands one at a time, so
 * ranges handed to racing processes are disjoint.
 *
 * <p><b>Persistence.</b> The counters are the only record of which values were handed out. A Redis that restarts
 * without its data (no AOF/RDB, or a failover to a replica that lagged) starts counting from zero again and hands
 * out used values, to every process of the fleet: a running {@link io.geneid.core.segment.GeneSegmentGenerator} refuses a
 * segment that is not above the ones it has seen, but that protects one process, not two. Run it with
 * {@code appendonly yes} and {@code appendfsync always} (or {@code everysec}, and accept that a crash may lose the
 * last second), or use {@code io.geneid.jdbc.JdbcSegmentStore}. {@link Builder#build()} therefore reads the server's
 * persistence ({@code CONFIG GET appendonly} and {@code save}, or {@code INFO persistence} where {@code CONFIG} is
 * disabled) and refuses a Redis that keeps nothing on disk unless
 * {@link Builder#allowWithoutPersistence(boolean)} (property {@code redis-allow-without-persistence}) says the
 * risk is accepted. RDB snapshots alone are accepted with a warning (a crash goes back to the last snapshot); a
 * server whose persistence cannot be read is accepted with a warning.
 *
 * <p><b>Failing fast.</b> A store built from a URI owns its Lettuce client, configured to reject commands at once
 * while disconnected ({@code DisconnectedBehavior.REJECT_COMMANDS}), with short connect and command timeouts
 * ({@link Builder#commandTimeout(Duration)}) and reconnect attempts at most 500 ms apart. {@link Builder#build()} connects, and
 * fails with a clear message when Redis cannot be reached. A store built over an existing connection uses that
 * connection's settings and does not close it.
 *
 * <pre>{@code
 * try (RedisSegmentStore store = RedisSegmentStore.builder().redisUri("redis://127.0.0.1:6379").build();
 *     GeneSegmentGenerator orders = GeneSegmentGenerator.builder(store, "order").build()) {
 *   long id = orders.nextId();
 * }
 * }</pre>
 */
public final class RedisSegmentStore implements SegmentStore, AutoCloseable {

  /** The default {@link Builder#keyPrefix(String)}: counters are {@code gene-id:segment:<tag>}. */
  public static final String DEFAULT_KEY_PREFIX = "gene-id";
  /** The builder method and property that accept a Redis without persistence. */
  static final String OPT_IN = "allowWithoutPersistence(true) (property redis-allow-without-persistence=true)";

  private static final Logger LOG = LoggerFactory.getLogger(RedisSegmentStore.class);

  /** The default {@link Builder#commandTimeout(Duration)}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final String keyPrefix;
  private final String where;
  private final RedisConnections.@Nullable Owned owned;

  private RedisSegmentStore(StatefulRedisConnection<String, String> connection, String keyPrefix, String where,
      RedisConnections.@Nullable Owned owned) {
    this.connection = connection;
    this.commands = connection.sync();
    this.keyPrefix = keyPrefix;
    this.where = where;
    this.owned = owned;
  }

  /**
   * A builder; {@link Builder#redisUri(String)} or {@link Builder#connection(StatefulRedisConnection)} is required,
   * as for {@link RedisWorkerIdAssigner#builder()}.
   */
  public static Builder builder() {
    return new Builder();
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
    String key = key(bizTag);
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

  /** The Redis key holding {@code bizTag}'s counter: {@code <keyPrefix>:segment:<bizTag>}. */
  public String key(String bizTag) {
    return keyPrefix + ":segment:" + bizTag;
  }

  /** Closes the connection and client if this store opened them. */
  @Override
  public void close() {
    if (owned != null) {
      owned.close();
    }
  }

  @Override
  public String toString() {
    return "RedisSegmentStore[" + where + ", keyPrefix=" + keyPrefix + "]";
  }

  /** Configuration of a {@link RedisSegmentStore}. */
  public static final class Builder {
    private @Nullable RedisURI redisUri;
    private @Nullable StatefulRedisConnection<String, String> connection;
    private String keyPrefix = DEFAULT_KEY_PREFIX;
    private Duration timeout = DEFAULT_TIMEOUT;
    private boolean allowWithoutPersistence;

    private Builder() {}

    /**
     * The Redis to connect to, e.g. {@code redis://127.0.0.1:6379/0} or {@code redis://:password@host:6379/0}. The
     * store owns (and closes) the client.
     *
     * @throws IllegalArgumentException if the URI cannot be parsed (the message never repeats its secrets)
     */
    public Builder redisUri(String redisUri) {
      this.redisUri = RedisConnections.parse("redisUri", Objects.requireNonNull(redisUri, "redisUri"));
      this.connection = null;
      return this;
    }

    /** An existing connection (String codec), which the store uses as it is and never closes. */
    public Builder connection(StatefulRedisConnection<String, String> connection) {
      this.connection = Objects.requireNonNull(connection, "connection");
      this.redisUri = null;
      return this;
    }

    /**
     * The first part of every key, as for the lease keys of {@link RedisWorkerIdAssigner}: counters are
     * {@code <keyPrefix>:segment:<tag>}. Non-empty, without {@code { }}. Default {@code gene-id}.
     */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = RedisConnections.checkKeyPrefix(keyPrefix);
      return this;
    }

    /** Connect and command timeout of an owned client, in [10 ms, 60 s]. Default 2 s. */
    public Builder commandTimeout(Duration commandTimeout) {
      this.timeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
      return this;
    }

    /**
     * Whether to accept a Redis that keeps nothing on disk ({@code appendonly no} and no {@code save} points). Such a
     * Redis forgets its counters when it restarts, and every process then issues segment values that were already
     * issued: duplicate ids across the fleet. Only for tests, or when the ids need not be unique across restarts.
     * Default false.
     */
    public Builder allowWithoutPersistence(boolean allow) {
      this.allowWithoutPersistence = allow;
      return this;
    }

    /**
     * Connects (for a URI), checks that the server keeps its data (see the class comment) and returns the store.
     *
     * @throws IllegalArgumentException for a setting out of range
     * @throws GeneIdException if Redis cannot be reached, or keeps nothing on disk and
     *     {@link #allowWithoutPersistence(boolean)} was not set
     */
    public RedisSegmentStore build() {
      Checks.duration("commandTimeout", timeout, Duration.ofMillis(10), Duration.ofSeconds(60));
      StatefulRedisConnection<String, String> connection = this.connection;
      if (connection == null && redisUri == null) {
        throw new IllegalArgumentException("a Redis URI (redisUri) or a connection is required");
      }
      if (connection != null) {
        String where = "connection " + connection;
        checkPersistence(connection.sync(), where, allowWithoutPersistence);
        return new RedisSegmentStore(connection, keyPrefix, where, null);
      }
      RedisURI target = Objects.requireNonNull(redisUri);
      String where = RedisConnections.describe(target);
      RedisConnections.Owned client;
      try {
        client = RedisConnections.connect(target, timeout);
      } catch (RedisException e) {
        throw new GeneIdException(RedisConnections.connectFailure("the segment store", where, e), e);
      }
      try {
        checkPersistence(client.connection().sync(), where, allowWithoutPersistence);
      } catch (RuntimeException e) {
        client.close();
        throw e;
      }
      return new RedisSegmentStore(client.connection(), keyPrefix, where, client);
    }
  }

  /**
   * Refuses a Redis that keeps nothing on disk unless {@code allow}; warns about RDB snapshots alone and about a
   * server whose persistence cannot be read.
   */
  static void checkPersistence(RedisCommands<String, String> commands, String where, boolean allow) {
    String appendonly;
    String save;
    try {
      appendonly = commands.configGet("appendonly").getOrDefault("appendonly", "");
      save = commands.configGet("save").getOrDefault("save", "").trim();
    } catch (RedisException e) {
      // CONFIG renamed or disabled (managed services): INFO persistence says whether AOF is on, not the RDB rules
      String info;
      try {
        info = commands.info("persistence");
      } catch (RedisException e2) {
        LOG.warn("the Redis segment store at {} cannot read the server's persistence (CONFIG GET: {}; INFO "
            + "persistence: {}): make sure it keeps its data (appendonly yes), or segment values repeat after a "
            + "restart", where, e.getMessage(), e2.getMessage());
        return;
      }
      if ("1".equals(RedisConnections.infoField(info, "aof_enabled"))) {
        return;
      }
      LOG.warn("the Redis segment store at {} cannot read the server's persistence settings (CONFIG GET: {}) and "
          + "INFO persistence shows no AOF: make sure it keeps its data, or segment values repeat after a restart",
          where, e.getMessage());
      return;
    }
    if ("yes".equalsIgnoreCase(appendonly)) {
      return;
    }
    String found = "appendonly " + appendonly + ", save \"" + save + "\"";
    if (!save.isEmpty()) {
      LOG.warn("the Redis segment store at {} keeps only RDB snapshots ({}): a crash goes back to the last snapshot"
          + " and segment values handed out since then are handed out again. Use appendonly yes", where, found);
      return;
    }
    if (allow) {
      LOG.warn("the Redis segment store at {} keeps nothing on disk ({}), accepted by {}: after a restart of Redis "
          + "its counters start again from zero and processes issue segment values that were already issued",
          where, found, OPT_IN);
      return;
    }
    throw new GeneIdException("the Redis segment store at " + where + " keeps nothing on disk (" + found + "): "
        + "after a restart of Redis its counters start again from zero, and two processes (or one restarted) would "
        + "issue the same segment values, so duplicate ids. Turn on appendonly yes (appendfsync always or "
        + "everysec) on the server, use the JDBC segment store, or accept the risk with " + OPT_IN);
  }
}
