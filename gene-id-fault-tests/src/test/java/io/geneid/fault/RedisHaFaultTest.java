package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.redis.PrivateCluster;
import io.geneid.redis.PrivateSentinel;
import io.geneid.redis.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four JVMs lease worker ids from a pool of three through a {@code redis-sentinel://} or a {@code redis-cluster://}
 * URI, on a Redis Sentinel deployment (a master, a replica, three sentinels) or a six-node Redis Cluster the test
 * starts itself, while the master fails over under them. Each round is two failovers: Sentinel, a
 * {@code SENTINEL FAILOVER} and then a {@code kill -9} of the master after its replica stopped replicating (the
 * replica promoted lags behind what the master acknowledged); Cluster, a {@code CLUSTER FAILOVER} on the replica of
 * the master that owns the pool's slot and then a {@code kill -9} of the new master, so the old one takes the slot
 * back. One JVM is paused past its TTL across the first failover. The short profile runs one round; the long one
 * ({@code -Dfault.profile=long}) three, restarting the killed node as a replica between rounds. No id may be issued
 * twice, ids must flow again after every failover, and the run prints one {@code [redis-ha]} line: backend, JVMs, ids,
 * failovers, fenced calls, duplicates and the time from each failover to the first id issued again.
 */
class RedisHaFaultTest {

  private static final String PREFIX = "gene-id"; // the assigner's default key prefix: the workers set none
  private static final String SPACE = "fault";
  private static final Duration WAIT = Duration.ofSeconds(30);
  /** A round: a failover at its start, a kill -9 of the master later, the killed node back 6 s before the next. */
  private static final long ROUND_MILLIS = 30_000;
  private static final long FIRST_ROUND_AT = 6_000;
  /**
   * Sentinel: the kill -9 waits until the demoted master replicates the new one, which takes Sentinel about 10 s (it
   * converts a master that should be a replica only after watching it for a while) plus a full resync
   * ({@code repl-diskless-sync-delay}, 5 s by default); the action waits for that in any case.
   */
  private static final long SENTINEL_KILL_AFTER = 12_000;
  /** Cluster: the old master is a replica of the new one as soon as {@code CLUSTER FAILOVER} ends. */
  private static final long CLUSTER_KILL_AFTER = 7_000;
  /** A silence this long after a failover means every JVM had stopped issuing (TTL 1 s). */
  private static final long FENCED_SILENCE_MILLIS = 1_000;
  /** How long slot 0 stays paused: past its TTL (1 s), across the first failover. */
  private static final Duration PAUSE = Duration.ofMillis(2_500);
  /** How long a fault waits for ids to flow before it lands. */
  private static final Duration FLOWING = Duration.ofSeconds(20);

  @TempDir Path dir;

  private static int rounds() {
    return FaultRun.longProfile() ? 3 : 1;
  }

  /**
   * Ends {@code tail} after the last kill -9 was due: time for the JVMs' start on a loaded machine, waiting for the
   * replica and for ids, the failover, the unknown-history wait (TTL + borrow + 2 s) and ids again.
   */
  private static Duration duration(long killAfter, long tail) {
    return Duration.ofMillis(FIRST_ROUND_AT + (rounds() - 1) * ROUND_MILLIS + killAfter + tail);
  }

  private static Map<String, String> props(String uri) {
    return Map.of("worker-assigner", "redis", "redis-uri", uri, "space", SPACE, "worker-id-max", "2",
        "lease-ttl", "1s", "lease-acquire-timeout", "6s");
  }

  @Test
  void sentinelFailoversUnderFourJvmsNeverDuplicate() throws Exception {
    try (PrivateSentinel sentinel = PrivateSentinel.start(dir.resolve("sentinel"))) {
      // an old pool: the first start does not wait for the history nobody can vouch for
      TestRedis.agePool(sentinel.node(sentinel.masterPort()), PREFIX, SPACE);
      List<Long> failoverAt = new ArrayList<>();
      int[] dead = {-1};
      long[] pausedAt = {0};
      FaultRun run = new FaultRun("redis sentinel", dir.resolve("run"))
          .props(props(sentinel.uri()))
          .jvms(4)
          .duration(duration(SENTINEL_KILL_AFTER, 27_000))
          .recovery(Duration.ofSeconds(2))
          .at(Duration.ofSeconds(5), "pause slot 0 past its TTL", c -> {
            FaultRun.awaitIdsFlowing(dir.resolve("run"), FLOWING);
            pausedAt[0] = System.currentTimeMillis();
            c.pause(0);
          })
          .at(Duration.ofSeconds(8), "resume slot 0", c -> resumeAfterPause(c, pausedAt[0]));
      for (int round = 0; round < rounds(); round++) {
        long base = FIRST_ROUND_AT + round * ROUND_MILLIS;
        if (round > 0) {
          run.at(Duration.ofMillis(base - 6_000), "restart the killed node as a replica", c ->
              sentinel.restartAsReplica(dead[0], sentinel.masterPort(), WAIT));
        }
        run.at(Duration.ofMillis(base), "SENTINEL FAILOVER", c -> {
          FaultRun.awaitIdsFlowing(dir.resolve("run"), FLOWING);
          failoverAt.add(System.currentTimeMillis());
          int before = sentinel.failover();
          sentinel.awaitMasterOtherThan(before, WAIT);
        });
        run.at(Duration.ofMillis(base + SENTINEL_KILL_AFTER), "detach the replica, kill -9 the master", c -> {
          int master = sentinel.masterPort();
          sentinel.awaitSynchronisedReplica(master, WAIT);
          FaultRun.awaitIdsFlowing(dir.resolve("run"), FLOWING);
          sentinel.node(sentinel.other(master)).replicaofNoOne(); // it lags from here on
          Thread.sleep(500); // writes the replica never sees: the master cannot have them acknowledged (WAIT)
          failoverAt.add(System.currentTimeMillis());
          sentinel.kill9(master);
          dead[0] = master;
          sentinel.awaitMasterOtherThan(master, WAIT);
        });
      }
      FaultRun.Result r = run.run();
      check("redis-sentinel", r, failoverAt);
    }
  }

  @Test
  void clusterFailoversOfThePoolsSlotUnderFourJvmsNeverDuplicate() throws Exception {
    try (PrivateCluster cluster = PrivateCluster.start(dir.resolve("cluster"))) {
      String meta = TestRedis.leaseKey(PREFIX, SPACE, "meta");
      TestRedis.agePool(cluster.node(cluster.masterPortOf(meta)), PREFIX, SPACE); // an old pool, as above
      List<Long> failoverAt = new ArrayList<>();
      int[] dead = {-1};
      long[] pausedAt = {0};
      FaultRun run = new FaultRun("redis cluster", dir.resolve("run"))
          .props(props(cluster.uri()))
          .jvms(4)
          .duration(duration(CLUSTER_KILL_AFTER, 23_000))
          .recovery(Duration.ofSeconds(2))
          .at(Duration.ofSeconds(5), "pause slot 0 past its TTL", c -> {
            FaultRun.awaitIdsFlowing(dir.resolve("run"), FLOWING);
            pausedAt[0] = System.currentTimeMillis();
            c.pause(0);
          })
          .at(Duration.ofSeconds(8), "resume slot 0", c -> resumeAfterPause(c, pausedAt[0]));
      for (int round = 0; round < rounds(); round++) {
        long base = FIRST_ROUND_AT + round * ROUND_MILLIS;
        if (round > 0) {
          run.at(Duration.ofMillis(base - 6_000), "restart the killed node", c -> cluster.restart(dead[0], WAIT));
        }
        run.at(Duration.ofMillis(base), "CLUSTER FAILOVER on the replica of the pool's master", c -> {
          int master = cluster.masterPortOf(meta);
          cluster.awaitSynchronisedReplica(master, WAIT);
          FaultRun.awaitIdsFlowing(dir.resolve("run"), FLOWING);
          int replica = cluster.replicaOf(master);
          failoverAt.add(System.currentTimeMillis());
          cluster.failoverTo(replica);
          cluster.awaitFailover(meta, master, WAIT);
        });
        run.at(Duration.ofMillis(base + CLUSTER_KILL_AFTER), "kill -9 the pool's master", c -> {
          int master = cluster.masterPortOf(meta);
          cluster.awaitSynchronisedReplica(master, WAIT);
          FaultRun.awaitIdsFlowing(dir.resolve("run"), FLOWING);
          failoverAt.add(System.currentTimeMillis());
          cluster.kill9(master);
          dead[0] = master;
          cluster.awaitFailover(meta, master, WAIT);
        });
      }
      FaultRun.Result r = run.run();
      check("redis-cluster", r, failoverAt);
    }
  }

  /** Resumes slot 0 once it has been paused {@link #PAUSE} (a fault that waited for ids may have paused it late). */
  private static void resumeAfterPause(FaultRun.Control c, long pausedAt) throws Exception {
    Thread.sleep(Math.max(0, pausedAt + PAUSE.toMillis() - System.currentTimeMillis()));
    c.resume(0);
  }

  /**
   * Prints the {@code [redis-ha]} line and asserts: no duplicate, every failover done and followed by ids. For each
   * failover: the time to the first id after the first silence of every JVM (at least {@link #FENCED_SILENCE_MILLIS})
   * and the longest silence before the next failover.
   */
  private void check(String backend, FaultRun.Result r, List<Long> failoverAt) throws Exception {
    List<Long> back = new ArrayList<>();
    List<Long> longest = new ArrayList<>();
    for (int i = 0; i < failoverAt.size(); i++) {
      long at = failoverAt.get(i);
      long until = i + 1 < failoverAt.size() ? failoverAt.get(i + 1) : Long.MAX_VALUE;
      List<long[]> silences = FaultRun.silences(dir.resolve("run"), at, until, FENCED_SILENCE_MILLIS);
      back.add(silences.isEmpty() ? -1 : silences.get(0)[1] - at);
      longest.add(silences.stream().mapToLong(s -> s[1] - s[0]).max().orElse(0));
    }
    System.out.printf("[redis-ha] backend=%s jvms=4 processes=%d ids=%d failovers=%d fenced=%d duplicates=%d"
        + " firstIdAfterFailoverMs=%s longestSilenceMs=%s (%s)%n", backend, r.processes(), r.ids(),
        failoverAt.size(), r.fenced(), r.duplicates(), back, longest, r);
    assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
    assertThat(failoverAt).as("failovers done").hasSize(2 * rounds());
    assertThat(back).as("ms from each failover to the first id after every JVM stopped (-1: none before the next"
        + " failover)").allMatch(ms -> ms >= 0);
    assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
    assertThat(r.maxCloseMillis()).as("longest close(): " + r).isLessThan(5_000);
  }
}
