package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue #39: every lease store call has a bound no larger than the lease allows. The shared Redis behind a proxy that
 * goes silent (open connection, no answer, no reset): a renewal fails within the command timeout (TTL / 3).
 */
class RedisSilentLeaseStoreTest {

  /** 3 s at the tests' time scale: the bound (a third of it) grows with it and stays as strict relative to it. */
  private static final Duration TTL = TestTime.seconds(3);

  @Test
  void aRenewalOnASilentConnectionReturnsWithinTheCommandTimeout() throws Exception {
    try (TestRedis redis = new TestRedis("silent");
        TcpProxy proxy = new TcpProxy("127.0.0.1", 6379);
        RedisWorkerIdAssigner a = RedisWorkerIdAssigner.builder().redisUri("redis://127.0.0.1:" + proxy.port())
            .keyPrefix(redis.prefix).space(redis.agedSpace()).ttl(TTL).build()) {
      WorkerLease lease = a.acquire(255);
      lease = a.renew(lease, Instant.now().plus(TTL));
      WorkerLease held = lease;
      proxy.freeze();
      long started = System.nanoTime();
      CompletableFuture<Throwable> error = CompletableFuture.supplyAsync(() -> {
        try {
          a.renew(held, Instant.now().plus(TTL));
          return null;
        } catch (RuntimeException e) {
          return e;
        }
      });
      Throwable e = error.get(60, TimeUnit.SECONDS);
      long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      System.out.println("[redis silent] TTL " + TTL.toMillis() + " ms: renewal returned after " + took + " ms: " + e);
      assertThat(e).isInstanceOf(GeneIdException.class);
      assertThat(took).isLessThan(TTL.toMillis() / 3 + TestTime.millis(500));
    }
  }
}
