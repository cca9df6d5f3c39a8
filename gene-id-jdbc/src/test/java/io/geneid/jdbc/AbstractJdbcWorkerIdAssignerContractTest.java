package io.geneid.jdbc;

import io.geneid.core.lease.AbstractWorkerIdAssignerContractTest;
import io.geneid.core.lease.WorkerIdAssigner;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The lease contract on one database; subclasses name it. The table is created by the assigner's own DDL. */
abstract class AbstractJdbcWorkerIdAssignerContractTest extends AbstractWorkerIdAssignerContractTest {

  private static LeaseDatabase db;

  static void open(LeaseDatabase.Kind kind) {
    db = new LeaseDatabase(kind);
  }

  @BeforeAll
  static void noop() {}

  @AfterAll
  static void drop() {
    db.close();
  }

  @Override
  protected WorkerIdAssigner assigner(String space, long min, long max, Duration ttl, Duration acquireTimeout,
      String owner, int port) {
    return JdbcWorkerIdAssigner.builder()
        .jdbcUrl(db.url(port), null, null)
        .createTable(true)
        .space(space)
        .workerIds(min, max)
        .ttl(ttl)
        .acquireTimeout(acquireTimeout)
        .owner(owner)
        .build();
  }

  @Override
  protected int storePort() {
    return db.port();
  }

  @Override
  protected void takeOver(String space, long workerId) {
    db.update("UPDATE " + db.table + " SET version = version + 100, holder = 'thief' WHERE space_name = ? AND "
        + "worker_id = ?", space, (int) workerId);
  }

  @Override
  protected void cleanup(String space) {
    try {
      db.update("DELETE FROM " + db.table + " WHERE space_name = ?", space);
    } catch (AssertionError e) {
      // the table may not exist when a test failed before its first lease
    }
  }
}
