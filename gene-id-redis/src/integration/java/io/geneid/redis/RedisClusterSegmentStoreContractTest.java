package io.geneid.redis;

import io.geneid.core.segment.AbstractSegmentStoreContractTest;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The segment contract on a Redis Cluster of the tests' own ({@link SharedCluster}, one per JVM): each tag's counter
 * lives in the slot of its own key, on whichever master owns it, and every claim waits for that master's replica
 * ({@code WAIT}).
 */
@ExtendWith(SharedCluster.class)
class RedisClusterSegmentStoreContractTest extends AbstractSegmentStoreContractTest {

  private static PrivateCluster cluster;
  private String prefix;

  @BeforeAll
  static void sharedCluster(PrivateCluster shared) { // one cluster for every class of this JVM
    cluster = shared;
  }

  @BeforeEach
  void newPrefix() {
    prefix = "gid_cluster_segment_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  @Override
  protected SegmentStore newStore() {
    return track(RedisSegmentStore.builder().redisUri(cluster.uri()).keyPrefix(prefix)
        .commandTimeout(TestTime.seconds(2)).allowWithoutPersistence(true).build());
  }

  @Override
  protected long counter(String tag) {
    return Long.parseLong(cluster.redis().get(prefix + ":segment:" + tag));
  }

  @Override
  protected void loseCounter(String tag) {
    cluster.redis().del(prefix + ":segment:" + tag);
  }

  /** The store notices the lost counter itself (its generation) and refuses the claim, naming the key. */
  @Override
  protected void assertRefusedAfterLoss(Throwable refused, SegmentStore store) {
    org.assertj.core.api.Assertions.assertThat(refused).hasStackTraceContaining("was lost")
        .hasStackTraceContaining(":segment:order");
  }

  @Override
  protected int claimsPerRacingThread() {
    return 50;
  }

  @Override
  protected int idsPerThread() {
    return 20_000;
  }
}
