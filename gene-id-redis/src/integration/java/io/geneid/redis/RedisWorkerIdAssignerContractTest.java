package io.geneid.redis;

import io.geneid.core.lease.AbstractWorkerIdAssignerContractTest;
import io.geneid.core.lease.WorkerIdAssigner;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class RedisWorkerIdAssignerContractTest extends AbstractWorkerIdAssignerContractTest {

  private static TestRedis store;

  @BeforeAll
  static void connect() {
    store = new TestRedis("lease_redis");
  }

  @AfterAll
  static void disconnect() {
    store.close();
  }

  @Override
  protected WorkerIdAssigner assigner(String space, long min, long max, Duration ttl, Duration acquireTimeout,
      String owner, int port) {
    return RedisWorkerIdAssigner.builder()
        .redisUri("redis://127.0.0.1:" + port)
        .keyPrefix(store.prefix)
        .space(space)
        .workerIds(min, max)
        .ttl(ttl)
        .acquireTimeout(acquireTimeout)
        .owner(owner)
        .build();
  }

  @Override
  protected int storePort() {
    return TestRedis.PORT;
  }

  @Override
  protected void takeOver(String space, long workerId) {
    store.redis().hset(store.workerKey(space, workerId), "token", "999999999");
  }

  @Override
  protected void prepare(String space) {
    store.agePool(space);
  }

  @Override
  protected void cleanup(String space) {
    store.forgetPool(space);
  }
}
