package io.geneid.etcd;

import io.geneid.core.lease.AbstractWorkerIdAssignerContractTest;
import io.geneid.core.lease.WorkerIdAssigner;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SharedEtcd.class)
class EtcdWorkerIdAssignerContractTest extends AbstractWorkerIdAssignerContractTest {

  static final String PREFIX = "/gene-id-contract";
  private static PrivateEtcd etcd;

  @BeforeAll
  static void shared(PrivateEtcd shared) { // one per JVM, for every class
    etcd = shared;
  }

  @Override
  protected WorkerIdAssigner assigner(String space, long min, long max, Duration ttl, Duration acquireTimeout,
      String owner, int port) {
    return EtcdWorkerIdAssigner.builder()
        .endpoints("http://127.0.0.1:" + port)
        .keyPrefix(PREFIX)
        .space(space)
        .workerIds(min, max)
        .ttl(ttl)
        .acquireTimeout(acquireTimeout)
        .owner(owner)
        .build();
  }

  @Override
  protected int storePort() {
    return etcd.port();
  }

  @Override
  protected void takeOver(String space, long workerId) {
    etcd.put(PREFIX + "/leases/" + space + "/claims/" + workerId, "token=999999999;lease=0;owner=usurper");
  }

  @Override
  protected void cleanup(String space) {
    etcd.deletePrefix(PREFIX + "/leases/" + space + "/");
  }
}
