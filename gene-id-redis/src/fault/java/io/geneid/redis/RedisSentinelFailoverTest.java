package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.lease.LeasedGeneGenerator;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker-id leases and segment ranges over Redis Sentinel ({@code redis-sentinel://}), through two failovers of a
 * deployment of the test's own (a master, a replica, three sentinels): a {@code SENTINEL FAILOVER}, then a
 * {@code kill -9} of the master after its replica stopped replicating ({@code REPLICAOF NO ONE}: the replica that is
 * promoted lags behind what the master acknowledged). Ids are taken all along; none may repeat, and both generators
 * must issue again after each failover.
 */
class RedisSentinelFailoverTest {

  private static final String PREFIX = "gid_sentinel";
  private static final Duration TTL = Duration.ofSeconds(1);

  @TempDir Path dir;

  @Test
  void failoversOfTheMasterNeverRepeatAnIdAndIdsFlowAgain() throws Exception {
    try (PrivateSentinel sentinel = PrivateSentinel.start(dir)) {
      String space = "s" + System.nanoTime();
      RedisProcesses nodes = sentinel.processes();
      TestRedis.agePool(nodes.redis(sentinel.masterPort()), PREFIX, space);
      AtomicLong claims = new AtomicLong();
      AtomicLong claimFailures = new AtomicLong();
      try (RedisWorkerIdAssigner assigner = RedisWorkerIdAssigner.builder().redisUri(sentinel.uri()).keyPrefix(PREFIX)
              .space(space).workerIds(0, 3).ttl(TTL).acquireTimeout(Duration.ofSeconds(20)).build();
          RedisSegmentStore store = RedisSegmentStore.builder().redisUri(sentinel.uri()).keyPrefix(PREFIX)
              .commandTimeout(Duration.ofMillis(500)).allowWithoutPersistence(true).build()) {
        SegmentStore counting = new SegmentStore() {
          @Override
          public Segment nextSegment(String tag, long step) {
            try {
              Segment s = store.nextSegment(tag, step);
              claims.incrementAndGet();
              return s;
            } catch (RuntimeException e) {
              claimFailures.incrementAndGet();
              throw e;
            }
          }
        };
        try (LeasedGeneGenerator leased = LeasedGeneGenerator.builder().assigner(assigner).build();
            GeneSegmentGenerator segments = GeneSegmentGenerator.builder(counting, "order").minStep(20).maxStep(20)
                .prefetchRetry(Duration.ofMillis(20)).fetchTimeout(Duration.ofSeconds(1)).build();
            Issuer snowflake = new Issuer("leased", leased::nextId, 10);
            Issuer segment = new Issuer("segment", segments::nextId, 1)) {
          RedisProcesses.await(() -> snowflake.issued() > 1_000 && claims.get() > 5, Duration.ofSeconds(20),
              "ids before the first failover");

          // 1. SENTINEL FAILOVER: the master is demoted (keeping its run_id), its replica promoted
          snowflake.mark();
          segment.mark();
          long lostBefore = leased.leasesLost();
          int first = sentinel.failover();
          int second = sentinel.awaitMasterOtherThan(first, Duration.ofSeconds(30));
          awaitIssuingAgain(snowflake, segment, claims);
          assertThat(leased.leasesLost()).as("the lease of the old master's generation is refused").isGreaterThan(
              lostBefore);
          report("SENTINEL FAILOVER", snowflake, segment);

          // 2. the replica (the old master) stops replicating, the master acknowledges more, then dies (kill -9):
          //    the replica promoted lags behind what holders and claims were told
          RedisProcesses.await(() -> "1".equals(nodes.info(second, "replication", "connected_slaves"))
                  && String.valueOf(nodes.info(second, "replication", "slave0")).contains("state=online"),
              Duration.ofSeconds(30), "the old master to replicate the new one");
          long claimsWithReplica = claims.get();
          RedisProcesses.await(() -> claims.get() > claimsWithReplica + 5, Duration.ofSeconds(20),
              "claims acknowledged by the replica");
          long failuresBefore = claimFailures.get();
          nodes.redis(first).replicaofNoOne();
          RedisProcesses.await(() -> claimFailures.get() > failuresBefore + 2, Duration.ofSeconds(20),
              "claims refused while the replica lags");
          snowflake.mark();
          segment.mark();
          lostBefore = leased.leasesLost();
          nodes.kill9(second);
          sentinel.awaitMasterOtherThan(second, Duration.ofSeconds(30));
          awaitIssuingAgain(snowflake, segment, claims);
          assertThat(leased.leasesLost()).isGreaterThan(lostBefore);
          report("kill -9 of the master, failover to a lagging replica", snowflake, segment);

          assertThat(snowflake.duplicates()).as("duplicate leased ids").isZero();
          assertThat(segment.duplicates()).as("duplicate segment ids").isZero();
        }
      }
    }
  }

  private static void awaitIssuingAgain(Issuer snowflake, Issuer segment, AtomicLong claims) {
    long claimsAt = claims.get();
    RedisProcesses.await(() -> snowflake.issuedSinceMark(1_000) && segment.issuedSinceMark(100)
        && claims.get() > claimsAt + 3, Duration.ofSeconds(40), "ids and claims after the failover");
  }

  private static void report(String what, Issuer snowflake, Issuer segment) {
    System.out.printf("[sentinel] %s: leased generator issued again %d ms after the failover began (%d ms without "
            + "ids), segment generator %d ms (%d ms without ids); so far %d + %d ids, %d + %d failed calls, "
            + "duplicates %d + %d%n", what, snowflake.millisToRecover(), snowflake.millisWithoutIds(),
        segment.millisToRecover(), segment.millisWithoutIds(), snowflake.issued(), segment.issued(),
        snowflake.failures(), segment.failures(), snowflake.duplicates(), segment.duplicates());
  }
}
