package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdLayout;
import io.geneid.etcd.PrivateEtcd;
import io.geneid.zookeeper.TestZookeeper;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
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
      // an old pool: the first start does not wait for the history nobody can vouch for
      zk.admin.create().creatingParentsIfNeeded().forPath("/gene-id-fault-run/leases/" + SPACE,
          "gen=0000000000000001;born=0;next=0".getBytes(StandardCharsets.UTF_8));
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
      long back = firstIdAgainMillis(dir.resolve("run"), stoppedAt.get());
      System.out.println("zookeeper session loss + restart: " + r + " firstIdAfterServerStopMs=" + back);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
      assertThat(r.maxCloseMillis()).as("longest close(): " + r).isLessThan(5_000);
    }
  }

  @Test
  void etcdPauseAndRestartNeverDuplicate() throws Exception {
    try (PrivateEtcd etcd = PrivateEtcd.start()) {
      etcd.put("/gene-id-fault-run/leases/" + SPACE + "/pool", "gen=0000000000000001;born=0;next=0"); // an old pool
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
      long back = firstIdAgainMillis(dir.resolve("run"), stoppedAt.get());
      System.out.println("etcd pause + restart: " + r + " firstIdAfterServerStopMs=" + back);
      assertThat(r.duplicates()).as("duplicate ids: " + r).isZero();
      assertThat(r.idsAfterFaults()).as("ids issued after the faults: " + r).isPositive();
      assertThat(r.maxCloseMillis()).as("longest close(): " + r).isLessThan(5_000);
    }
  }

  /**
   * From the id files of a run: milliseconds from {@code faultMillis} to the first id timestamp after the longest
   * silence that began after it (every JVM fenced while the server was down), or -1 if no id came after it.
   */
  static long firstIdAgainMillis(Path runDir, long faultMillis) throws IOException {
    GeneIdLayout layout = GeneIdLayout.defaults();
    long[] ts = new long[1 << 16];
    int n = 0;
    try (Stream<Path> files = Files.list(runDir)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString().startsWith("ids-"))::iterator) {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(f), 1 << 16))) {
          for (;;) {
            long t = layout.decode(in.readLong()).timestamp().toEpochMilli();
            if (t >= faultMillis - 100) {
              if (n == ts.length) {
                ts = Arrays.copyOf(ts, n * 2);
              }
              ts[n++] = t;
            }
          }
        } catch (EOFException e) {
          // end of this file
        }
      }
    }
    Arrays.sort(ts, 0, n);
    long bestGap = -1;
    long after = -1;
    for (int i = 1; i < n; i++) {
      if (ts[i - 1] >= faultMillis - 100 && ts[i] - ts[i - 1] > bestGap) {
        bestGap = ts[i] - ts[i - 1];
        after = ts[i];
      }
    }
    return after < 0 ? -1 : after - faultMillis;
  }
}
