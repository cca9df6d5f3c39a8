package io.geneid.redis;

import java.util.Objects;
import io.geneid.core.internal.StoreUrls;
import io.geneid.core.GeneIdException;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How both Redis stores of this module connect, so they fail and recover the same way: a client of their own whose
 * reconnect attempts back off from 10 ms to at most 500 ms (Lettuce's default grows to 30 s, which kept a lease
 * holder fenced for seconds after Redis was back), commands rejected at once while disconnected
 * ({@code REJECT_COMMANDS}), a connect timeout ({@link #connectTimeout(Duration)}) and a timeout on every command.
 */
final class RedisConnections {

  /** Reconnect backoff: 10, 20, 40, ... ms, never more than 500 ms apart. */
  static final Delay RECONNECT_DELAY =
      Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS);

  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.\\d+)?.*");

  private RedisConnections() {}

  /** A connection with the client and resources it owns; {@link #close()} shuts all three down. */
  record Owned(StatefulRedisConnection<String, String> connection, RedisClient client, ClientResources resources)
      implements AutoCloseable {
    @Override
    public void close() {
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  /**
   * Connects to {@code uri} with a client of its own (see the class comment).
   *
   * @throws RedisException if Redis cannot be reached (the client is shut down first)
   */
  static Owned connect(RedisURI uri, Duration timeout) {
    // the handshake runs under the URI's timeout: give a first connection of a busy JVM the connect timeout, then
    // hold every command to the command timeout (TimeoutOptions.enabled(): the connection's timeout, set below)
    uri.setTimeout(connectTimeout(timeout));
    ClientResources resources = DefaultClientResources.builder().reconnectDelay(RECONNECT_DELAY).build();
    RedisClient client = RedisClient.create(resources, uri);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout(timeout)).build())
        .timeoutOptions(TimeoutOptions.enabled())
        .build());
    try {
      StatefulRedisConnection<String, String> connection = client.connect();
      connection.setTimeout(timeout);
      return new Owned(connection, client, resources);
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw e;
    }
  }

  /**
   * The connect timeout: the command timeout, but at least 2 s. A lease's command timeout may be 100 ms, too short for
   * a first connection of a JVM that is still starting (and reconnecting never blocks a command: they are rejected
   * while disconnected).
   */
  static Duration connectTimeout(Duration timeout) {
    return timeout.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : timeout;
  }

  /**
   * Why a connection to {@code description} failed, for a message that starts with what was being reached: an
   * authentication failure (a wrong or missing password: {@code WRONGPASS}, {@code NOAUTH}, {@code ERR AUTH ...})
   * says so, rather than "cannot reach".
   */
  static String connectFailure(String what, String description, RedisException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.startsWith("WRONGPASS") || m.startsWith("NOAUTH") || m.startsWith("ERR AUTH")
          || m.startsWith("ERR invalid password")) {
        return what + ", Redis at " + description + ", refused the credentials of the URI (authentication failed: "
            + m + "): check the user and password";
      }
    }
    return "cannot reach " + what + ", Redis at " + description + ": " + e.getMessage();
  }

  /**
   * Parses a Redis URI given as setting {@code name}. A URI that does not parse is refused with a message that shows
   * only its scheme and what follows its last {@code @} (never a password, which may hold {@code / @ : %} or spaces),
   * and without the parser's own message, which repeats the whole text.
   *
   * @throws IllegalArgumentException naming the setting
   */
  static RedisURI parse(String name, String text) {
    try {
      return RedisURI.create(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(name + " must be a Redis URI such as redis://127.0.0.1:6379/0 or"
          + " redis://:password@host:6379/0 but was '" + StoreUrls.describe(text) + "' (" + e.getClass().getSimpleName()
          + "; a password with reserved characters must be percent-encoded)");
    }
  }

  /** The store as {@code redis://host:port/db}: never the password or other parts of the URI. */
  static String describe(RedisURI uri) {
    if (uri.getHost() != null) {
      return "redis://" + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    }
    if (uri.getSocket() != null) {
      return "redis-socket://" + uri.getSocket() + "/" + uri.getDatabase();
    }
    return "redis-sentinel (master " + uri.getSentinelMasterId() + ")/" + uri.getDatabase();
  }

  /** The value of {@code name} in an {@code INFO} reply, or null. */
  static @Nullable String infoField(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return null;
  }

  /**
   * Refuses a Redis older than 5.0 (the lease scripts rely on script effects replication, the default from 5.0 on,
   * to call TIME and INFO before they write).
   *
   * @throws GeneIdException naming the store and the version found
   */
  static void checkVersion(@Nullable String version, String what) {
    if (version == null) {
      throw new GeneIdException(what + " did not report its version (INFO server has no redis_version)");
    }
    Matcher m = VERSION.matcher(version);
    if (!m.matches()) {
      throw new GeneIdException(what + " reports a version gene-id cannot read: redis_version " + version);
    }
    if (Integer.parseInt(m.group(1)) < 5) {
      throw new GeneIdException(what + " runs Redis " + version + "; gene-id needs Redis 5.0 or later (its lease "
          + "scripts read the server's clock and run id before they write, which older servers refuse or replicate "
          + "wrongly). Upgrade Redis or use another store");
    }
  }

  /** {@code INFO server} of the connection's server, checked for a version of 5.0 or later. */
  static String checkedServerInfo(RedisCommands<String, String> commands, String what) {
    String info = commands.info("server");
    checkVersion(infoField(info, "redis_version"), what);
    return info;
  }

  /**
   * A key prefix for leases and segments alike: non-empty and free of {@code { }} (the lease keys put the space in a
   * hash tag).
   *
   * @throws IllegalArgumentException naming the prefix
   */
  static String checkKeyPrefix(String keyPrefix) {
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    if (keyPrefix.isBlank() || keyPrefix.contains("{") || keyPrefix.contains("}")) {
      throw new IllegalArgumentException("keyPrefix must be non-empty and free of { } but was '" + keyPrefix + "'");
    }
    return keyPrefix;
  }
}
