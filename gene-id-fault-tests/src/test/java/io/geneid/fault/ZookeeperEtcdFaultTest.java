package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.etcd.PrivateEtcd;
import io.geneid.zookeeper.TestZookeeper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four JVMs lease worker ids from a pool of three in a ZooKeeper or an etcd the test starts itself, while one JVM is
 * paused past its session (ZooKeeper) or its TTL (etcd), the server is stopped and started again, and a JVM is
 * killed. No id may be issued twice. Reports the time from the server stop to the first id issued again.
 */
class ZookeeperEtcdFaultTest {

  private static final String SPACE = "fault";

  @TempDir Path dir;

  @Test
  void zookeeperSessionLossAndServerRestartNeverDuplicate() throws Exception {
    try (TestZookeeper zk = new TestZookeeper()) {
      AtomicLong stoppedAt = new AtomicLong();
      FaultRun.Result r = new FaultRun("zookeeper", dir.resolve("run"))
          .props(Map.of("worker-assigner", "zookeeper", "zookeeper-connect", zk.connect(),
              "zookeeper-base-path", "/gene-id-fault-run", "space", SPACE, "worker-id-max", "2",
              "lease-ttl", "2s", "lease-acquire-timeout", "6s"))
          .jvms(4)
          .duration(Duration.ofSeconds(FaultRun.longProfile() ? 60 : 20))
          .at(Duration.ofSeconds(5), "pause slot 0 past its session", c -> c.pause(0))
          .at(Duration.ofSeconds(8), "resume slot 0", c -> c.resume(0))
          .at(Duration.ofSeconds(10), "stop the server", c -> {
            stoppedAt.set(System.currentTimeMillis());
            zk.server.stop();
          })
          .at(Duration.ofMillis(11_500), "start the server again", c -> zk.server.restart())
          .at(Duration.ofSeconds(14), "kill -9 slot 1", c -> c.kill(1))
          .run();
      long back = FaultRun.firstIdAgainMillis(dir.resolve("run"), stoppedAt.get(), Long.MAX_VALUE);
      System.out.println("zookeeper session loss + restart: " + r + " firstIdAfterServerStopMs=" + back);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
      assertThat(r.maxCloseMillis()).as("longest close(): " + r).isLessThan(5_000);
    }
  }

  @Test
  void etcdPauseAndRestartNeverDuplicate() throws Exception {
    try (PrivateEtcd etcd = PrivateEtcd.start()) {
      AtomicLong stoppedAt = new AtomicLong();
      FaultRun.Result r = new FaultRun("etcd", dir.resolve("run"))
          .props(Map.of("worker-assigner", "etcd", "etcd-endpoints", etcd.endpoint(),
              "etcd-key-prefix", "/gene-id-fault-run", "space", SPACE, "worker-id-max", "2",
              "lease-ttl", "1s", "lease-acquire-timeout", "6s"))
          .jvms(4)
          .duration(Duration.ofSeconds(FaultRun.longProfile() ? 60 : 20))
          .at(Duration.ofSeconds(5), "pause slot 0 past its TTL", c -> c.pause(0))
          .at(Duration.ofMillis(7_500), "resume slot 0", c -> c.resume(0))
          .at(Duration.ofSeconds(10), "stop etcd", c -> {
            stoppedAt.set(System.currentTimeMillis());
            etcd.stopProcess(false);
          })
          .at(Duration.ofMillis(11_500), "start etcd again", c -> etcd.startProcess())
          .at(Duration.ofSeconds(14), "kill -9 slot 1", c -> c.kill(1))
          .run();
      long back = FaultRun.firstIdAgainMillis(dir.resolve("run"), stoppedAt.get(), Long.MAX_VALUE);
      System.out.println("etcd pause + restart: " + r + " firstIdAfterServerStopMs=" + back);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
      assertThat(r.maxCloseMillis()).as("longest close(): " + r).isLessThan(5_000);
    }
  }
}
