package io.geneid.fault;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.testing.TestTime;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Several JVMs ({@link FaultWorker}) issuing ids through one lease store while faults are applied on a schedule:
 * the store's own (a restart, a rollback, a deleted key, a black-holed connection — given by the test as actions)
 * and the processes' ({@link Control#pause}, {@link Control#kill}, {@link Control#stepClock}). Slot 0 runs one
 * steady generator for the whole run; the other slots churn (close or crash every 1 to 3 s) and are restarted when
 * their JVM exits, unless {@link #lateSteadySlot} makes one start later as a steady worker of a store of its own (a
 * promoted standby). At the end every id written is counted and sorted: {@link Result#duplicates()} must be zero.
 */
final class FaultRun {

  /** What the test does to the world at a given time. */
  @FunctionalInterface
  interface FaultAction {
    void apply(Control control) throws Exception;
  }

  /** What a fault can do to the JVMs of the run. */
  interface Control {
    /** SIGSTOP the JVM of a slot (it stops renewing and issuing). */
    void pause(int slot) throws Exception;

    /** SIGCONT the JVM of a slot. */
    void resume(int slot) throws Exception;

    /** SIGKILL the JVM of a slot; a replacement starts in the slot. */
    void kill(int slot) throws Exception;

    /** Moves the clock of a slot's JVMs by {@code deltaMillis} (negative: back). */
    void stepClock(int slot, long deltaMillis) throws Exception;
  }

  /**
   * What a run produced.
   *
   * @param ids ids written by all JVMs
   * @param duplicates ids written more than once
   * @param processes JVMs started
   * @param leases leases seen (worker id, token)
   * @param crashes JVMs that halted without releasing, and JVMs killed
   * @param fenced id calls refused (lease lapsed or lost, clock moved back, store down)
   * @param maxCloseMillis the longest {@code close()} of a generator
   * @param idsAfterFaults ids whose timestamp is after the last fault plus its recovery allowance
   * @param errors the first error of each kind the JVMs saw
   */
  record Result(long ids, long duplicates, int processes, long leases, long crashes, long fenced,
      long maxCloseMillis, long idsAfterFaults, List<String> errors) {

    @Override
    public String toString() {
      return String.format("ids=%,d duplicates=%d jvms=%d leases=%d crashes=%d fenced=%d maxClose=%dms "
          + "idsAfterFaults=%,d errors=%s", ids, duplicates, processes, leases, crashes, fenced, maxCloseMillis,
          idsAfterFaults, errors);
    }
  }

  /** The profile the suite runs: {@code short} in CI, {@code long} by {@code -Dfault.profile=long}. */
  static boolean longProfile() {
    return "long".equals(System.getProperty("fault.profile", "short"));
  }

  private final String label;
  private final Path dir;
  private final Map<String, String> props = new TreeMap<>();
  private final Map<Long, List<Object[]>> faults = new TreeMap<>();
  private int jvms = 4;
  private Duration duration = Duration.ofSeconds(14);
  private Duration recovery = Duration.ofSeconds(3);
  /** Slots that start late, as steady workers, with properties of their own: start (ms after the run's start). */
  private final Map<Integer, Long> lateStart = new TreeMap<>();
  private final Map<Integer, Map<String, String>> slotProps = new TreeMap<>();

  FaultRun(String label, Path dir) {
    this.label = label;
    this.dir = dir;
  }

  FaultRun props(Map<String, String> values) {
    props.putAll(values);
    return this;
  }

  FaultRun jvms(int n) {
    this.jvms = n;
    return this;
  }

  FaultRun duration(Duration d) {
    this.duration = d;
    return this;
  }

  /** How long after the last fault the JVMs get to issue again before ids count as "after the faults". */
  FaultRun recovery(Duration d) {
    this.recovery = d;
    return this;
  }

  /**
   * Slot {@code slot} starts only {@code at} after the run's start, as a steady worker (one generator for the rest of
   * the run, not restarted), with {@code override} over the run's properties (e.g. another store's address).
   */
  FaultRun lateSteadySlot(int slot, Duration at, Map<String, String> override) {
    lateStart.put(slot, at.toMillis());
    slotProps.put(slot, Map.copyOf(override));
    return this;
  }

  FaultRun at(Duration at, String name, FaultAction action) {
    faults.computeIfAbsent(at.toMillis(), k -> new ArrayList<>()).add(new Object[] {name, action});
    return this;
  }

  Result run() throws Exception {
    Files.createDirectories(dir);
    Path[] propsFiles = new Path[jvms];
    for (int i = 0; i < jvms; i++) {
      propsFiles[i] = dir.resolve(slotProps.containsKey(i) ? "lease-" + i + ".properties" : "lease.properties");
      Properties p = new Properties();
      p.putAll(props);
      p.putAll(slotProps.getOrDefault(i, Map.of()));
      try (Writer w = Files.newBufferedWriter(propsFiles[i])) {
        p.store(w, label);
      }
    }
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    long start = System.currentTimeMillis();
    // the time the schedule waited for ids to flow (awaitIdsFlowing, in a fault): the faults after it and the end of
    // the run move by it, so a busy machine's slow start shortens no interval of the schedule
    long[] shift = {0};
    Path endFile = dir.resolve("end.txt"); // the end of the run (Unix ms), which the JVMs read as it moves
    writeAtomically(endFile, Long.toString(start + duration.toMillis()));
    Process[] slots = new Process[jvms];
    long[] clockOffsets = new long[jvms];
    List<Path[]> outputs = new ArrayList<>();
    int[] started = {0};
    long[] killed = {0};
    long lastFaultAt = start;
    Control control = new Control() {
      @Override
      public void pause(int slot) throws Exception {
        signal("STOP", slots[slot]);
      }

      @Override
      public void resume(int slot) throws Exception {
        signal("CONT", slots[slot]);
      }

      @Override
      public void kill(int slot) throws Exception {
        signal("KILL", slots[slot]);
        slots[slot].waitFor(TestTime.millis(5_000), TimeUnit.MILLISECONDS);
        killed[0]++;
      }

      @Override
      public void stepClock(int slot, long deltaMillis) throws Exception {
        clockOffsets[slot] += deltaMillis;
        writeClock(slot, clockOffsets[slot]);
      }
    };
    for (int i = 0; i < jvms; i++) {
      writeClock(i, 0);
    }
    List<Map.Entry<Long, List<Object[]>>> due = new ArrayList<>(faults.entrySet());
    List<String> applied = new ArrayList<>();
    WAITED.set(shift);
    try {
      while (System.currentTimeMillis() < start + duration.toMillis() + shift[0]) {
        long endAt = start + duration.toMillis() + shift[0];
        for (int i = 0; i < jvms; i++) {
          boolean gone = slots[i] == null || !slots[i].isAlive();
          boolean steady = i == 0 || lateStart.containsKey(i);
          boolean startable = System.currentTimeMillis() - start - shift[0] >= lateStart.getOrDefault(i, 0L);
          if (gone && startable && System.currentTimeMillis() < endAt - 2_000 && (!steady || slots[i] == null)) {
            Path ids = dir.resolve("ids-" + started[0] + "-s" + i + ".bin");
            Path events = dir.resolve("events-" + started[0] + ".txt");
            Path log = dir.resolve("log-" + started[0] + ".txt");
            outputs.add(new Path[] {ids, events, log});
            slots[i] = new ProcessBuilder(java, "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.util.logging.config.file=/dev/null", TestTime.jvmArgument(), "-cp", classpath,
                FaultWorker.class.getName(),
                propsFiles[i].toString(), ids.toString(), events.toString(), endFile.toString(),
                clockFile(i).toString(), Long.toString(started[0] * 7919L + 17), steady ? "steady" : "churn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            started[0]++;
          }
        }
        while (!due.isEmpty() && due.get(0).getKey() <= System.currentTimeMillis() - start - shift[0]) {
          for (Object[] fault : due.remove(0).getValue()) {
            long shiftBefore = shift[0];
            ((FaultAction) fault[1]).apply(control);
            long at = System.currentTimeMillis() - start;
            applied.add(fault[0] + " at " + at + " ms" + (shift[0] > 0 ? " (" + (at - shift[0])
                + " ms of the schedule)" : ""));
            lastFaultAt = System.currentTimeMillis();
            if (shift[0] != shiftBefore) {
              writeAtomically(endFile, Long.toString(start + duration.toMillis() + shift[0]));
            }
          }
        }
        Thread.sleep(20);
      }
    } finally {
      WAITED.remove();
      for (Process proc : slots) {
        if (proc != null && proc.isAlive()) {
          signal("CONT", proc); // a paused JVM must be able to finish
        }
      }
    }
    long finish = TestTime.millis(30_000); // a busy machine's JVMs take longer to flush and exit
    for (Process proc : slots) {
      if (proc != null && !proc.waitFor(finish, TimeUnit.MILLISECONDS)) {
        proc.destroyForcibly();
        throw new AssertionError("a fault worker JVM did not finish " + finish + " ms after the end of the run ("
            + label + ")");
      }
    }
    if (!due.isEmpty()) {
      throw new AssertionError("faults not applied before the end of the run: " + due.size());
    }
    System.out.println("[" + label + "] faults: " + applied);
    return collect(outputs, started[0], killed[0], lastFaultAt + recovery.toMillis(), start);
  }

  /** The time the schedule of the run on this thread waited in {@link #awaitIdsFlowing} (ms), while it runs. */
  private static final ThreadLocal<long[]> WAITED = new ThreadLocal<>();

  /**
   * Waits until the JVMs of a run issue ids (the id files of {@code runDir} grew by at least 100 ids in each of two
   * 300 ms windows in a row), so a fault lands on a pool that is issuing rather than one still starting or
   * recovering from the last fault. The wait is a start-up wait, not part of the schedule: {@code base} is scaled by
   * the tests' time scale ({@link TestTime}), so a busy machine's slow JVM starts get longer, and called from a fault
   * of a {@link #run()}, the time it waits moves the faults after it and the end of the run as much, so that no
   * interval of the schedule gets shorter.
   *
   * @throws AssertionError after {@code base} times the time scale without that
   */
  static void awaitIdsFlowing(Path runDir, Duration base) throws IOException, InterruptedException {
    Duration timeout = TestTime.scaled(base);
    long started = System.nanoTime();
    long deadline = started + timeout.toNanos();
    try {
      long last = idBytes(runDir);
      int windows = 0;
      while (windows < 2) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no ids issued for " + timeout.toMillis() + " ms before a fault (" + runDir + ")");
        }
        Thread.sleep(300);
        long now = idBytes(runDir);
        windows = now - last >= 100 * 8 ? windows + 1 : 0;
        last = now;
      }
    } finally {
      long[] waited = WAITED.get();
      if (waited != null) {
        waited[0] += (System.nanoTime() - started) / 1_000_000;
      }
    }
  }

  /** From the id files of a run: the timestamp (Unix ms) of the first id the JVMs of {@code slot} issued, or -1. */
  static long firstIdMillis(Path runDir, int slot) throws IOException {
    GeneIdLayout layout = GeneIdLayout.defaults();
    long first = Long.MAX_VALUE;
    try (java.util.stream.Stream<Path> files = Files.list(runDir)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString().startsWith("ids-")
          && p.getFileName().toString().endsWith("-s" + slot + ".bin"))::iterator) {
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(f),
            1 << 16))) {
          for (;;) {
            first = Math.min(first, layout.decode(in.readLong()).timestamp().toEpochMilli());
          }
        } catch (EOFException e) {
          // end of this file
        }
      }
    }
    return first == Long.MAX_VALUE ? -1 : first;
  }

  /**
   * From the event files of a run: for each generator that issued, {@code {when its first id came (Unix ms), how long
   * after it began to build (ms)}}, in the order of the files.
   */
  static List<long[]> firstIdWaits(Path runDir) throws IOException {
    List<long[]> out = new ArrayList<>();
    try (java.util.stream.Stream<Path> files = Files.list(runDir)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString().startsWith("events-"))::iterator) {
        for (String line : Files.readAllLines(f)) {
          if (line.startsWith("FIRST ")) {
            String[] w = line.substring(6).split(" at=", 2);
            out.add(new long[] {Long.parseLong(w[1]), Long.parseLong(w[0])});
          }
        }
      }
    }
    return out;
  }

  private static long idBytes(Path runDir) throws IOException {
    long total = 0;
    try (java.util.stream.Stream<Path> files = Files.list(runDir)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString().startsWith("ids-"))::iterator) {
        try {
          total += Files.size(f);
        } catch (java.nio.file.NoSuchFileException e) {
          // not there: nothing to count
        }
      }
    }
    return total;
  }

  /** A lease a JVM of a run issued under: its output (the JVMs in start order), worker id, token, first id (Unix ms). */
  record Lease(int output, long workerId, long token, long atMillis) {}

  /** The leases of a run's JVMs, from their events files, in the order they were first issued under. */
  static List<Lease> leases(Path runDir) throws IOException {
    List<Lease> out = new ArrayList<>();
    for (int o = 0; Files.exists(runDir.resolve("events-" + o + ".txt")); o++) {
      for (String line : Files.readAllLines(runDir.resolve("events-" + o + ".txt"))) {
        String[] f = line.split(" ");
        if (f[0].equals("LEASE")) {
          out.add(new Lease(o, Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3].substring(3))));
        }
      }
    }
    out.sort(java.util.Comparator.comparingLong(Lease::atMillis));
    return out;
  }

  /**
   * From the id files of a run: milliseconds from {@code faultMillis} to the first id timestamp after the longest
   * silence among the ids stamped from {@code faultMillis} to {@code untilMillis} (every JVM fenced while the store
   * was down or failing over), or -1 if no id came after it in that window.
   */
  static long firstIdAgainMillis(Path runDir, long faultMillis, long untilMillis) throws IOException {
    long[] longest = null;
    for (long[] s : silences(runDir, faultMillis, untilMillis, 0)) {
      if (longest == null || s[1] - s[0] > longest[1] - longest[0]) {
        longest = s;
      }
    }
    return longest == null ? -1 : longest[1] - faultMillis;
  }

  /**
   * From the id files of a run: the silences of at least {@code minGapMillis} (no JVM issued an id) among the ids
   * stamped from {@code fromMillis} - 100 ms to {@code untilMillis} and the last id before that (a silence that began
   * just before the fault counts), in order, each as {@code {last id before, first id after}} (Unix ms, the ids' own
   * timestamps).
   */
  static List<long[]> silences(Path runDir, long fromMillis, long untilMillis, long minGapMillis) throws IOException {
    GeneIdLayout layout = GeneIdLayout.defaults();
    long[] ts = new long[1 << 16];
    int n = 0;
    long before = Long.MIN_VALUE;
    try (java.util.stream.Stream<Path> files = Files.list(runDir)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString().startsWith("ids-"))::iterator) {
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(f),
            1 << 16))) {
          for (;;) {
            long t = layout.decode(in.readLong()).timestamp().toEpochMilli();
            if (t < fromMillis - 100) {
              before = Math.max(before, t);
            } else if (t <= untilMillis) {
              if (n == ts.length) {
                ts = Arrays.copyOf(ts, n * 2);
              }
              ts[n++] = t;
            }
          }
        } catch (EOFException e) {
          // end of this file
        }
      }
    }
    if (before != Long.MIN_VALUE) {
      if (n == ts.length) {
        ts = Arrays.copyOf(ts, n + 1);
      }
      ts[n++] = before;
    }
    Arrays.sort(ts, 0, n);
    List<long[]> out = new ArrayList<>();
    for (int i = 1; i < n; i++) {
      if (ts[i] - ts[i - 1] > Math.max(0, minGapMillis - 1)) {
        out.add(new long[] {ts[i - 1], ts[i]});
      }
    }
    return out;
  }

  private Path clockFile(int slot) {
    return dir.resolve("clock-" + slot + ".txt");
  }

  private void writeClock(int slot, long offset) throws IOException {
    writeAtomically(clockFile(slot), Long.toString(offset));
  }

  private static void writeAtomically(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static void signal(String signal, Process process) throws Exception {
    if (process == null || !process.isAlive()) {
      return;
    }
    // a JVM that exits between the check and the signal is fine: kill's complaint is not
    new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD)
        .start().waitFor();
  }

  private Result collect(List<Path[]> outputs, int processes, long killed, long afterFaultsAt, long start)
      throws IOException {
    List<long[]> chunks = new ArrayList<>();
    long count = 0;
    for (Path[] out : outputs) {
      if (!Files.exists(out[0])) {
        continue;
      }
      long[] buf = new long[(int) (Files.size(out[0]) / 8)];
      int n = 0;
      try (InputStream in = Files.newInputStream(out[0]);
          DataInputStream data = new DataInputStream(new java.io.BufferedInputStream(in, 1 << 16))) {
        while (n < buf.length) {
          buf[n] = data.readLong();
          n++;
        }
      } catch (EOFException e) {
        // a JVM killed mid-write: keep the whole ids
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
    GeneIdLayout layout = GeneIdLayout.defaults();
    long after = 0;
    for (int i = 0; i < all.length; i++) {
      if (i > 0 && all[i] == all[i - 1]) {
        duplicates++;
      }
      if (layout.decode(all[i]).timestamp().toEpochMilli() > afterFaultsAt) {
        after++;
      }
    }
    if (duplicates > 0) {
      explainDuplicates(outputs, all, start);
    }
    Map<String, Boolean> leases = new LinkedHashMap<>();
    long crashes = killed;
    long fenced = 0;
    long maxClose = 0;
    List<String> errors = new ArrayList<>();
    for (Path[] out : outputs) {
      if (!Files.exists(out[1])) {
        continue;
      }
      for (String line : Files.readAllLines(out[1])) {
        String[] f = line.split(" ", 2);
        switch (f[0]) {
          case "LEASE":
            leases.put(f[1].split(" at=", 2)[0], true);
            break;
          case "CRASH":
            crashes++;
            break;
          case "FENCED":
            fenced += Long.parseLong(f[1]);
            break;
          case "CLOSE":
            maxClose = Math.max(maxClose, Long.parseLong(f[1]));
            break;
          case "ERROR":
            String kind = f[1].split(":", 2)[0];
            if (errors.stream().noneMatch(e -> e.startsWith(kind)) && errors.size() < 8) {
              errors.add(f[1].length() > 300 ? f[1].substring(0, 300) + "..." : f[1]);
            }
            break;
          default:
            break;
        }
      }
    }
    return new Result(count, duplicates, processes, leases.size(), crashes, fenced, maxClose, after, errors);
  }

  /**
   * Prints the first duplicates decoded, the outputs that hold each, and those processes' lease events, and keeps a
   * copy of the run's files under the system temp directory, so a duplicate can be explained after the run.
   */
  private void explainDuplicates(List<Path[]> outputs, long[] sorted, long start) throws IOException {
    GeneIdLayout layout = GeneIdLayout.defaults();
    java.util.Set<Long> dups = new java.util.TreeSet<>();
    for (int i = 1; i < sorted.length && dups.size() < 5; i++) {
      if (sorted[i] == sorted[i - 1]) {
        dups.add(sorted[i]);
      }
    }
    StringBuilder report = new StringBuilder("[" + label + "] duplicates, first " + dups.size() + ":\n");
    java.util.Set<Integer> involved = new java.util.TreeSet<>();
    for (long id : dups) {
      report.append("  ").append(id).append(' ').append(layout.decode(id)).append(" at +")
          .append(layout.decode(id).timestamp().toEpochMilli() - start).append(" ms in outputs");
      for (int o = 0; o < outputs.size(); o++) {
        Path ids = outputs.get(o)[0];
        if (!Files.exists(ids)) {
          continue;
        }
        try (DataInputStream data = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(ids),
            1 << 16))) {
          for (;;) {
            if (data.readLong() == id) {
              report.append(' ').append(o);
              involved.add(o);
              break;
            }
          }
        } catch (EOFException e) {
          // not in this one
        }
      }
      report.append('\n');
    }
    for (int o : involved) {
      report.append("  events of output ").append(o).append(":\n");
      for (String line : Files.readAllLines(outputs.get(o)[1])) {
        report.append("    ").append(line.length() > 400 ? line.substring(0, 400) + "..." : line).append('\n');
      }
    }
    Path keep = Path.of(System.getProperty("java.io.tmpdir"), "gene-id-fault-" + start);
    Files.createDirectories(keep);
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, keep.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    report.append("  the run's files are kept in ").append(keep);
    System.out.println(report);
  }
}
