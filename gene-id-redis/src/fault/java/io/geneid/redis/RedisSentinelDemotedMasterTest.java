package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After {@code SENTINEL FAILOVER} the old master goes on believing it is the master, and taking writes, for about
 * 10 s, until the sentinels turn it into a replica. A process whose link was made before the failover and that writes
 * for the first time after it has never seen that server's replicas, so {@code WAIT} alone would wait for none: the
 * grant must still be refused there (or made on the master the sentinels name), else the demoted master hands out a
 * worker id that the new master hands out again once its unknown-history wait is over (found by the multi-JVM run
 * of gene-id-fault-tests, {@code RedisHaFaultTest}).
 */
class RedisSentinelDemotedMasterTest {

  private static final String PREFIX = "gid_demoted";

  @TempDir Path dir;

  @Test
  void aFirstGrantAfterAFailoverIsNeverMadeByTheDemotedMaster() {
    try (PrivateSentinel sentinel = PrivateSentinel.start(dir)) {
      String space = "d" + System.nanoTime();
      TestRedis.agePool(sentinel.node(sentinel.masterPort()), PREFIX, space);
      // connected to the master now, nothing written yet: it has seen no replica of it
      try (RedisWorkerIdAssigner late = RedisWorkerIdAssigner.builder().redisUri(sentinel.uri()).keyPrefix(PREFIX)
          .space(space).workerIds(0, 0).ttl(TestTime.seconds(1)).acquireTimeout(TestTime.seconds(10)).build()) {
        int old = sentinel.failover();
        int now = sentinel.awaitMasterOtherThan(old, Duration.ofSeconds(30));
        assertThat(sentinel.info(old, "replication", "role")).as("the demoted master still says it is the master")
            .isEqualTo("master");
        WorkerLease lease;
        try {
          lease = late.acquire(255, Duration.ofMillis(10));
        } catch (GeneIdException refused) {
          return; // refused: the link goes to the master the sentinels name for the next try
        }
        String record = TestRedis.leaseKey(PREFIX, space, "w:" + lease.workerId());
        assertThat(sentinel.node(now).hget(record, "token"))
            .as("worker id %d was granted (token %d); the master the sentinels name (port %d) must hold that grant,"
                + " not only the demoted master (port %d)", lease.workerId(), lease.token(), now, old)
            .isEqualTo(Long.toString(lease.token()));
      }
    }
  }
}
