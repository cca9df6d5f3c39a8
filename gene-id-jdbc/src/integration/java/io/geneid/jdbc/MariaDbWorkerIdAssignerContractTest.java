package io.geneid.jdbc;

import org.junit.jupiter.api.BeforeAll;

class MariaDbWorkerIdAssignerContractTest extends AbstractJdbcWorkerIdAssignerContractTest {

  @BeforeAll
  static void create() {
    open(LeaseDatabase.Kind.MARIADB);
  }
}
