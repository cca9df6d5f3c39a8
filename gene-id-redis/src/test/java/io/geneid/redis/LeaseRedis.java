package io.geneid.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Test access to the shared Redis on 127.0.0.1:6379 under a key prefix unique to this test run, deleted afterwards
 * (never FLUSHALL). A Redis that is down fails the test with a message saying so.
 */
final class LeaseRedis implements AutoCloseable {
  static final int PORT = 6379;
  static final String URI = "redis://127.0.0.1:" + PORT;

  final String prefix = "gid_lease_redis_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  LeaseRedis() {
    client = RedisClient.create(RedisURI.create(URI));
    try {
      connection = client.connect();
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ZERO);
      throw new AssertionError("Redis must run on " + URI + " for these tests (see .ci/run): " + e, e);
    }
  }

  RedisCommands<String, String> redis() {
    return connection.sync();
  }

  String key(String space, String part) {
    return prefix + ":lease:{" + space + "}:" + part;
  }

  /** Marks a pool as known to the store for an hour, so fresh worker ids need not wait out an unknown history. */
  void age(String space) {
    redis().hset(key(space, "meta"), "born", Long.toString(System.currentTimeMillis() - 3_600_000));
  }

  /** Forgets a pool, as a Redis without persistence does on restart. */
  void forget(String space) {
    redis().del(key(space, "expiry"), key(space, "holder"), key(space, "token"), key(space, "mark"),
        key(space, "meta"));
  }

  @Override
  public void close() {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(redis(), ScanArgs.Builder.matches(prefix + ":*").limit(500)).forEachRemaining(keys::add);
    if (!keys.isEmpty()) {
      redis().del(keys.toArray(String[]::new));
    }
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
  }
}
