package io.geneid.shardingsphere;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The shared Redis on 127.0.0.1:6379 under a key prefix unique to this test run, whose keys are deleted on close
 * (never FLUSHALL). A Redis that is down fails the test with a message saying so.
 */
final class TestRedis implements AutoCloseable {
  static final String URI = "redis://127.0.0.1:6379";

  /** Unique to this run: {@code gid_ss_<random>}. */
  final String prefix = "gid_ss_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
      .toLowerCase(Locale.ROOT);
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  TestRedis() {
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

  /**
   * Marks a worker-id pool ({@code <prefix>:lease:{<space>}:meta}, see RedisWorkerIdAssigner) as started an hour
   * ago, as the gene-id-redis lease tests do: a brand-new pool otherwise waits one TTL + 2 s before it hands out
   * worker ids whose history it cannot know.
   */
  void agePool(String keyPrefix, String space) {
    redis().hset(keyPrefix + ":lease:{" + space + "}:meta", "born",
        Long.toString(System.currentTimeMillis() - 3_600_000));
  }

  /** Every key under {@link #prefix}. */
  List<String> keys() {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(redis(), ScanArgs.Builder.matches(prefix + "*").limit(500)).forEachRemaining(keys::add);
    return keys;
  }

  @Override
  public void close() {
    List<String> keys = keys();
    if (!keys.isEmpty()) {
      redis().del(keys.toArray(String[]::new));
    }
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
  }
}
