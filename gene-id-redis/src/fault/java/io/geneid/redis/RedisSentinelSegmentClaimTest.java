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
 * Issue 34: segment ranges claimed on a Sentinel master while its one replica cannot have them, then a failover to
 * that replica. Two processes issue segment ids from the start (each a store over a client of its own, as two JVMs
 * would be); a third starts while the replica is cut off, the master is killed, the replica promoted. Before the fix
 * the third process skipped {@code WAIT} (it had seen no replica) and the Sentinel check let its claims count, so the
 * promoted replica handed its ranges out again. Every id goes into one set; none may repeat. Each test prints a
 * {@code [sentinel-claims]} line (ids, duplicates, claims refused) and the claim latency of a healthy deployment.
 */
class RedisSentinelSegmentClaimTest {

  private static final String PREFIX = "gid_sentinel_claims";
  private static final String TAG = "order";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /**
   * Case (a): the replica's link is cut (it stays up and the sentinels still list it), a new process starts during
   * the cut and claims, and the master is killed 4 s later: the replica is promoted with what it had before the cut.
   */
  @Test
  void aProcessStartedWhileTheReplicasLinkIsCutNeverGetsRangesHandedOutAgain() throws Exception {
    run("replica's link cut, a new process starts during the cut, master killed 4 s later", (sentinel, master,
        replica) -> sentinel.cutReplicaLink(master), (sentinel, master, replica) -> {
          Thread.sleep(4_000); // the scenario's delay between the new process and the master's death
          sentinel.kill9(master);
        });
  }

  /**
   * Case (b): the replica is frozen ({@code SIGSTOP}) until the sentinels mark it down and the master drops it, a new
   * process starts, the master is killed and the replica resumed: it is promoted before it could resynchronise.
   */
  @Test
  void aProcessStartedWhileTheReplicaIsDownNeverGetsRangesHandedOutAgain() throws Exception {
    run("replica frozen until marked down, a new process starts, master killed, replica resumed and promoted",
        (sentinel, master, replica) -> {
          sentinel.node(master).configSet("repl-timeout", "2"); // the master drops the frozen replica soon
          sentinel.freeze(replica);
          sentinel.awaitReplicaDown(replica, WAIT);
          RedisProcesses.await(() -> "0".equals(sentinel.info(master, "replication", "connected_slaves")), WAIT,
              "the master to drop its frozen replica");
        }, (sentinel, master, replica) -> {
          Thread.sleep(2_000); // the new process claims for a while
          sentinel.kill9(master);
          sentinel.thaw(replica);
        });
  }

  @FunctionalInterface
  private interface Step {
    void apply(PrivateSentinel sentinel, int master, int replica) throws Exception;
  }

  /** The scenario on a deployment of its own, once, or {@code gene-id.redis.ha.rounds} times (the long profile). */
  private void run(String fault, Step cut, Step failover) throws Exception {
    for (int round = 1; round <= Integer.getInteger("gene-id.redis.ha.rounds", 1); round++) {
      run(dir.resolve("round-" + round), fault, cut, failover);
    }
  }

  private void run(Path dir, String fault, Step cut, Step failover) throws Exception {
    try (PrivateSentinel sentinel = PrivateSentinel.start(dir)) {
      int master = sentinel.masterPort();
      int replica = sentinel.other(master);
      sentinel.awaitSynchronisedReplica(master, WAIT);
      String latency = SegmentWorker.claimLatency(sentinel.uri(), PREFIX);
      Set<Long> ids = ConcurrentHashMap.newKeySet();
      List<SegmentWorker> processes = new ArrayList<>();
      try {
        processes.add(new SegmentWorker("old-1", sentinel.uri(), PREFIX, TAG, ids));
        processes.add(new SegmentWorker("old-2", sentinel.uri(), PREFIX, TAG, ids));
        RedisProcesses.await(() -> processes.stream().allMatch(p -> p.claims.get() > 5), WAIT, "claims before the "
            + "fault");
        cut.apply(sentinel, master, replica);
        SegmentWorker fresh = new SegmentWorker("new", sentinel.uri(), PREFIX, TAG, ids);
        processes.add(fresh);
        RedisProcesses.await(() -> fresh.claims.get() + fresh.refused.get() > 3, WAIT,
            "the new process to claim or be refused");
        failover.apply(sentinel, master, replica);
        sentinel.awaitMasterOtherThan(master, WAIT);
        long claimsAtFailover = SegmentWorker.claims(processes);
        // the processes run on the promoted replica, alone (the old master is dead), as a deployment would until an
        // operator brings the old master back
        Thread.sleep(3_000);
        long claimsAlone = SegmentWorker.claims(processes) - claimsAtFailover;
        // the old master comes back, empty, as a replica of the new one: the deployment is whole again
        sentinel.restartAsReplica(master, replica, WAIT);
        for (SegmentWorker p : processes) {
          p.issuer.mark();
        }
        RedisProcesses.await(() -> processes.stream().allMatch(p -> p.issuer.issuedSinceMark(500)), WAIT,
            "every process to issue again");
        long claimsAfter = SegmentWorker.claims(processes) - claimsAtFailover - claimsAlone;
        for (SegmentWorker p : processes) {
          p.close();
        }
        System.out.printf("[sentinel-claims] %s claims on the promoted replica alone %d, after the old master's"
            + " return %d; healthy claim latency %s%n", SegmentWorker.summary(fault, processes), claimsAlone,
            claimsAfter, latency);
        assertThat(SegmentWorker.duplicates(processes)).as("segment ids issued twice over all processes").isZero();
      } finally {
        for (SegmentWorker p : processes) {
          p.close();
        }
      }
    }
  }
}
