package io.geneid.redis;

import io.geneid.core.segment.AbstractSegmentStoreContractTest;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.segment.SegmentStoreOutageContract;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

/** The segment contract on the real Redis, under a key prefix of its own per test. */
class RedisSegmentStoreContractTest extends AbstractSegmentStoreContractTest
    implements SegmentStoreOutageContract {

  private TestRedis redis;

  @BeforeEach
  void connect() {
    redis = track(new TestRedis("segment")); // tracked first: its keys are deleted after every store closed
  }

  private RedisSegmentStore store(String uri) {
    return track(RedisSegmentStore.builder().redisUri(uri).keyPrefix(redis.prefix).commandTimeout(TestTime.ofMillis(500))
        .allowWithoutPersistence(true).build());
  }

  @Override
  protected SegmentStore newStore() {
    return store(TestRedis.URI); // one connection each, as separate processes
  }

  @Override
  protected long counter(String tag) {
    return Long.parseLong(redis.redis().get(redis.segmentKey(tag)));
  }

  @Override
  protected void loseCounter(String tag) {
    redis.redis().del(redis.segmentKey(tag)); // what a restart of a Redis without persistence does
  }

  /** The store notices the lost counter itself (its generation) and refuses the claim, naming the key. */
  @Override
  protected void assertRefusedAfterLoss(Throwable refused, SegmentStore store) {
    org.assertj.core.api.Assertions.assertThat(refused).hasStackTraceContaining("was lost")
        .hasStackTraceContaining(":segment:order");
  }

  @Override
  protected int claimsPerRacingThread() {
    return 100;
  }

  @Override
  protected int idsPerThread() {
    return 50_000;
  }

  @Override
  public Outage outage() throws Exception {
    TcpProxy proxy = track(new TcpProxy("127.0.0.1", TestRedis.PORT));
    String uri = "redis://127.0.0.1:" + proxy.port();
    return Outage.behind(proxy, store(uri), "RedisSegmentStore[" + uri + "/0, keyPrefix=" + redis.prefix + "]",
        "the Redis segment store at " + uri + "/0 could not hand out 100 values of tag 'order' (INCRBY "
            + redis.segmentKey("order") + "): ",
        Duration.ofSeconds(2)); // commands are rejected at once while disconnected
  }
}
