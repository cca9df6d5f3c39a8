package io.geneid.jdbc;

import org.junit.jupiter.api.BeforeAll;

class H2WorkerIdAssignerContractTest extends AbstractJdbcWorkerIdAssignerContractTest {

  @BeforeAll
  static void create() {
    open(LeaseDatabase.Kind.H2);
  }
}
