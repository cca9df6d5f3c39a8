package io.geneid.core;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs several JVMs ({@link LeaseWorkerMain}) against one lease store at once, with a small pool so that they
 * compete for worker ids, crash, take over each other's ids, and with one of them paused (SIGSTOP) past its TTL and
 * resumed (SIGCONT). Collects every id they issued and counts duplicates, leases and takeovers.
 */
public final class LeaseMultiJvm {

  /**
   * What a run produced.
   *
   * @param ids ids issued (and written) by all processes
   * @param duplicates ids that occurred more than once
   * @param processes JVMs started
   * @param leases leases seen
   * @param takeovers leases on a worker id whose previous holder had not released it (crashed or paused)
   * @param crashes JVMs that halted without releasing
   * @param fenced id calls refused because the caller's lease had lapsed or was lost
   * @param lost leases the store took away from a live holder (found at renewal)
   * @param idsPerWorker ids per worker id
   */
  public record Result(long ids, long duplicates, int processes, long leases, long takeovers, long crashes,
      long fenced, long lost, Map<Long, Long> idsPerWorker, String fenceMessage) {}

  private LeaseMultiJvm() {}

  public static Result run(String label, Map<String, String> props, int jvms, Duration runTime, Duration pauseAt,
      Duration pauseFor, Path dir) throws Exception {
    Path propsFile = dir.resolve("lease.properties");
    Properties p = new Properties();
    p.putAll(props);
    try (Writer w = Files.newBufferedWriter(propsFile)) {
      p.store(w, label);
    }
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    long start = System.currentTimeMillis();
    long endAt = start + runTime.toMillis();
    Process[] slots = new Process[jvms];
    List<Path[]> outputs = new ArrayList<>();
    int started = 0;
    boolean paused = false;
    boolean resumed = false;
    boolean pausableHolds = false;
    while (System.currentTimeMillis() < endAt) {
      // the pausable JVM starts first and must hold a lease before the others start, so it has one to lose
      if (!pausableHolds && slots[0] != null) {
        Path events = outputs.get(0)[1];
        pausableHolds = Files.exists(events) && Files.readString(events).contains("LEASE ");
      }
      for (int i = 0; i < (pausableHolds ? jvms : 1); i++) {
        if ((slots[i] == null || !slots[i].isAlive()) && System.currentTimeMillis() < endAt - 2_000) {
          if (i == 0 && slots[0] != null) {
            continue; // the pausable process runs once
          }
          Path ids = dir.resolve("ids-" + started + ".bin");
          Path events = dir.resolve("events-" + started + ".txt");
          Path log = dir.resolve("log-" + started + ".txt");
          outputs.add(new Path[] {ids, events, log});
          slots[i] = new ProcessBuilder(java, "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
              "-Djava.util.logging.config.file=/dev/null", "-cp", classpath, LeaseWorkerMain.class.getName(),
              propsFile.toString(), ids.toString(), events.toString(), Long.toString(endAt),
              i == 0 ? "pausable" : "normal", Long.toString(started * 7919L + 17))
              .redirectErrorStream(true).redirectOutput(log.toFile()).start();
          started++;
        }
      }
      long now = System.currentTimeMillis();
      if (!paused && pausableHolds && now >= start + pauseAt.toMillis()) {
        signal("STOP", slots[0]);
        paused = true;
      }
      if (paused && !resumed && now >= start + pauseAt.toMillis() + pauseFor.toMillis()) {
        signal("CONT", slots[0]);
        resumed = true;
      }
      Thread.sleep(20);
    }
    if (!paused) {
      throw new AssertionError("the pausable JVM never held a lease: see " + outputs.get(0)[2]);
    }
    if (!resumed) {
      signal("CONT", slots[0]);
    }
    for (Process proc : slots) {
      if (proc != null && !proc.waitFor(30, TimeUnit.SECONDS)) {
        proc.destroyForcibly();
        throw new AssertionError("a lease worker JVM did not finish 30 s after the end of the run");
      }
    }
    return collect(outputs, started);
  }

  private static void signal(String signal, Process process) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -" + signal + " " + process.pid() + " failed");
    }
  }

  private static Result collect(List<Path[]> outputs, int processes) throws IOException {
    long count = 0;
    List<long[]> chunks = new ArrayList<>();
    for (Path[] out : outputs) {
      if (!Files.exists(out[0])) {
        continue;
      }
      long[] buf = new long[(int) (Files.size(out[0]) / 8)];
      int n = 0;
      try (InputStream in = Files.newInputStream(out[0]);
          DataInputStream data = new DataInputStream(new java.io.BufferedInputStream(in, 1 << 16))) {
        while (n < buf.length) {
          buf[n++] = data.readLong();
        }
      } catch (EOFException e) {
        n--;
      }
      chunks.add(Arrays.copyOf(buf, n));
      count += n;
    }
    long[] all = new long[(int) count];
    int at = 0;
    for (long[] c : chunks) {
      System.arraycopy(c, 0, all, at, c.length);
      at += c.length;
    }
    Arrays.sort(all);
    long duplicates = 0;
    for (int i = 1; i < all.length; i++) {
      if (all[i] == all[i - 1]) {
        duplicates++;
      }
    }
    Map<Long, Long> perWorker = new TreeMap<>();
    GeneIdLayout layout = GeneIdLayout.defaults();
    for (long id : all) {
      perWorker.merge(layout.decode(id).workerId(), 1L, Long::sum);
    }
    // leases per worker id in the order they were taken (tokens are random: their order means nothing); a lease
    // whose predecessor was not released is a takeover
    Map<Long, Map<Long, long[]>> leases = new HashMap<>(); // worker id -> token -> {millis taken, released}
    long crashes = 0;
    long fenced = 0;
    long lost = 0;
    String fenceMessage = "";
    for (Path[] out : outputs) {
      if (!Files.exists(out[1])) {
        continue;
      }
      for (String line : Files.readAllLines(out[1])) {
        String[] f = line.split(" ");
        switch (f[0]) {
          case "LEASE":
            leases.computeIfAbsent(Long.parseLong(f[1]), k -> new HashMap<>()).computeIfAbsent(Long.parseLong(f[2]),
                k -> new long[2])[0] = Long.parseLong(f[3]);
            break;
          case "RELEASE":
            leases.computeIfAbsent(Long.parseLong(f[1]), k -> new HashMap<>()).computeIfAbsent(Long.parseLong(f[2]),
                k -> new long[2])[1] = 1;
            break;
          case "CRASH":
            crashes++;
            break;
          case "FENCED":
            fenced += Long.parseLong(f[1]);
            break;
          case "LOST":
            lost += Long.parseLong(f[1]);
            break;
          case "FENCE-MESSAGE":
            if (fenceMessage.isEmpty() || line.contains("lapsed")) {
              fenceMessage = line.substring("FENCE-MESSAGE ".length());
            }
            break;
          default:
            break;
        }
      }
    }
    long leaseCount = 0;
    long takeovers = 0;
    for (Map<Long, long[]> byToken : leases.values()) {
      Boolean previousReleased = null;
      for (long[] lease : byToken.values().stream().sorted(java.util.Comparator.comparingLong(l -> l[0])).toList()) {
        leaseCount++;
        if (previousReleased != null && !previousReleased) {
          takeovers++;
        }
        previousReleased = lease[1] == 1;
      }
    }
    return new Result(count, duplicates, processes, leaseCount, takeovers, crashes, fenced, lost, perWorker,
        fenceMessage);
  }
}
