package io.geneid.zookeeper;

import io.geneid.core.lease.AbstractWorkerIdAssignerContractTest;
import io.geneid.core.lease.WorkerIdAssigner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SharedZookeeper.class)
class ZookeeperWorkerIdAssignerContractTest extends AbstractWorkerIdAssignerContractTest {

  static final String BASE = "/gene-id-contract";
  private static TestZookeeper zk;

  @BeforeAll
  static void shared(TestZookeeper shared) { // one per JVM, for every class
    zk = shared;
  }

  @Override
  protected WorkerIdAssigner assigner(String space, long min, long max, Duration ttl, Duration acquireTimeout,
      String owner, int port) {
    return ZookeeperWorkerIdAssigner.builder()
        .connectString("127.0.0.1:" + port)
        .basePath(BASE)
        .space(space)
        .workerIds(min, max)
        .ttl(ttl)
        .acquireTimeout(acquireTimeout)
        .owner(owner)
        .build();
  }

  @Override
  protected int storePort() {
    return zk.port();
  }

  @Override
  protected void takeOver(String space, long workerId) {
    String claim = BASE + "/leases/" + space + "/claims/" + workerId;
    try {
      zk.admin.delete().forPath(claim);
      zk.admin.create().forPath(claim, "token=999999999;owner=usurper".getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected void cleanup(String space) {
    zk.delete(BASE + "/leases/" + space);
  }
}
