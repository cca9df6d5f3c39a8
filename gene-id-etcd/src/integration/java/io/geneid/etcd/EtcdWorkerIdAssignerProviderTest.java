package io.geneid.etcd;

import io.geneid.core.snowflake.LeasedGenerators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code worker-assigner: etcd} from properties: the checks offline, then a shared generator on a real etcd. */
@ExtendWith(SharedEtcd.class)
class EtcdWorkerIdAssignerProviderTest {

  private static PrivateEtcd etcd;

  @BeforeAll
  static void shared(PrivateEtcd shared) { // one per JVM, for every class
    etcd = shared;
  }

  private static Map<String, Object> props(Object... kv) {
    Map<String, Object> m = new HashMap<>();
    m.put("worker-assigner", "etcd");
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void badSettingsAreNamedWithTheirRangeAndValue() {
    assertThatThrownBy(() -> LeasedGenerators.check(props()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("etcd-endpoints is required: etcd endpoints such as http://127.0.0.1:2379");
    assertThatThrownBy(() -> LeasedGenerators.check(props("etcd-endpoints", "http://etcd1:2379,etcd2:2379")))
        .hasMessage("etcd-endpoints must be http(s)://host:port endpoints separated by commas, such as "
            + "http://127.0.0.1:2379, but was 'http://etcd1:2379,etcd2:2379'");
    assertThatThrownBy(() -> LeasedGenerators.check(props("etcd-endpoints", "http://127.0.0.1:2379",
        "etcd-timeout", "20ms")))
        .hasMessage("etcd-timeout must be in [100ms, 60000ms] but was 20ms");
    assertThatThrownBy(() -> LeasedGenerators.check(props("etcd-endpoints", "http://127.0.0.1:2379",
        "etcd-key-prefix", "gene-id")))
        .hasMessage("etcd-key-prefix must be / and segments of A-Z a-z 0-9 . _ - (at most 200 characters) such as "
            + "/gene-id but was 'gene-id'");
    assertThatThrownBy(() -> LeasedGenerators.check(props("etcd-endpoints", "http://127.0.0.1:2379",
        "etcd-password", "x")))
        .hasMessage("etcd-username and etcd-password must be given together but only etcd-password was");
    assertThatThrownBy(() -> LeasedGenerators.check(props("etcd-endpoints", "http://127.0.0.1:2379",
        "etcd-endpoint", "http://127.0.0.1:2379")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("etcd-endpoint");
  }

  @Test
  void endpointsWithCredentialsAreRefusedWithoutShowingThem() {
    assertThatThrownBy(() -> LeasedGenerators.check(props("etcd-endpoints",
        "http://127.0.0.1:2379,http://ids:s3cret@etcd2:2379")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("etcd-endpoints must not carry credentials (use etcd-username and etcd-password); its value is "
            + "not shown")
        .message().doesNotContain("s3cret");
  }

  /**
   * A lease on a real server: 1 s at the tests' time scale, in whole seconds as etcd grants them. Every etcd call is
   * waited for at most a third of the TTL, and a busy machine's calls and renewals must not fail a lease the test
   * means to keep.
   */
  @Test
  void aSharedGeneratorLeasesThroughEtcdAndReleasesAtTheLastClose() {
    Duration ttl = TestTime.wholeSeconds(1);
    String space = "gid_etcd_p" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    Map<String, Object> p = props("etcd-endpoints", etcd.endpoint(), "etcd-key-prefix", "/gene-id-provider",
        "space", space, "worker-id-min", 3, "worker-id-max", 5, "lease-ttl", ttl.toMillis() + "ms");
    assertThat(WorkerIdAssigners.provider("etcd")).isInstanceOf(EtcdWorkerIdAssignerProvider.class);
    Set<Long> ids = new HashSet<>();
    long workerId;
    Instant mark;
    // a new pool: its first start waits one TTL + borrowing + the clock margin (nobody can vouch for its history)
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> h = LeasedGenerators.sharedGenerator(p)) {
      LeasedGeneGenerator g = h.generator();
      workerId = g.workerId();
      assertThat(workerId).isBetween(3L, 5L);
      assertThat(g.assigner().store()).isEqualTo("etcd at " + etcd.endpoint());
      for (int i = 0; i < 10_000; i++) {
        assertThat(ids.add(h.nextId())).isTrue();
      }
      mark = g.highWaterMark();
    }
    try (EtcdWorkerIdAssigner a = EtcdWorkerIdAssigner.builder().endpoints(etcd.endpoint())
        .keyPrefix("/gene-id-provider").space(space).workerIds(workerId, workerId).ttl(ttl)
        .acquireTimeout(Duration.ZERO).build()) {
      WorkerLease lease = a.acquire(255);
      assertThat(lease.previousHighWaterMark()).isEqualTo(mark);
      a.release(lease, mark);
    } finally {
      etcd.deletePrefix("/gene-id-provider/leases/" + space + "/");
    }
  }
}
