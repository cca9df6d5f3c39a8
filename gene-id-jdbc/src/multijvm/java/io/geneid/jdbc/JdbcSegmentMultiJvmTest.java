package io.geneid.jdbc;

import io.geneid.core.segment.SegmentMultiJvm;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Three JVMs issue segment ids from one table at the same time: zero duplicates. */
class JdbcSegmentMultiJvmTest {

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void threeJvmsSharingOneTableNeverIssueTheSameId(SegmentDatabase.Kind kind, @TempDir Path dir)
      throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      SegmentDatabase.createTable(db.pool());
      SegmentMultiJvm.run(SegmentJvmMain.class,
          List.of(db.url(), db.kind.user, db.kind.password.isEmpty() ? "-" : db.kind.password), dir);
    }
  }
}
