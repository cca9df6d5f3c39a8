package io.geneid.shardingsphere;

import io.geneid.redis.TestRedis;

/** {@code segment-store: redis} against the Redis on 127.0.0.1:6379, under a key prefix unique to the run. */
class RedisSegmentShardingEndToEndTest extends AbstractSegmentShardingEndToEndTest {

  private TestRedis redis;

  @Override
  void beforeStart() {
    redis = new TestRedis("ss");
  }

  @Override
  String keyGeneratorProps() {
    return "segment-store: redis\n"
        + "redis-uri: " + TestRedis.URI + "\n"
        + "redis-key-prefix: \"" + redis.prefix + "\"\n"
        + "redis-allow-without-persistence: true\n" // the shared CI Redis keeps nothing on disk
        + "min-step: 10\n"
        + "max-step: 100";
  }

  @Override
  long storeCounter(String tag) {
    String value = redis.redis().get(redis.prefix + ":segment:" + tag);
    if (value == null) {
      throw new AssertionError("no counter for tag " + tag + " under " + redis.prefix);
    }
    return Long.parseLong(value);
  }

  @Override
  void cleanStore() {
    if (redis != null) {
      redis.close();
    }
  }
}
