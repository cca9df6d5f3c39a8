package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.LeaseMultiJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Four JVMs share one MariaDB lease table with a pool of three worker ids; one is paused past its TTL. */
class JdbcLeaseMultiJvmTest {

  @TempDir Path dir;

  @Test
  void fourJvmsOneDatabaseZeroDuplicates() throws Exception {
    try (LeaseDatabase db = new LeaseDatabase(LeaseDatabase.Kind.MARIADB)) {
      Map<String, String> props = Map.of("worker-assigner", "jdbc", "jdbc-url", db.url(db.port()),
          "jdbc-create-table", "true", "space", "multi-jvm", "worker-id-max", "2", "lease-ttl", "1s",
          "lease-acquire-timeout", "3s");
      LeaseMultiJvm.Result r = LeaseMultiJvm.run("jdbc", props, 4, Duration.ofSeconds(16), Duration.ofSeconds(5),
          Duration.ofMillis(2500), dir);
      System.out.println("multi-JVM MariaDB: " + r);
      assertThat(r.duplicates()).as("duplicate ids").isZero();
      assertThat(r.ids()).isGreaterThan(10_000);
      assertThat(r.idsPerWorker().keySet()).isSubsetOf(0L, 1L, 2L);
      assertThat(r.takeovers()).as("takeovers").isPositive();
      assertThat(r.fenced() + r.lost()).as("the paused JVM was fenced or lost its lease").isPositive();
    }
  }
}
