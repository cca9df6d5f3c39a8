package io.geneid.redis;

import io.geneid.core.GeneIdException;
import io.geneid.core.LeaseAssignerBuilder;
import io.geneid.core.WorkerIdAssigner;
import io.geneid.core.WorkerIdAssigners;
import io.geneid.core.WorkerIdExhaustedException;
import io.geneid.core.WorkerLease;
import io.geneid.core.WorkerLeaseLostException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker-id leases in Redis, through Lettuce.
 *
 * <h2>Data</h2>
 * Five keys per pool, hash-tagged so they share one cluster slot ({@code <prefix>:lease:{<space>}:...}):
 * {@code expiry} (sorted set: worker id -> lease expiry in ms; the least recently used id has the lowest score),
 * {@code holder} (hash: id -> owner), {@code token} (hash: id -> fencing token), {@code mark} (hash: id -> high-water
 * mark in ms) and {@code meta} (hash: {@code born}, {@code seq}). Acquire, renew and release are Lua scripts
 * ({@code lease-acquire.lua}, {@code lease-renew.lua}, {@code lease-release.lua}), atomic on the server; every number
 * crosses into and out of Lua as a decimal string, and every time is the server's ({@code TIME}), not a client's.
 *
 * <h2>A store that forgets</h2>
 * A Redis without persistence restarts empty. A holder whose renewal then finds its token gone fences at once and
 * re-acquires. Worker ids without a record have an unknown last holder, who may still be issuing until its next
 * renewal fails: they are handed out only one TTL (plus a 2 s slack for borrowed time and clock skew) after the pool's
 * records started again ({@code born}), with that instant as their high-water mark. A brand-new pool pays the same
 * wait once: Redis cannot tell "new" from "forgotten". Run lease stores with persistence (AOF) all the same.
 *
 * <p>Commands fail at once while disconnected ({@code REJECT_COMMANDS}) and time out after
 * {@link Builder#commandTimeout(Duration)}, so a renewal never hangs past the lease. After a Redis restart
 * {@code EVALSHA} answers {@code NOSCRIPT}; the script is then sent with {@code EVAL}, which caches it again.
 */
public final class RedisWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(RedisWorkerIdAssigner.class);

  /** Default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "gene-id";
  /** How long worker ids of unknown history wait beyond one TTL (borrowed time and clock skew). */
  static final Duration UNKNOWN_HISTORY_SLACK = Duration.ofSeconds(2);

  static final Script ACQUIRE = Script.load("lease-acquire.lua");
  private static final Script RENEW = Script.load("lease-renew.lua");
  private static final Script RELEASE = Script.load("lease-release.lua");

  private final String space;
  private final long minWorkerId;
  private final long maxWorkerId;
  private final Duration ttl;
  private final Duration acquireTimeout;
  private final String owner;
  private final String[] keys;
  private final String description;
  private final @Nullable RedisClient ownedClient;
  private final StatefulRedisConnection<String, String> connection;
  private final boolean ownsConnection;

  private RedisWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease) {
    this.space = lease.space();
    this.minWorkerId = lease.minWorkerId();
    this.maxWorkerId = lease.maxWorkerId();
    this.ttl = lease.ttl();
    this.acquireTimeout = lease.acquireTimeout();
    this.owner = lease.owner();
    String base = b.keyPrefix + ":lease:{" + space + "}:";
    this.keys = new String[] {base + "expiry", base + "holder", base + "token", base + "mark", base + "meta"};
    Duration timeout = b.commandTimeout != null ? b.commandTimeout
        : Duration.ofMillis(Math.max(100, Math.min(ttl.toMillis() / 3, 5_000)));
    if (b.connection != null) {
      this.ownedClient = null;
      this.connection = b.connection;
      this.ownsConnection = false;
      this.description = "Redis connection " + b.connection;
    } else {
      RedisURI uri = RedisURI.create(Objects.requireNonNull(b.redisUri, "redisUri or connection is required"));
      this.description = "Redis at " + uri.toURI().toString().replaceAll("//[^@/]*@", "//***@");
      uri.setTimeout(timeout);
      RedisClient client = RedisClient.create(uri);
      client.setOptions(ClientOptions.builder()
          .autoReconnect(true)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .build());
      try {
        this.connection = client.connect();
      } catch (RedisException e) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        throw new GeneIdException("cannot reach the worker-id lease store, " + description + ": " + e.getMessage(),
            e);
      }
      this.ownedClient = client;
      this.ownsConnection = true;
    }
    if (b.commandTimeout != null || ownsConnection) {
      connection.setTimeout(timeout);
    }
  }

  /** A builder; {@link Builder#redisUri(String)} or {@link Builder#connection(StatefulRedisConnection)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String space() {
    return space;
  }

  @Override
  public Duration ttl() {
    return ttl;
  }

  /** The Redis keys of this pool (expiry, holder, token, mark, meta). */
  public List<String> keys() {
    return List.of(keys);
  }

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    long[] range = WorkerIdAssigners.poolRange(space, minWorkerId, maxWorkerId, layoutMaxWorkerId);
    long deadline = System.nanoTime() + acquireTimeout.toNanos();
    for (;;) {
      List<Object> reply = run(ACQUIRE, owner, Long.toString(ttl.toMillis()), Long.toString(range[0]),
          Long.toString(range[1]), Long.toString(UNKNOWN_HISTORY_SLACK.toMillis()));
      if ("ok".equals(reply.get(0))) {
        WorkerLease lease = new WorkerLease(space, num(reply, 1), num(reply, 2), owner, instant(reply, 3),
            instant(reply, 3), instant(reply, 4));
        LOG.info("leased worker id {} of space '{}' from {} until {} (store time)", lease.workerId(), space,
            description, lease.expiresAt());
        return lease;
      }
      // busy: size, unknown count, unknown usable at, then (id, owner, expiry) triples
      long unknown = num(reply, 2);
      long usableAt = num(reply, 3);
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        List<String> holders = new ArrayList<>();
        for (int i = 4; i + 2 < reply.size(); i += 3) {
          holders.add(reply.get(i) + " by " + reply.get(i + 1) + " until " + instant(reply, i + 2));
        }
        String detail = unknown == 0 ? "" : " (" + unknown + " of them have an unknown history after the store lost"
            + " its data, and become usable at " + Instant.ofEpochMilli(usableAt) + ")";
        throw new WorkerIdExhaustedException(space, range[0], range[1], holders, detail + " in " + description
            + " after waiting " + acquireTimeout.toMillis() + " ms");
      }
      WorkerIdAssigners.pauseBeforeRetry(space, ttl, remaining);
    }
  }

  @Override
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    List<Object> reply = run(RENEW, Long.toString(lease.workerId()), Long.toString(lease.token()),
        Long.toString(ttl.toMillis()), Long.toString(highWaterMark.toEpochMilli()));
    if (!"ok".equals(reply.get(0))) {
      String held = String.valueOf(reply.get(1));
      throw new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId() + " of space '"
          + space + "' is no longer leased under token " + lease.token() + " in " + description + ": "
          + (held.isEmpty() ? "the store has no lease for it (released, or the store lost its data)"
              : "it was taken over (token " + held + ")"), null);
    }
    return lease.renewed(instant(reply, 1), instant(reply, 2));
  }

  @Override
  public void release(WorkerLease lease, Instant highWaterMark) {
    List<Object> reply = run(RELEASE, Long.toString(lease.workerId()), Long.toString(lease.token()),
        Long.toString(highWaterMark.toEpochMilli()));
    if ("ok".equals(reply.get(0))) {
      LOG.info("released worker id {} of space '{}' with high-water mark {}", lease.workerId(), space,
          highWaterMark);
    } else {
      LOG.warn("worker id {} of space '{}' was not released: it is no longer leased under token {}",
          lease.workerId(), space, lease.token());
    }
  }

  @Override
  public void close() {
    if (ownsConnection) {
      connection.close();
    }
    if (ownedClient != null) {
      ownedClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  List<Object> run(Script script, String... args) {
    RedisCommands<String, String> commands = connection.sync();
    Object reply;
    try {
      try {
        reply = commands.evalsha(script.sha, ScriptOutputType.MULTI, keys, args);
      } catch (RedisNoScriptException e) {
        // the server's script cache is empty (restart, SCRIPT FLUSH): EVAL sends the body and caches it again
        reply = commands.eval(script.body, ScriptOutputType.MULTI, keys, args);
      }
    } catch (RedisException e) {
      throw new GeneIdException("the worker-id lease store, " + description + ", failed on " + script.name
          + " for space '" + space + "': " + e.getMessage(), e);
    }
    if (reply instanceof List) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) reply;
      return list;
    }
    return List.of(String.valueOf(reply));
  }

  private static long num(List<Object> reply, int index) {
    return Long.parseLong(String.valueOf(reply.get(index)));
  }

  private static Instant instant(List<Object> reply, int index) {
    return Instant.ofEpochMilli(num(reply, index));
  }

  @Override
  public String toString() {
    return "RedisWorkerIdAssigner[space=" + space + ", pool=[" + minWorkerId + ", "
        + (maxWorkerId == Integer.MAX_VALUE ? "layout max" : maxWorkerId) + "], ttl=" + ttl + ", " + description
        + "]";
  }

  /** A Lua script from the class path with its SHA-1. */
  static final class Script {
    final String name;
    final String body;
    final String sha;

    private Script(String name, String body, String sha) {
      this.name = name;
      this.body = body;
      this.sha = sha;
    }

    /** A script from its text (tests use it to send a body the server has never cached). */
    static Script of(String name, String body) {
      try {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
        return new Script(name, body, HexFormat.of().formatHex(digest));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    static Script load(String name) {
      try (InputStream in = RedisWorkerIdAssigner.class.getResourceAsStream(name)) {
        if (in == null) {
          throw new IllegalStateException("missing resource io/geneid/redis/" + name);
        }
        return of(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Configuration of a {@link RedisWorkerIdAssigner}: the Redis and its key prefix here, the pool's settings
   * ({@code space}, {@code workerIds}, {@code ttl}, {@code acquireTimeout}, {@code owner}) in
   * {@link LeaseAssignerBuilder}.
   */
  public static final class Builder extends LeaseAssignerBuilder<Builder> {
    String keyPrefix = DEFAULT_KEY_PREFIX;
    @Nullable String redisUri;
    @Nullable StatefulRedisConnection<String, String> connection;
    @Nullable Duration commandTimeout;

    private Builder() {}

    /** The Redis to connect to, e.g. {@code redis://127.0.0.1:6379/0}. The assigner owns (and closes) the client. */
    public Builder redisUri(String redisUri) {
      this.redisUri = Objects.requireNonNull(redisUri, "redisUri");
      return this;
    }

    /**
     * An existing connection (String codec), not closed by the assigner. Configure it with
     * {@code DisconnectedBehavior.REJECT_COMMANDS} and a command timeout well below the TTL.
     */
    public Builder connection(StatefulRedisConnection<String, String> connection) {
      this.connection = Objects.requireNonNull(connection, "connection");
      return this;
    }

    /** The first part of every key. Default {@code gene-id}. */
    public Builder keyPrefix(String keyPrefix) {
      if (keyPrefix.isEmpty() || keyPrefix.contains("{") || keyPrefix.contains("}")) {
        throw new IllegalArgumentException("redis-key-prefix must be non-empty and free of { } but was '" + keyPrefix
            + "'");
      }
      this.keyPrefix = keyPrefix;
      return this;
    }

    /** Command timeout. Default a third of the TTL, in [100 ms, 5 s]. */
    public Builder commandTimeout(Duration commandTimeout) {
      this.commandTimeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
      return this;
    }

    /**
     * Connects (when given a URI).
     *
     * @throws GeneIdException if Redis cannot be reached
     */
    public RedisWorkerIdAssigner build() {
      WorkerIdAssigners.LeaseSettings lease = leaseSettings();
      if (redisUri == null && connection == null) {
        throw new IllegalArgumentException("a Redis URI (redis-uri) or a connection is required");
      }
      return new RedisWorkerIdAssigner(this, lease);
    }
  }
}
