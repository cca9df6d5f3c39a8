package io.geneid.jdbc;

import org.junit.jupiter.api.BeforeAll;

class PostgresWorkerIdAssignerContractTest extends AbstractJdbcWorkerIdAssignerContractTest {

  @BeforeAll
  static void create() {
    open(LeaseDatabase.Kind.POSTGRESQL);
  }
}
