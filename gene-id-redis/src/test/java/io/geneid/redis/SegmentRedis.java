package io.geneid.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The shared Redis for one test: a key prefix unique to this module and run, and the cleanup of every key under it
 * (never FLUSHALL). A Redis that cannot be reached fails the test, naming it.
 */
final class SegmentRedis implements AutoCloseable {
  static final String URI = "redis://127.0.0.1:6379";
  static final int PORT = 6379;

  final String prefix = "gid_segment_" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ":";
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  SegmentRedis() {
    client = RedisClient.create(URI);
    client.setDefaultTimeout(Duration.ofSeconds(5));
    try {
      connection = client.connect();
    } catch (RedisException e) {
      client.shutdown();
      throw new IllegalStateException("Redis at " + URI + " must be up for this test: " + e.getMessage(), e);
    }
  }

  /** Commands on the shared Redis, for checks and for breaking things on purpose. */
  RedisCommands<String, String> redis() {
    return connection.sync();
  }

  StatefulRedisConnection<String, String> connection() {
    return connection;
  }

  @Override
  public void close() {
    RedisCommands<String, String> redis = connection.sync();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
      if (!page.getKeys().isEmpty()) {
        redis.del(page.getKeys().toArray(String[]::new));
      }
      cursor = page;
    } while (!cursor.isFinished());
    connection.close();
    client.shutdown();
  }
}
