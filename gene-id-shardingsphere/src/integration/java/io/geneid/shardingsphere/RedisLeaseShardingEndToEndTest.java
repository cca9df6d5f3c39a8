package io.geneid.shardingsphere;

import io.geneid.redis.TestRedis;
import java.util.ArrayList;
import java.util.List;

/** {@code worker-assigner: redis} against the Redis on 127.0.0.1:6379, under a key prefix unique to the run. */
class RedisLeaseShardingEndToEndTest extends AbstractLeasedShardingEndToEndTest {

  private TestRedis redis;

  @Override
  void beforeStart() {
    redis = new TestRedis("ss");
    redis.agePool(redis.prefix, space);
  }

  @Override
  String keyGeneratorProps() {
    return "worker-assigner: redis\n"
        + "redis-uri: " + TestRedis.URI + "\n"
        + "redis-key-prefix: " + redis.prefix + "\n"
        + "space: " + space + "\n"
        + "lease-ttl: 3s";
  }

  @Override
  List<Long> leasedInStore() {
    List<Long> ids = new ArrayList<>();
    String expiries = redis.prefix + ":lease:{" + space + "}:expiry";
    redis.redis().zrangebyscore(expiries, io.lettuce.core.Range.create(System.currentTimeMillis(), Long.MAX_VALUE))
        .forEach(id -> ids.add(Long.parseLong(id)));
    return ids;
  }

  @Override
  void cleanStore() {
    if (redis != null) {
      redis.close();
    }
  }
}
