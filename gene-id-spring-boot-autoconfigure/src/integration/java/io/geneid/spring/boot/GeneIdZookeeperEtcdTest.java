package io.geneid.spring.boot;

import static io.geneid.spring.boot.StartupFailures.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.etcd.PrivateEtcd;
import io.geneid.zookeeper.TestZookeeper;
import io.geneid.core.testing.TestTime;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code gene-id.worker-assigner: zookeeper} leases the worker id from a real ZooKeeper (in the test JVM), with the
 * {@code gene-id.zookeeper.*} properties; {@code etcd} from a real etcd the test starts ({@link PrivateEtcd}: the
 * {@code etcd} binary of the Debian package {@code etcd-server}; without it the test fails, it does not skip), with
 * the {@code gene-id.etcd.*} properties; either without its module on the class path names the artifact.
 */
class GeneIdZookeeperEtcdTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class));

  private static String space() {
    return "zk_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  @Test
  void aWorkerIdLeasedFromZookeeperIssuesIds() {
    try (TestZookeeper zk = new TestZookeeper()) {
      runner.withPropertyValues("gene-id.worker-assigner=zookeeper", "gene-id.zookeeper.connect=" + zk.connect(),
          "gene-id.lease.space=" + space(), "gene-id.lease.ttl=" + TestTime.seconds(2).toMillis() + "ms",
          // an epoch of its own: worker ids leased by other tests of this JVM are claims of another layout
          "gene-id.epoch=2025-06-01T00:00:00Z").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LeasedGeneGenerator.class);
            LeasedGeneGenerator ids = context.getBean(LeasedGeneGenerator.class);
            assertThat(ids.workerId()).isBetween(0L, ids.layout().maxWorkerId());
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 10_000; i++) {
              long id = ids.nextIdFor(4242L);
              assertThat(seen.add(id)).isTrue();
              assertThat(ids.layout().decode(id).workerId()).isEqualTo(ids.workerId());
            }
          });
    }
  }

  @Test
  void badZookeeperSettingsNameTheProperty() {
    runner.withPropertyValues("gene-id.worker-assigner=zookeeper", "gene-id.lease.space=" + space())
        .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("gene-id.zookeeper.connect"));
    runner.withPropertyValues("gene-id.worker-id=3", "gene-id.zookeeper.connect=127.0.0.1:2181")
        .run(failsWith("gene-id.zookeeper.connect is set but gene-id.worker-assigner=static does not read it: set"
            + " gene-id.worker-assigner=redis or jdbc to lease the worker id, or remove it"));
  }

  @Test
  void aWorkerIdLeasedFromEtcdIssuesIds() {
    try (PrivateEtcd etcd = PrivateEtcd.start()) {
      String prefix = "/gene-id-boot-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
      String space = space();
      // an old pool: a new one waits once for the history nobody can vouch for (TTL + borrowing + 2 s)
      etcd.put(prefix + "/leases/" + space + "/pool", "gen=0000000000000001;born=0;next=0");
      runner.withPropertyValues("gene-id.worker-assigner=etcd", "gene-id.etcd.endpoints=" + etcd.endpoint(),
          "gene-id.etcd.key-prefix=" + prefix, "gene-id.etcd.timeout=" + TestTime.millis(500) + "ms",
          "gene-id.lease.space=" + space, "gene-id.lease.ttl=" + TestTime.wholeSeconds(2).toMillis() + "ms",
          // an epoch of its own, as above
          "gene-id.epoch=2025-07-01T00:00:00Z").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LeasedGeneGenerator.class);
            LeasedGeneGenerator ids = context.getBean(LeasedGeneGenerator.class);
            assertThat(ids.workerId()).isBetween(0L, ids.layout().maxWorkerId());
            // the claim is in the etcd the properties name, under the key prefix they name
            assertThat(etcd.get(prefix + "/leases/" + space + "/claims/" + ids.workerId())).isNotNull();
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 10_000; i++) {
              long id = ids.nextIdFor(4242L);
              assertThat(seen.add(id)).isTrue();
              assertThat(ids.layout().decode(id).workerId()).isEqualTo(ids.workerId());
            }
          });
    }
  }

  @Test
  void etcdWithoutItsModuleNamesTheArtifact() {
    runner.withClassLoader(new FilteredClassLoader("io.geneid.etcd"))
        .withPropertyValues("gene-id.worker-assigner=etcd", "gene-id.etcd.endpoints=http://127.0.0.1:2379")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("needs io.geneid:gene-id-etcd on the class path"));
  }

  @Test
  void zookeeperWithoutItsModuleNamesTheArtifact() {
    runner.withClassLoader(new FilteredClassLoader("io.geneid.zookeeper"))
        .withPropertyValues("gene-id.worker-assigner=zookeeper", "gene-id.zookeeper.connect=127.0.0.1:2181")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("needs io.geneid:gene-id-zookeeper on the class path"));
  }
}
