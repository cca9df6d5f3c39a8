package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker-id leases and segment ranges on a Redis Cluster of the test's own (six nodes, three masters with a replica
 * each) while the master that owns the lease pool's slot and one segment tag's slot is killed ({@code kill -9}) and its
 * replica takes over. Two leased generators and two segment generators (over clients of their own, as two processes)
 * take ids into one set per kind; none may repeat, and all issue again. The time to the first id again is printed
 * ({@code [cluster]}).
 */
class RedisClusterFailoverTest {

  private static final String PREFIX = "gid_cluster_fault";
  /**
   * The lease TTL, the segment stores' command timeout and the generators' fetch timeout: 1 s, 1.5 s and 3 s at the
   * tests' time scale, so that a busy machine's slow calls are not what the test sees (a replica's acknowledgement of
   * a claim took over 562 ms at load average 15, when the JVM had measured a scale of 1.1 at its start). The failover itself keeps the
   * cluster's own times (node timeout 1 s); how long it took is printed, not asserted.
   */
  private static final Duration TTL = TestTime.seconds(1);

  @TempDir Path dir;

  @Test
  void aMasterKilledAndReplacedByItsReplicaNeverRepeatsAnId() throws Exception {
    try (PrivateCluster cluster = PrivateCluster.start(dir)) {
      String space = "c" + System.nanoTime();
      String meta = TestRedis.leaseKey(PREFIX, space, "meta");
      int master = cluster.masterPortOf(meta);
      String tag = "order";
      for (int i = 0; cluster.masterPortOf(PREFIX + ":segment:" + tag) != master; i++) {
        tag = "order-" + i; // a tag on the master that dies
      }
      String otherTag = "invoice";
      for (int i = 0; cluster.masterPortOf(PREFIX + ":segment:" + otherTag) == master; i++) {
        otherTag = "invoice-" + i; // and one on a master that lives
      }
      String runId = cluster.processes().info(master, "server", "run_id");
      cluster.redis().hset(meta, Map.of("born", Long.toString(System.currentTimeMillis() - 3_600_000), "gen", "aged",
          "runid", String.valueOf(runId)));
      Set<Long> snowflakeIds = ConcurrentHashMap.newKeySet();
      Set<Long> segmentIds = ConcurrentHashMap.newKeySet();
      Set<Long> otherIds = ConcurrentHashMap.newKeySet();
      try (RedisWorkerIdAssigner a1 = assigner(cluster, space);
          RedisWorkerIdAssigner a2 = assigner(cluster, space);
          RedisSegmentStore s1 = store(cluster);
          RedisSegmentStore s2 = store(cluster);
          LeasedGeneGenerator l1 = LeasedGeneGenerator.builder().assigner(a1).build();
          LeasedGeneGenerator l2 = LeasedGeneGenerator.builder().assigner(a2).build();
          GeneSegmentGenerator g1 = segments(s1, tag);
          GeneSegmentGenerator g2 = segments(s2, tag);
          GeneSegmentGenerator g3 = segments(s2, otherTag);
          Issuer leased1 = new Issuer("leased-1", l1::nextId, 5, snowflakeIds);
          Issuer leased2 = new Issuer("leased-2", l2::nextId, 5, snowflakeIds);
          Issuer segment1 = new Issuer("segment-1", g1::nextId, 1, segmentIds);
          Issuer segment2 = new Issuer("segment-2", g2::nextId, 1, segmentIds);
          Issuer other = new Issuer("segment-other-master", g3::nextId, 1, otherIds)) {
        List<Issuer> issuers = List.of(leased1, leased2, segment1, segment2, other);
        RedisProcesses.await(() -> issuers.stream().allMatch(i -> i.issued() > 200), Duration.ofSeconds(20),
            "ids before the failover");
        issuers.forEach(Issuer::mark);
        long lostBefore = l1.leasesLost() + l2.leasesLost();
        cluster.processes().kill9(master);
        int replica = cluster.awaitFailover(meta, master, Duration.ofSeconds(30));
        RedisProcesses.await(() -> issuers.stream().allMatch(i -> i.issuedSinceMark(100)), Duration.ofSeconds(40),
            "ids after the failover");
        // a leased generator issues on its lease without the store until its next renewal (every third of the TTL),
        // which may come after the ids above: wait for it, as the Sentinel test does
        RedisProcesses.await(() -> l1.leasesLost() + l2.leasesLost() > lostBefore, Duration.ofSeconds(15),
            "a renewal refused for the dead master's generation");
        assertThat(l1.leasesLost() + l2.leasesLost()).as("leases of the dead master's generation are refused")
            .isGreaterThan(lostBefore);
        StringBuilder b = new StringBuilder("[cluster] kill -9 of the master on port " + master + ", replica on port "
            + replica + " took over:");
        for (Issuer i : issuers) {
          b.append(String.format(" %s issued again %d ms after the kill (%d ms without ids), %d ids, %d failed calls,"
              + " %d duplicates;", i.name, i.millisToRecover(), i.millisWithoutIds(), i.issued(), i.failures(),
              i.duplicates()));
        }
        System.out.println(b);
        for (Issuer issuer : issuers) {
          assertThat(issuer.duplicates()).as("ids %s got that another issuer (or itself) had", issuer.name).isZero();
        }
      }
    }
  }

  private static RedisWorkerIdAssigner assigner(PrivateCluster cluster, String space) {
    return RedisWorkerIdAssigner.builder().redisUri(cluster.uri()).keyPrefix(PREFIX).space(space).workerIds(0, 3)
        .ttl(TTL).acquireTimeout(TestTime.seconds(20)).build();
  }

  private static RedisSegmentStore store(PrivateCluster cluster) {
    return RedisSegmentStore.builder().redisUri(cluster.uri()).keyPrefix(PREFIX)
        .commandTimeout(TestTime.ofMillis(1_500)).allowWithoutPersistence(true).build();
  }

  private static GeneSegmentGenerator segments(RedisSegmentStore store, String tag) {
    return GeneSegmentGenerator.builder(store, tag).minStep(20).maxStep(20).prefetchRetry(Duration.ofMillis(20))
        .fetchTimeout(TestTime.seconds(3)).build();
  }
}
