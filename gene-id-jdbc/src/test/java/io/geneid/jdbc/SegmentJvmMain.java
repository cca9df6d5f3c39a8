package io.geneid.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneSegmentGenerator;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One process of {@link JdbcSegmentMultiJvmTest}: issues ids from a shared table and writes them to a file.
 *
 * <p>Arguments: jdbcUrl user password tag threads idsPerThread dir index parties. The process writes
 * {@code dir/ready-<index>}, waits until every party has (so that all of them race for segments at once), then
 * writes its ids, one per line, to {@code dir/ids-<index>.txt}.
 */
public final class SegmentJvmMain {

  private SegmentJvmMain() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String user = args[1];
    String password = args[2].equals("-") ? "" : args[2];
    String tag = args[3];
    int threads = Integer.parseInt(args[4]);
    int perThread = Integer.parseInt(args[5]);
    Path dir = Path.of(args[6]);
    int index = Integer.parseInt(args[7]);
    int parties = Integer.parseInt(args[8]);

    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(2);
    try (HikariDataSource ds = new HikariDataSource(config);
        GeneSegmentGenerator generator = GeneSegmentGenerator.builder(JdbcSegmentStore.builder(ds).build(), tag)
            .minStep(5).maxStep(50).build()) {
      awaitParties(dir, index, parties);
      long[][] ids = new long[threads][perThread];
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long[] mine = ids[t];
        Thread w = new Thread(() -> {
          for (int i = 0; i < mine.length; i++) {
            mine[i] = (i & 1) == 0 ? generator.nextId() : generator.nextIdFor(i);
          }
        });
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      Path tmp = dir.resolve("ids-" + index + ".tmp");
      try (BufferedWriter out = Files.newBufferedWriter(tmp)) {
        for (long[] perThreadIds : ids) {
          for (long id : perThreadIds) {
            out.write(Long.toString(id));
            out.newLine();
          }
        }
      }
      Files.move(tmp, dir.resolve("ids-" + index + ".txt"));
    }
  }

  private static void awaitParties(Path dir, int index, int parties) throws Exception {
    Files.createFile(dir.resolve("ready-" + index));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      long ready;
      try (var files = Files.list(dir)) {
        ready = files.filter(p -> p.getFileName().toString().startsWith("ready-")).count();
      }
      if (ready >= parties) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + ready + " of " + parties + " processes started within 60 s");
      }
      Thread.sleep(5); // polling the other processes' files, not waiting for time
    }
  }
}
