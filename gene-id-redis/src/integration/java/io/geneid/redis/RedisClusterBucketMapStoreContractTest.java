package io.geneid.redis;

import io.geneid.core.bucket.AbstractBucketMapStoreContractTest;
import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The bucket map store contract on a Redis Cluster of the tests' own ({@link SharedCluster}, one per JVM): each map
 * and its heartbeats live in the slot of the map's name (one hash tag), on whichever master owns it, and every change
 * waits for that master's replica.
 */
@ExtendWith(SharedCluster.class)
class RedisClusterBucketMapStoreContractTest extends AbstractBucketMapStoreContractTest {

  private static PrivateCluster cluster;
  private String prefix;
  private RedisBucketMapStore store;
  private final List<RedisBucketMapStore> stores = new ArrayList<>();

  @BeforeAll
  static void sharedCluster(PrivateCluster shared) { // one cluster for every class of this JVM
    cluster = shared;
  }

  @BeforeEach
  void newPrefix() {
    prefix = "gid_cluster_bmap_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    store = newStore();
  }

  private RedisBucketMapStore newStore() {
    RedisBucketMapStore s = RedisBucketMapStore.builder().redisUri(cluster.uri()).keyPrefix(prefix)
        .commandTimeout(TestTime.seconds(2)).build();
    stores.add(s);
    return s;
  }

  @AfterEach
  void closeStores() {
    stores.forEach(RedisBucketMapStore::close);
  }

  @Override
  protected BucketMapStore store() {
    return store;
  }

  @Override
  protected BucketMapStore ownStore() {
    return newStore();
  }

  /** Closed: every command fails at once (a master killed here would fail the cluster over under later tests). */
  @Override
  protected void cutOff(BucketMapStore own) {
    ((RedisBucketMapStore) own).close();
  }

  @Override
  protected String loadFailure(BucketMapStore own, String name) {
    return "the Redis bucket map store at " + own.toString().substring("RedisBucketMapStore[".length(),
        own.toString().indexOf(", keyPrefix")) + " could not load map '" + name + "' (" + prefix + ":bucket-map:{"
        + name + "}): the store is closed";
  }
}
