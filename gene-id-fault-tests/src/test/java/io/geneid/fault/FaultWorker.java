package io.geneid.fault;

import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdException;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerLease;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.FileWriter;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

/**
 * One JVM of a {@link FaultRun}: runs leased generators one after another until the run's end and writes every id it
 * got to a file. A {@code steady} worker keeps one generator for the whole run (the one that gets paused); a
 * {@code churn} worker lives 1 to 3 s per generator and then closes it or, one time in three, halts without
 * releasing anything (a crash).
 *
 * <p>Its clock is {@link GeneClock#system()} plus an offset that the run writes to a file ({@link FaultRun.Control#
 * stepClock}), so a test can step this JVM's clock back or forward while it issues.
 *
 * <p>Args: properties file, ids file, events file, end file (the end of the run, Unix ms, which the run moves
 * later when its schedule waited for ids to flow), clock file, random seed, role. Events, one a
 * line: {@code LEASE id token}, {@code RELEASE id token}, {@code CRASH id token}, {@code FENCED count},
 * {@code CLOSE ms}, {@code FIRST ms at=unixMs} (a generator's first id, ms after it began to
 * build), {@code ERROR message} (the first of each kind), {@code DONE ids}.
 */
public final class FaultWorker {

  private FaultWorker() {}

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of(args[0]))) {
      p.load(r);
    }
    Map<String, String> props = new HashMap<>();
    p.forEach((k, v) -> props.put((String) k, (String) v));
    RunEnd end = new RunEnd(Path.of(args[3]));
    OffsetClock clock = new OffsetClock(Path.of(args[4]));
    Random random = new Random(Long.parseLong(args[5]));
    boolean steady = args[6].equals("steady");
    long maxBorrow = Long.parseLong(props.getOrDefault(WorkerIdAssigners.MAX_BORROW_MILLIS, "10"));
    long issued = 0;
    java.util.Set<String> errorKinds = new java.util.HashSet<>();
    try (DataOutputStream ids = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[1]), 1 << 14));
        PrintWriter events = new PrintWriter(new FileWriter(args[2]), true)) {
      while (System.currentTimeMillis() < end.millis()) {
        LeasedGeneGenerator g;
        long buildStart = System.currentTimeMillis();
        WorkerIdAssigner assigner = WorkerIdAssigners.create(props);
        try {
          LeasedGeneGenerator.Builder b = LeasedGeneGenerator.builder()
              .assigner(assigner)
              .clock(clock)
              .maxBorrowMillis(maxBorrow)
              .clockBackwardsPolicy(ClockBackwardsPolicy.waitUpTo(Duration.ofMillis(200)));
          g = b.build();
        } catch (GeneIdException e) {
          assigner.close();
          if (errorKinds.add("start " + e.getClass().getSimpleName())) {
            events.println("ERROR start: " + oneLine(e));
          }
          Thread.sleep(100);
          continue;
        }
        long lifeEnd = steady ? Long.MAX_VALUE : System.currentTimeMillis() + 1_000 + random.nextInt(2_000);
        long token = 0;
        long workerId = -1;
        long fenced = 0;
        int gene = random.nextInt(64);
        boolean first = true;
        while (System.currentTimeMillis() < Math.min(lifeEnd, end.millis())) {
          try {
            for (int k = 0; k < 16; k++) {
              ids.writeLong(g.nextId(gene++ & 63));
              issued++;
              if (first) {
                first = false;
                long now = System.currentTimeMillis();
                events.println("FIRST " + (now - buildStart) + " at=" + now);
              }
            }
          } catch (GeneIdException e) {
            fenced++;
            if (errorKinds.add(e.getClass().getSimpleName())) {
              events.println("ERROR " + oneLine(e));
            }
            Thread.sleep(5);
          }
          ids.flush(); // a kill -9 loses at most the ids of this batch
          if (g.isIssuing()) {
            WorkerLease lease = g.lease().orElseThrow();
            if (lease.token() != token) {
              token = lease.token();
              workerId = lease.workerId();
              events.println("LEASE " + workerId + " " + token + " at=" + System.currentTimeMillis());
            }
          }
          Thread.sleep(1);
        }
        events.println("FENCED " + fenced);
        if (fenced > 0) {
          events.println("NOTE fenced " + fenced + " calls, last at " + System.currentTimeMillis());
        }
        if (!steady && random.nextInt(3) == 0 && System.currentTimeMillis() < end.millis() - 1_500) {
          ids.flush();
          events.println("CRASH " + workerId + " " + token);
          events.flush();
          Runtime.getRuntime().halt(3); // no release, no shutdown hook: the lease must expire in the store
        }
        boolean held = g.isIssuing();
        long closeStart = System.nanoTime();
        g.close();
        assigner.close();
        events.println("CLOSE " + (System.nanoTime() - closeStart) / 1_000_000L);
        if (held) {
          events.println("RELEASE " + workerId + " " + token);
        }
      }
      ids.flush();
      events.println("DONE " + issued);
    }
    System.exit(0);
  }

  private static String oneLine(Throwable e) {
    String m = e.getClass().getSimpleName() + ": " + e.getMessage();
    return m.replace('\n', ' ');
  }

  /** The end of the run (Unix ms), read from a file every 20 ms: the run moves it later when its schedule waits. */
  static final class RunEnd {
    private final Path file;
    private volatile long millis;

    RunEnd(Path file) throws java.io.IOException {
      this.file = file;
      millis = Long.parseLong(Files.readString(file).trim());
      Thread t = new Thread(() -> {
        for (;;) {
          try {
            Thread.sleep(20);
            millis = Long.parseLong(Files.readString(file).trim());
          } catch (InterruptedException e) {
            return;
          } catch (java.io.IOException | NumberFormatException e) {
            // being replaced: keep the last end
          }
        }
      }, "fault-end");
      t.setDaemon(true);
      t.start();
    }

    long millis() {
      return millis;
    }
  }

  /** {@link GeneClock#system()} plus an offset (ms) read from a file every few milliseconds. */
  static final class OffsetClock implements GeneClock {
    private final Path file;
    private volatile long offset;

    OffsetClock(Path file) {
      this.file = file;
      read();
      Thread t = new Thread(() -> {
        for (;;) {
          read();
          try {
            Thread.sleep(2);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "fault-clock");
      t.setDaemon(true);
      t.start();
    }

    private void read() {
      try {
        String text = Files.readString(file).trim();
        if (!text.isEmpty()) {
          offset = Long.parseLong(text);
        }
      } catch (java.io.IOException | NumberFormatException e) {
        // not written yet, or being replaced: keep the last offset
      }
    }

    @Override
    public long currentTimeMillis() {
      return GeneClock.system().currentTimeMillis() + offset;
    }

    @Override
    public String toString() {
      return "OffsetClock[" + offset + " ms]";
    }
  }
}
