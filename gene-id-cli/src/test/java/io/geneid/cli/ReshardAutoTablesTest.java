package io.geneid.cli;

/** {@link AbstractReshardAutoTablesTest} on H2 in-memory databases. */
class ReshardAutoTablesTest extends AbstractReshardAutoTablesTest {
  @Override
  String url(String db) {
    return "jdbc:h2:mem:" + prefix + "_" + db + ";MODE=MYSQL;DB_CLOSE_DELAY=-1";
  }

  @Override
  String user() {
    return "sa";
  }

  @Override
  void create(String db) {}

  @Override
  void drop(String db) {}
}
