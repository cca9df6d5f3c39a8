package io.geneid.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.etcd.PrivateEtcd;
import io.geneid.zookeeper.TestZookeeper;
import io.geneid.core.testing.TestTime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An etcd or a ZooKeeper restored from an older copy of its data directory while the pool is in use (issue #33, item
 * 3). The copy is taken while the pool exists and its one worker id is free; two steady JVMs then lease from it: one
 * gets the worker id and issues, the other waits for it. Right after the holder's renewal the store is stopped, its
 * data directory replaced by the copy and started again: the same cluster, member and server ids, an older revision,
 * no claim. The waiting JVM is granted the worker id at once, while the holder issues until its next renewal finds
 * its claim gone (etcd; a ZooKeeper holder stops when its connection drops). Neither store can tell such a restore, so
 * neither vouches for its history and the new holder issues only after its grant + TTL + borrow + 2 s, when the
 * holder has fenced itself. No id may be issued twice; the new holder's wait from the restore to its first id is
 * printed. Before #33, etcd: 4,363 and 4,431 duplicate ids, the new holder issuing 0.3 s after the restore.
 */
class StoreRestoreFaultTest {

  private static final String SPACE = "restore";
  private static final Duration TTL = Duration.ofSeconds(6);
  /**
   * A pool start and a takeover each wait up to TTL + borrow + 2 s; a loaded machine starts JVMs slowly (and
   * {@link FaultRun#awaitIdsFlowing} scales this by the tests' time scale).
   */
  private static final Duration FLOWING = Duration.ofSeconds(30);

  /** A pool key as builds before #33 wrote it (now ignored): none of its worker ids is held when the copy is taken. */
  private static final String OLD_POOL = "gen=0000000000000001;born=0;next=0";

  @TempDir Path dir;

  private static Map<String, String> props(Map<String, String> store) {
    Map<String, String> p = new java.util.HashMap<>(store);
    p.putAll(Map.of("space", SPACE, "worker-id-min", "0", "worker-id-max", "0", "lease-ttl", TTL.toMillis() + "ms",
        "lease-acquire-timeout", "2s"));
    return p;
  }

  @Test
  void etcdRestoredFromAnOlderCopyOfItsDataNeverDuplicates() throws Exception {
    try (PrivateEtcd etcd = PrivateEtcd.start()) {
      String pool = "/gene-id-restore/leases/" + SPACE + "/";
      etcd.put(pool + "pool", OLD_POOL); // the pool's key is there when the copy is taken
      Path copy = etcd.copyData();
      try {
        check("etcd", run(props(Map.of("worker-assigner", "etcd", "etcd-endpoints", etcd.endpoint(),
            "etcd-key-prefix", "/gene-id-restore")), () -> etcd.get(pool + "ids/0"), c -> {
              String held = etcd.get(pool + "claims/0");
              assertThat(held).as("the holder's claim before the restore").isNotNull();
              etcd.restoreData(copy);
              // gone with the restore (the waiting JVM may have claimed the worker id since)
              assertThat(etcd.get(pool + "claims/0")).as("the claim after the restore").isNotEqualTo(held);
            }));
      } finally {
        PrivateEtcd.deleteTree(copy);
      }
    }
  }

  @Test
  void zookeeperRestoredFromAnOlderCopyOfItsDataNeverDuplicates() throws Exception {
    try (TestZookeeper zk = new TestZookeeper()) {
      String pool = "/gene-id-restore/leases/" + SPACE;
      zk.admin.create().creatingParentsIfNeeded().forPath(pool, OLD_POOL.getBytes(StandardCharsets.UTF_8));
      Path copy = zk.copyData();
      try {
        check("zookeeper", run(props(Map.of("worker-assigner", "zookeeper", "zookeeper-connect", zk.connect(),
            "zookeeper-base-path", "/gene-id-restore")), () -> data(zk.admin, pool + "/ids/0"), c -> {
              String held = data(zk.admin, pool + "/claims/0");
              assertThat(held).as("the holder's claim before the restore").isNotNull();
              zk.restoreData(copy);
              // a new client: one that saw the later transactions is refused by the restored server (zxid)
              try (CuratorFramework fresh = CuratorFrameworkFactory.newClient(zk.connect(), 10_000,
                  (int) TestTime.millis(5_000), new RetryNTimes(3, 100))) {
                fresh.start();
                // gone with the restore (the waiting JVM may have claimed the worker id since)
                assertThat(data(fresh, pool + "/claims/0")).as("the claim after the restore").isNotEqualTo(held);
              }
            }));
      } finally {
        PrivateEtcd.deleteTree(copy);
      }
    }
  }

  /** The data of a node as text; null if it does not exist. */
  private static String data(CuratorFramework client, String path) throws Exception {
    try {
      return new String(client.getData().forPath(path), StandardCharsets.UTF_8);
    } catch (KeeperException.NoNodeException e) {
      return null;
    }
  }

  /** What a run gave: its result, when the store came back from the restore, the leases its JVMs issued under. */
  private record Outcome(FaultRun.Result result, long restoredAt, List<FaultRun.Lease> leases) {}

  /**
   * Two steady JVMs on a pool of one worker id; once ids flow and the holder has just renewed (its worker id's record
   * changed), {@code restore} rolls the store back to the copy.
   */
  private Outcome run(Map<String, String> props, Callable<String> record, FaultRun.FaultAction restore)
      throws Exception {
    Path runDir = dir.resolve("run");
    AtomicLong restoredAt = new AtomicLong();
    FaultRun.Result r = new FaultRun("restore", runDir)
        .props(props)
        .jvms(2)
        .lateSteadySlot(1, Duration.ZERO, Map.of()) // steady too, from the start: it waits for the worker id
        .duration(Duration.ofSeconds(FaultRun.longProfile() ? 60 : 40))
        .recovery(TTL.plusSeconds(4))
        .at(Duration.ofSeconds(3), "restore the store from the copy right after a renewal", c -> {
          FaultRun.awaitIdsFlowing(runDir, FLOWING);
          String before = record.call();
          long until = System.nanoTime() + TTL.toNanos();
          while (Objects.equals(record.call(), before)) {
            assertThat(System.nanoTime() - until).as("a renewal of the holder within the TTL").isNegative();
            Thread.sleep(10);
          }
          restore.apply(c);
          restoredAt.set(System.currentTimeMillis());
        })
        .run();
    return new Outcome(r, restoredAt.get(), FaultRun.leases(runDir));
  }

  private static void check(String store, Outcome o) {
    FaultRun.Lease taken = o.leases().stream().filter(l -> l.atMillis() >= o.restoredAt()).findFirst()
        .orElseThrow(() -> new AssertionError("no lease issued under after the restore: " + o));
    FaultRun.Lease holder = o.leases().stream().filter(l -> l.atMillis() < o.restoredAt()).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no lease before the restore: " + o));
    System.out.println(store + " restored from an older copy: " + o.result() + " holderBefore=JVM " + holder.output()
        + " newHolder=JVM " + taken.output() + " firstIdOfNewHolderAfterRestoreMs=" + (taken.atMillis()
        - o.restoredAt()));
    assertThat(o.result().duplicates()).as("duplicate ids: " + o.result()).isZero();
    assertThat(o.result().idsAfterFaults()).as("ids issued after the restore: " + o.result()).isPositive();
  }
}
