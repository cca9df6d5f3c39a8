package io.geneid.spring.boot;

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
 * The shared Redis on 127.0.0.1:6379 under a key prefix unique to this test run, deleted afterwards (never
 * FLUSHALL). A Redis that is down fails the test, naming it.
 */
final class StarterRedis implements AutoCloseable {
  static final String URI = "redis://127.0.0.1:6379/0";

  final String prefix = "gid_starter_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  StarterRedis() {
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

  /** A lease key of {@code space} under this run's prefix (as RedisWorkerIdAssigner names them). */
  String leaseKey(String space, String part) {
    return prefix + ":lease:{" + space + "}:" + part;
  }

  /**
   * Records that the pool's records started an hour ago (its {@code meta} hash's {@code born}, as the gene-id-redis
   * lease tests do), so the worker ids of a brand-new pool need not wait out one TTL + 2 s of unknown history.
   */
  void age(String space) {
    redis().hset(leaseKey(space, "meta"), "born", Long.toString(System.currentTimeMillis() - 3_600_000));
  }

  @Override
  public void close() {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(redis(), ScanArgs.Builder.matches(prefix + "*").limit(500)).forEachRemaining(keys::add);
    if (!keys.isEmpty()) {
      redis().del(keys.toArray(String[]::new));
    }
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
  }
}
