package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34's first case on a Redis Cluster of the test's own (three masters, one replica each): the replication link
 * of the replica of the master that owns the tag's slot is cut (the replica stays up and in the cluster), a new
 * process starts during the cut and claims, and the master is killed 4 s later; the cluster promotes the replica with
 * what it had before the cut. Before the fix the new process, having seen no replica, skipped {@code WAIT}. Prints a
 * {@code [cluster-claims]} line.
 */
class RedisClusterSegmentClaimTest {

  private static final String PREFIX = "gid_cluster_claims";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void aProcessStartedWhileTheReplicasLinkIsCutNeverGetsRangesHandedOutAgain() throws Exception {
    // once, or gene-id.redis.ha.rounds times (the long profile), each on a cluster of its own
    for (int round = 1; round <= Integer.getInteger("gene-id.redis.ha.rounds", 1); round++) {
      run(dir.resolve("round-" + round));
    }
  }

  private static void run(Path dir) throws Exception {
    try (PrivateCluster cluster = PrivateCluster.start(dir)) {
      String tag = "order";
      String key = PREFIX + ":segment:" + tag;
      int master = cluster.masterPortOf(key);
      cluster.awaitSynchronisedReplica(master, WAIT);
      String latency = SegmentWorker.claimLatency(cluster.uri(), PREFIX);
      Set<Long> ids = ConcurrentHashMap.newKeySet();
      List<SegmentWorker> workers = new ArrayList<>();
      try {
        workers.add(new SegmentWorker("old-1", cluster.uri(), PREFIX, tag, ids));
        workers.add(new SegmentWorker("old-2", cluster.uri(), PREFIX, tag, ids));
        RedisProcesses.await(() -> workers.stream().allMatch(w -> w.claims.get() > 5), WAIT, "claims before the fault");
        cluster.cutReplicaLink(master);
        SegmentWorker fresh = new SegmentWorker("new", cluster.uri(), PREFIX, tag, ids);
        workers.add(fresh);
        RedisProcesses.await(() -> fresh.claims.get() + fresh.refused.get() > 3, WAIT,
            "the new process to claim or be refused");
        Thread.sleep(4_000); // the scenario's delay between the new process and the master's death
        cluster.kill9(master);
        cluster.awaitFailover(key, master, WAIT);
        long claimsAtFailover = SegmentWorker.claims(workers);
        Thread.sleep(3_000); // the processes run on the promoted replica, the old master dead
        long claimsAlone = SegmentWorker.claims(workers) - claimsAtFailover;
        cluster.restart(master, WAIT); // it rejoins as a replica of the promoted one
        for (SegmentWorker w : workers) {
          w.issuer.mark();
        }
        RedisProcesses.await(() -> workers.stream().allMatch(w -> w.issuer.issuedSinceMark(500)), WAIT,
            "every process to issue again");
        for (SegmentWorker w : workers) {
          w.close();
        }
        System.out.printf("[cluster-claims] %s claims on the promoted replica with the old master dead %d;"
            + " healthy claim latency %s%n", SegmentWorker.summary("replica's link cut, a new process starts during"
            + " the cut, master killed 4 s later", workers), claimsAlone, latency);
        assertThat(SegmentWorker.duplicates(workers)).as("segment ids issued twice over all processes").isZero();
      } finally {
        for (SegmentWorker w : workers) {
          w.close();
        }
      }
    }
  }
}
