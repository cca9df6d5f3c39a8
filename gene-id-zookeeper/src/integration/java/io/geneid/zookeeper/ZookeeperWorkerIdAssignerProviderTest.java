package io.geneid.zookeeper;

import io.geneid.core.snowflake.LeasedGenerators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.testing.TestTime;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code worker-assigner: zookeeper} from properties: the checks offline, then a shared generator on a real server. */
@ExtendWith(SharedZookeeper.class)
class ZookeeperWorkerIdAssignerProviderTest {

  private static TestZookeeper zk;

  @BeforeAll
  static void shared(TestZookeeper shared) { // one per JVM, for every class
    zk = shared;
  }

  private static Map<String, Object> props(Object... kv) {
    Map<String, Object> m = new HashMap<>();
    m.put("worker-assigner", "zookeeper");
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void badSettingsAreNamedWithTheirRangeAndValue() {
    assertThatThrownBy(() -> LeasedGenerators.check(props()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("zookeeper-connect is required: a ZooKeeper connect string such as zk1:2181,zk2:2181,zk3:2181");
    assertThatThrownBy(() -> LeasedGenerators.check(props("zookeeper-connect", "zk1:2181,:x")))
        .hasMessage("zookeeper-connect must be host:port[,host:port...][/chroot] such as zk1:2181,zk2:2181,zk3:2181 "
            + "but was 'zk1:2181,:x'");
    assertThatThrownBy(() -> LeasedGenerators.check(props("zookeeper-connect", "127.0.0.1:2181",
        "lease-ttl", "2s", "zookeeper-session-timeout", "1500ms")))
        .hasMessage("zookeeper-session-timeout must be in [2000ms, 3600000ms] but was 1500ms");
    assertThatThrownBy(() -> LeasedGenerators.check(props("zookeeper-connect", "127.0.0.1:2181",
        "zookeeper-connection-timeout", "5ms")))
        .hasMessage("zookeeper-connection-timeout must be in [100ms, 60000ms] but was 5ms");
    assertThatThrownBy(() -> LeasedGenerators.check(props("zookeeper-connect", "127.0.0.1:2181",
        "zookeeper-base-path", "gene-id/")))
        .hasMessageStartingWith("zookeeper-base-path must be an absolute ZooKeeper path")
        .hasMessageEndingWith("but was 'gene-id/'");
    assertThatThrownBy(() -> LeasedGenerators.check(props("zookeeper-connect", "127.0.0.1:2181",
        "zookeeper-username", "ids")))
        .hasMessage("zookeeper-username and zookeeper-password must be given together (digest authentication) but "
            + "only zookeeper-username was");
    assertThatThrownBy(() -> LeasedGenerators.check(props("zookeeper-connect", "127.0.0.1:2181",
        "zookeeper-sesion-timeout", "5s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zookeeper-sesion-timeout");
  }

  @Test
  void aConnectStringWithCredentialsIsRefusedWithoutShowingThem() {
    assertThatThrownBy(() -> LeasedGenerators.check(props("zookeeper-connect", "ids:s3cret@zk1:2181")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("zookeeper-connect must not carry credentials (use zookeeper-username and zookeeper-password); "
            + "its value is not shown")
        .message().doesNotContain("s3cret");
    assertThat(ZookeeperWorkerIdAssigner.describe("a@zk1:2181,b:c@zk2:2181/ids")).isEqualTo("zk1:2181,zk2:2181/ids");
  }

  /**
   * A lease on a real server: 1 s at the tests' time scale. Every ZooKeeper call is waited for at most a third of the
   * TTL, and a busy machine's calls (333 ms at load 26) and renewals must not fail a lease the test means to keep.
   */
  @Test
  void aSharedGeneratorLeasesThroughZookeeperAndReleasesAtTheLastClose() throws Exception {
    java.time.Duration ttl = TestTime.seconds(1);
    String space = "gid_zk_p" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    Map<String, Object> p = props("zookeeper-connect", zk.connect(), "zookeeper-base-path", "/gene-id-provider",
        "space", space, "worker-id-min", 3, "worker-id-max", 5, "lease-ttl", ttl.toMillis() + "ms");
    assertThat(WorkerIdAssigners.provider("zookeeper")).isInstanceOf(ZookeeperWorkerIdAssignerProvider.class);
    Set<Long> ids = new HashSet<>();
    long workerId;
    Instant mark;
    // a new pool: its first start waits one TTL + borrowing + the clock margin (nobody can vouch for its history)
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> h = LeasedGenerators.sharedGenerator(p)) {
      LeasedGeneGenerator g = h.generator();
      workerId = g.workerId();
      assertThat(workerId).isBetween(3L, 5L);
      assertThat(g.assigner().store()).isEqualTo("ZooKeeper " + zk.connect());
      for (int i = 0; i < 10_000; i++) {
        assertThat(ids.add(h.nextId())).isTrue();
      }
      mark = g.highWaterMark();
    }
    // released with its exact mark: the next holder gets it at once
    try (ZookeeperWorkerIdAssigner a = ZookeeperWorkerIdAssigner.builder().connectString(zk.connect())
        .basePath("/gene-id-provider").space(space).workerIds(workerId, workerId).ttl(ttl)
        .acquireTimeout(java.time.Duration.ZERO).build()) {
      WorkerLease lease = a.acquire(255);
      assertThat(lease.previousHighWaterMark()).isEqualTo(mark);
      a.release(lease, mark);
    } finally {
      zk.delete("/gene-id-provider/leases/" + space);
    }
  }
}
