package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore.MoveProgress;
import io.geneid.core.bucket.BucketState;
import io.geneid.jdbc.JdbcBucketMapStore;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gene-id reshard move} in a JVM of its own, killed with SIGKILL ({@link Process#destroyForcibly()}) in the
 * middle of copying a bucket, then started again: it resumes the frozen bucket and finishes, and every row is on its
 * new database exactly once. The databases are H2 in server mode, in this JVM, so they outlive the killed mover.
 */
class ReshardMoveKillTest {

  private static final int GENES = 16; // gene-bits 4: 8 of 16 buckets move from 2 databases to 4
  private static final int ROWS_PER_BUCKET = 400;
  private static final int BATCH = 20;

  @TempDir
  Path dir;

  private Server server;
  private final List<HikariDataSource> pools = new ArrayList<>();
  private final String prefix = "kill_" + Long.toString(System.nanoTime(), 36);

  @BeforeEach
  void startServer() throws Exception {
    server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
  }

  @AfterEach
  void stop() {
    pools.forEach(HikariDataSource::close);
    server.stop();
  }

  private String url(String db) {
    return "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:" + prefix + "_" + db + ";DB_CLOSE_DELAY=-1";
  }

  private HikariDataSource pool(String db) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url(db));
    config.setMaximumPoolSize(2);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  @Test
  void aMoverKilledMidCopyResumesAndEveryRowEndsOnItsNewDatabaseOnce() throws Exception {
    List<HikariDataSource> ds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ds.add(pool("ds_" + i));
      try (Connection c = ds.get(i).getConnection(); Statement s = c.createStatement()) {
        // the mover pages by the primary key; a row copied twice would fail the copy with a key violation
        s.execute("CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(32) NOT NULL)");
      }
    }
    long[] sum = new long[GENES];
    for (int i = 0; i < 2; i++) {
      try (Connection c = ds.get(i).getConnection();
           PreparedStatement ps = c.prepareStatement("INSERT INTO t_order VALUES (?, ?)")) {
        for (int gene = i; gene < GENES; gene += 2) { // GENE_MOD of 2: gene g on ds_(g % 2)
          for (long n = 1; n <= ROWS_PER_BUCKET; n++) {
            long id = (n << 16) | gene;
            sum[gene] += id;
            ps.setLong(1, id);
            ps.setString(2, "c" + n);
            ps.addBatch();
          }
        }
        ps.executeBatch();
      }
    }
    Path yaml = Files.writeString(dir.resolve("app.yaml"), """
        dataSources:
          ds_0: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s"}
          ds_1: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s"}
          ds_2: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s"}
          ds_3: {dataSourceClassName: com.zaxxer.hikari.HikariDataSource, jdbcUrl: "%s"}
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_${0..3}.t_order
              databaseStrategy:
                standard:
                  shardingColumn: id
                  shardingAlgorithmName: gene_db
          shardingAlgorithms:
            gene_db:
              type: GENE_BUCKET
              props:
                sharding-count: 2
                gene-bits: 4
                map-store: jdbc
                map-store-url: "%s"
                map-name: orders
        """.formatted(url("ds_0"), url("ds_1"), url("ds_2"), url("ds_3"), url("store")));
    JdbcBucketMapStore store = JdbcBucketMapStore.builder().dataSource(pool("store")).createTable(true).build();

    Process first = startMover(yaml, "first");
    MoveProgress atKill = awaitMidCopy(store, first);
    first.destroyForcibly();
    assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
    BucketMap killed = store.load("orders").orElseThrow();
    List<Integer> frozen = killed.bucketsIn(BucketState.FROZEN);
    MoveProgress left = store.progress("orders").orElseThrow();
    assertThat(frozen).as("killed while bucket copies: it stays frozen on its old database").hasSize(1);
    assertThat(left.bucketsDone()).isLessThan(left.bucketsTotal()).isGreaterThanOrEqualTo(atKill.bucketsDone());
    int bucket = frozen.get(0);
    long partial = check(ds.get(bucket % 4), "t_order_gid_copy", bucket).rows(); // staged, routed nowhere
    assertThat(partial).as("bucket %d half copied at the kill", bucket).isPositive().isLessThan(ROWS_PER_BUCKET);

    Process second = startMover(yaml, "second");
    assertThat(second.waitFor(50, TimeUnit.SECONDS)).as("the second run finishes").isTrue();
    String output = Files.readString(dir.resolve("second.out"));
    System.out.println("first run, killed:\n" + Files.readString(dir.resolve("first.out")) + "second run:\n"
        + output);
    assertThat(second.exitValue()).as(output + Files.readString(dir.resolve("second.err"))).isZero();
    assertThat(output).contains("bucket " + bucket + " FROZEN by an interrupted run continues")
        .contains("moved bucket " + bucket + " (" + bucket % 2 + " -> " + bucket % 4 + ")");

    BucketMap done = store.load("orders").orElseThrow();
    assertThat(done.bucketsIn(BucketState.FROZEN)).isEmpty();
    for (int b = 0; b < GENES; b++) {
      assertThat(done.target(b)).as("bucket %d", b).isEqualTo(b % 4);
      DataSourceCheck check = check(ds.get(b % 4), b);
      assertThat(check.rows()).as("rows of bucket %d on ds_%d", b, b % 4).isEqualTo(ROWS_PER_BUCKET);
      assertThat(check.distinct()).as("each once").isEqualTo(ROWS_PER_BUCKET);
      assertThat(check.sum()).as("id sum of bucket %d", b).isEqualTo(sum[b]);
    }
    MoveProgress finished = store.progress("orders").orElseThrow();
    assertThat(finished.bucketsDone()).isEqualTo(finished.bucketsTotal());
    assertThat(finished.bucketsTotal()).as("progress counts the whole move, across the kill").isEqualTo(GENES / 2);
    assertThat(finished.rowsCopied()).isEqualTo(GENES / 2 * ROWS_PER_BUCKET);
    assertThat(finished.startedAtMillis()).as("the first run's start").isEqualTo(left.startedAtMillis());
    assertThat(output).contains("done                       " + GENES / 2 + " buckets moved, "
        + GENES / 2 * ROWS_PER_BUCKET + " rows copied (");
    assertThat(output).containsPattern("moved bucket " + bucket + " \\(" + bucket % 2 + " -> " + bucket % 4
        + "\\) +buckets " + (left.bucketsDone() + 1) + "/" + GENES / 2 + ", ");

    CliRun cleanup = CliRun.of("reshard", "cleanup", "--config", yaml.toString(), "--algorithm", "gene_db");
    assertThat(cleanup.status()).as(cleanup.err()).isZero();
    assertThat(cleanup.out()).contains("cleanup                    " + GENES / 2 * ROWS_PER_BUCKET + " rows of 8 moved"
        + " buckets deleted");
    long total = 0;
    for (int i = 0; i < 4; i++) {
      try (Connection c = ds.get(i).getConnection(); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t_order WHERE MOD(id, 16) % 4 <> " + i)) {
        rs.next();
        assertThat(rs.getLong(1)).as("rows of other buckets left on ds_%d", i).isZero();
      }
      total += check(ds.get(i), -1).rows();
    }
    assertThat(total).isEqualTo((long) GENES * ROWS_PER_BUCKET);
  }

  private Process startMover(Path yaml, String name) throws Exception {
    String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home")
        + File.separator + "bin" + File.separator + "java");
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath,
        GeneIdCli.class.getName(), "reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db",
        "--to", "4", "--batch-size", Integer.toString(BATCH), "--batch-pause", "4ms", "--settle", "0ms",
        "--progress-every", "200ms")
        .redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile())
        .start();
  }

  /** Waits until the mover has moved a bucket and recorded a batch in the first half of the next one. */
  private MoveProgress awaitMidCopy(JdbcBucketMapStore store, Process mover) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    while (System.nanoTime() < deadline) {
      assertThat(mover.isAlive()).as("the mover is still running: %s", Files.readString(dir.resolve("first.err")))
          .isTrue();
      Optional<MoveProgress> p = store.progress("orders");
      if (p.isPresent() && p.get().bucketsDone() >= 1) {
        long inBucket = p.get().rowsCopied() - (long) p.get().bucketsDone() * ROWS_PER_BUCKET;
        if (inBucket > 0 && inBucket <= ROWS_PER_BUCKET / 2) {
          return p.get();
        }
      }
      Thread.sleep(1);
    }
    throw new AssertionError("the mover never got to the middle of a bucket: "
        + Files.readString(dir.resolve("first.out")));
  }

  private record DataSourceCheck(long rows, long distinct, long sum) {}

  private static DataSourceCheck check(HikariDataSource ds, int bucket) throws Exception {
    return check(ds, "t_order", bucket);
  }

  private static DataSourceCheck check(HikariDataSource ds, String table, int bucket) throws Exception {
    String where = bucket < 0 ? "" : " WHERE MOD(id, 16) = " + bucket;
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT COUNT(*), COUNT(DISTINCT id), COALESCE(SUM(id), 0) FROM " + table
             + where)) {
      rs.next();
      return new DataSourceCheck(rs.getLong(1), rs.getLong(2), rs.getLong(3));
    }
  }

}
