package io.geneid.core.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.TestTime;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Several JVMs issuing segment ids from one store at the same time, for the multi-process tests of gene-id-jdbc and
 * gene-id-redis. {@link #run} starts {@link #JVMS} processes of a backend's main class, which opens its store from
 * its own arguments and hands it to {@link #issue}; every process waits until all have started (so that they race for
 * segments), issues {@link #THREADS} x {@link #PER_THREAD} ids and writes them to a file; {@link #run} then checks
 * that no id is repeated and returns them.
 */
public final class SegmentMultiJvm {

  public static final int JVMS = 3;
  public static final int THREADS = 2;
  public static final int PER_THREAD = 20_000;
  /** The tag every process issues ids of. */
  public static final String TAG = "order";

  /** The arguments {@link #run} puts before the store's own: dir, index, parties. */
  private static final int COMMON_ARGS = 3;

  private SegmentMultiJvm() {}

  /**
   * Runs {@code main} in {@link #JVMS} processes with {@code storeArgs} and checks that together they issued every id
   * once.
   *
   * @return the ids of all processes
   */
  public static Set<Long> run(Class<?> main, List<String> storeArgs, Path dir) throws Exception {
    List<Process> processes = new ArrayList<>();
    for (int i = 0; i < JVMS; i++) {
      processes.add(new ProcessBuilder(javaCommand(main, storeArgs, dir, i))
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("log-" + i + ".txt").toFile())
          .start());
    }
    for (int i = 0; i < JVMS; i++) {
      Process p = processes.get(i);
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        processes.forEach(Process::destroyForcibly);
        throw new AssertionError("JVM " + i + " did not finish within 90 s");
      }
      assertThat(p.exitValue()).as("JVM %d exit code; its output:%n%s", i,
          Files.readString(dir.resolve("log-" + i + ".txt"))).isZero();
    }
    Set<Long> ids = new HashSet<>();
    long total = 0;
    for (int i = 0; i < JVMS; i++) {
      for (String line : Files.readAllLines(dir.resolve("ids-" + i + ".txt"))) {
        long id = Long.parseLong(line);
        total++;
        assertThat(id).isPositive();
        assertThat(ids.add(id)).as("id %d issued twice", id).isTrue();
      }
    }
    assertThat(total).isEqualTo((long) JVMS * THREADS * PER_THREAD);
    assertThat(ids).hasSize(JVMS * THREADS * PER_THREAD);
    return ids;
  }

  private static List<String> javaCommand(Class<?> main, List<String> storeArgs, Path dir, int index) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        TestTime.jvmArgument(), "-cp", System.getProperty("java.class.path"), main.getName(),
        dir.toString(), Integer.toString(index), Integer.toString(JVMS)));
    command.addAll(storeArgs);
    return command;
  }

  /** The arguments a main class was given for its store (those after the ones {@link #run} adds). */
  public static List<String> storeArgs(String[] args) {
    return Arrays.asList(args).subList(COMMON_ARGS, args.length);
  }

  /**
   * The body of one process: waits for the others, issues ids from {@code store} in {@link #THREADS} threads and
   * writes them, one per line, to {@code dir/ids-<index>.txt}.
   */
  public static void issue(String[] args, SegmentStore store) throws Exception {
    Path dir = Path.of(args[0]);
    int index = Integer.parseInt(args[1]);
    int parties = Integer.parseInt(args[2]);
    try (GeneSegmentGenerator generator = GeneSegmentGenerator.builder(store, TAG).minStep(5).maxStep(50).build()) {
      awaitParties(dir, index, parties);
      long[][] ids = new long[THREADS][PER_THREAD];
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
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
