package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker-id leases and segment ranges over Redis Sentinel ({@code redis-sentinel://}), through two failovers of a
 * deployment of the test's own (a master, a replica, three sentinels): a {@code SENTINEL FAILOVER}, then a
 * {@code kill -9} of the master after its replica stopped replicating ({@code REPLICAOF NO ONE}: the replica that is
 * promoted lags behind what the master acknowledged). Two leased generators and two segment generators, each over a
 * client of its own as two processes would be, take ids all along into one set per kind; none may repeat, and every
 * generator must issue again after each failover. The times to the first id again are printed ({@code [sentinel]}).
 */
class RedisSentinelFailoverTest {

  private static final String PREFIX = "gid_sentinel";
  /**
   * 1 s at the tests' time scale, as are the segment stores' command timeout and the generators' fetch timeout: a busy
   * machine's slow calls are not what the test sees. The failovers keep the sentinels' own times.
   */
  private static final Duration TTL = TestTime.seconds(1);

  @TempDir Path dir;

  @Test
  void failoversOfTheMasterNeverRepeatAnIdAndIdsFlowAgain() throws Exception {
    try (PrivateSentinel sentinel = PrivateSentinel.start(dir)) {
      String space = "s" + System.nanoTime();
      RedisProcesses nodes = sentinel.processes();
      TestRedis.agePool(nodes.redis(sentinel.masterPort()), PREFIX, space);
      AtomicLong claims = new AtomicLong();
      AtomicLong claimFailures = new AtomicLong();
      Set<Long> snowflakeIds = ConcurrentHashMap.newKeySet();
      Set<Long> segmentIds = ConcurrentHashMap.newKeySet();
      // two of each, each over a client of its own: two processes as far as the store can tell
      try (RedisWorkerIdAssigner a1 = assigner(sentinel, space);
          RedisWorkerIdAssigner a2 = assigner(sentinel, space);
          RedisSegmentStore s1 = store(sentinel);
          RedisSegmentStore s2 = store(sentinel);
          LeasedGeneGenerator l1 = LeasedGeneGenerator.builder().assigner(a1).build();
          LeasedGeneGenerator l2 = LeasedGeneGenerator.builder().assigner(a2).build();
          GeneSegmentGenerator g1 = segments(counting(s1, claims, claimFailures));
          GeneSegmentGenerator g2 = segments(counting(s2, claims, claimFailures));
          Issuer leased1 = new Issuer("leased-1", l1::nextId, 5, snowflakeIds);
          Issuer leased2 = new Issuer("leased-2", l2::nextId, 5, snowflakeIds);
          Issuer segment1 = new Issuer("segment-1", g1::nextId, 1, segmentIds);
          Issuer segment2 = new Issuer("segment-2", g2::nextId, 1, segmentIds)) {
        List<Issuer> issuers = List.of(leased1, leased2, segment1, segment2);
        RedisProcesses.await(() -> leased1.issued() > 1_000 && leased2.issued() > 1_000 && claims.get() > 10,
            Duration.ofSeconds(20), "ids before the first failover");

        int rounds = Integer.getInteger("gene-id.redis.ha.rounds", 1); // the long profile repeats the failovers
        int first = 0;
        int second = 0;
        long lostBefore;
        for (int round = 1; round <= rounds; round++) {
          // 1. SENTINEL FAILOVER: the master is demoted (keeping its run_id), its replica promoted
          issuers.forEach(Issuer::mark);
          lostBefore = l1.leasesLost() + l2.leasesLost();
          first = sentinel.failover();
          second = sentinel.awaitMasterOtherThan(first, Duration.ofSeconds(30));
          awaitIssuingAgain(issuers, claims);
          // a holder learns it at its next renewal, which may come after ids flow again on the other holder
          long lost = lostBefore;
          RedisProcesses.await(() -> l1.leasesLost() + l2.leasesLost() > lost, Duration.ofSeconds(15),
              "leases of the old master's generation to be refused");
          report("round " + round + ", SENTINEL FAILOVER", issuers);

          // 2. the replica (the old master) stops replicating, the master acknowledges more, then dies (kill -9):
          //    the replica promoted lags behind what holders and claims were told
          int newMaster = second;
          RedisProcesses.await(() -> "1".equals(nodes.info(newMaster, "replication", "connected_slaves"))
                  && String.valueOf(nodes.info(newMaster, "replication", "slave0")).contains("state=online"),
              Duration.ofSeconds(30), "the old master to replicate the new one");
          long claimsWithReplica = claims.get();
          RedisProcesses.await(() -> claims.get() > claimsWithReplica + 5, Duration.ofSeconds(20),
              "claims acknowledged by the replica");
          long failuresBefore = claimFailures.get();
          nodes.redis(first).replicaofNoOne();
          RedisProcesses.await(() -> claimFailures.get() > failuresBefore + 4, Duration.ofSeconds(20),
              "claims refused while the replica lags");
          issuers.forEach(Issuer::mark);
          lostBefore = l1.leasesLost() + l2.leasesLost();
          nodes.kill9(second);
          sentinel.awaitMasterOtherThan(second, Duration.ofSeconds(30));
          // leases flow again on the promoted replica alone (a new generation); segment claims wait until every
          // replica the sentinels list has them, the dead master included, so it comes back as a replica first
          awaitIssuingAgain(List.of(leased1, leased2), null);
          long lostAtKill = lostBefore;
          RedisProcesses.await(() -> l1.leasesLost() + l2.leasesLost() > lostAtKill, Duration.ofSeconds(15),
              "leases granted before the kill to be refused by the lagging replica");
          sentinel.restartAsReplica(second, first, Duration.ofSeconds(30));
          awaitIssuingAgain(issuers, claims);
          report("round " + round + ", kill -9 of the master, failover to a lagging replica", issuers);
        }

        for (Issuer issuer : issuers) {
          assertThat(issuer.duplicates()).as("ids %s got that another issuer (or itself) had", issuer.name).isZero();
        }
      }
    }
  }

  private static RedisWorkerIdAssigner assigner(PrivateSentinel sentinel, String space) {
    return RedisWorkerIdAssigner.builder().redisUri(sentinel.uri()).keyPrefix(PREFIX).space(space).workerIds(0, 3)
        .ttl(TTL).acquireTimeout(TestTime.seconds(20)).build();
  }

  private static RedisSegmentStore store(PrivateSentinel sentinel) {
    return RedisSegmentStore.builder().redisUri(sentinel.uri()).keyPrefix(PREFIX)
        .commandTimeout(TestTime.ofMillis(500)).allowWithoutPersistence(true).build();
  }

  private static GeneSegmentGenerator segments(SegmentStore store) {
    return GeneSegmentGenerator.builder(store, "order").minStep(20).maxStep(20).prefetchRetry(Duration.ofMillis(20))
        .fetchTimeout(TestTime.seconds(1)).build();
  }

  private static SegmentStore counting(SegmentStore store, AtomicLong claims, AtomicLong failures) {
    return (tag, step) -> {
      try {
        Segment s = store.nextSegment(tag, step);
        claims.incrementAndGet();
        return s;
      } catch (RuntimeException e) {
        failures.incrementAndGet();
        throw e;
      }
    };
  }

  /** Waits until every issuer issued again and, with {@code claims}, segments were claimed again. */
  private static void awaitIssuingAgain(List<Issuer> issuers, @Nullable AtomicLong claims) {
    long claimsAt = claims == null ? 0 : claims.get();
    RedisProcesses.await(() -> issuers.stream().allMatch(i -> i.issuedSinceMark(100))
        && (claims == null || claims.get() > claimsAt + 3), Duration.ofSeconds(40), "ids and claims after the failover");
  }

  private static void report(String what, List<Issuer> issuers) {
    StringBuilder b = new StringBuilder("[sentinel] " + what + ":");
    for (Issuer i : issuers) {
      b.append(String.format(" %s issued again %d ms after the failover began (%d ms without ids), %d ids, %d failed"
          + " calls, %d duplicates;", i.name, i.millisToRecover(), i.millisWithoutIds(), i.issued(), i.failures(),
          i.duplicates()));
    }
    System.out.println(b);
  }
}
