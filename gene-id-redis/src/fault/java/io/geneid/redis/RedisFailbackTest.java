package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failover back to a server that never restarted: its {@code run_id} is the one the pool's generation was started
 * under, but it was a replica in between and was promoted again, so what it holds may be older than what the other
 * master granted. Its {@code master_replid} changed with the promotion, and that starts a new generation.
 */
class RedisFailbackTest {

  private static final String PREFIX = "gid_failback";

  @TempDir Path dir;

  @Test
  void aServerPromotedAgainWithoutARestartStartsANewGeneration() {
    try (PrivateRedis a = PrivateRedis.start(dir.resolve("a"), PrivateRedis.Persistence.NONE);
        PrivateRedis b = PrivateRedis.start(dir.resolve("b"), PrivateRedis.Persistence.NONE)) {
      String space = "f" + System.nanoTime();
      TestRedis.agePool(a.redis(), PREFIX, space);
      try (RedisWorkerIdAssigner assigner = RedisWorkerIdAssigner.builder().redisUri(a.uri()).keyPrefix(PREFIX)
          .space(space).workerIds(0, 1).ttl(TestTime.seconds(5)).acquireTimeout(Duration.ZERO).build()) {
        // the TTL at the tests' time scale: the lease must outlive the replication waits below on a busy machine, so
        // that the renewal is refused for the new generation, not for a lapse
        WorkerLease lease = assigner.acquire(255, Duration.ofMillis(10));
        String runId = a.runId();
        // b replicates a, is promoted; a replicates b, and is promoted back: same process, same run_id
        b.redis().replicaof("127.0.0.1", a.port());
        RedisProcesses.await(() -> "up".equals(RedisConnections.infoField(b.redis().info("replication"),
            "master_link_status")), Duration.ofSeconds(10), "b to replicate a");
        b.redis().replicaofNoOne();
        a.redis().replicaof("127.0.0.1", b.port());
        RedisProcesses.await(() -> "up".equals(RedisConnections.infoField(a.redis().info("replication"),
            "master_link_status")), Duration.ofSeconds(10), "a to replicate b");
        a.redis().replicaofNoOne();
        assertThat(a.runId()).isEqualTo(runId);

        assertThatThrownBy(() -> assigner.renew(lease, Instant.now()))
            .isInstanceOf(WorkerLeaseLostException.class)
            .hasMessageContaining("the store restarted, failed over or lost the pool's meta since it was granted");
      }
    }
  }
}
