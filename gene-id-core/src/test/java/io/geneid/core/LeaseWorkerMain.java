package io.geneid.core;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

/**
 * One process of the multi-JVM lease test ({@link LeaseMultiJvm}). Runs leased generators one after another until
 * its end time, each for a random 1-3 s, issuing ids as fast as a small batch per millisecond allows and writing
 * every id it got to a file. At the end of a generator's life it closes it (release) or, sometimes, crashes:
 * flushes its files and halts the JVM without releasing anything.
 *
 * <p>Args: properties file, ids file, events file, end time (Unix ms), role ({@code pausable}: never crashes, lives
 * the whole run), random seed. Events (one a line): {@code LEASE id token millis}, {@code RELEASE id token},
 * {@code CRASH id token}, {@code FENCED count}, {@code LOST count}, {@code DONE ids}.
 */
public final class LeaseWorkerMain {

  private LeaseWorkerMain() {}

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    try (Reader r = new FileReader(args[0])) {
      p.load(r);
    }
    Map<String, String> props = new HashMap<>();
    p.forEach((k, v) -> props.put((String) k, (String) v));
    long endAt = Long.parseLong(args[3]);
    boolean pausable = args[4].equals("pausable");
    Random random = new Random(Long.parseLong(args[5]));
    long issued = 0;
    try (DataOutputStream ids = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[1]), 1 << 16));
        PrintWriter events = new PrintWriter(new FileWriter(args[2]), true)) {
      while (System.currentTimeMillis() < endAt) {
        LeasedGeneGenerator g;
        try {
          g = WorkerIdAssigners.generator(props);
        } catch (WorkerIdExhaustedException e) {
          events.println("EXHAUSTED");
          continue;
        }
        long lifeEnd = pausable ? endAt : System.currentTimeMillis() + 1_000 + random.nextInt(2_000);
        long token = -1;
        long workerId = -1;
        long fenced = 0;
        int gene = 0;
        while (System.currentTimeMillis() < Math.min(lifeEnd, endAt)) {
          try {
            for (int k = 0; k < 16; k++) {
              ids.writeLong(g.nextId(gene++ & 3));
              issued++;
            }
          } catch (GeneIdException e) {
            if (fenced++ == 0) {
              events.println("FENCE-MESSAGE " + e.getMessage().replace('\n', ' '));
            }
            Thread.sleep(5);
          }
          if (g.isIssuing()) {
            WorkerLease lease = g.lease();
            if (lease.token() != token) {
              token = lease.token();
              workerId = lease.workerId();
              events.println("LEASE " + workerId + " " + token + " " + System.currentTimeMillis());
            }
          }
          Thread.sleep(1);
        }
        events.println("FENCED " + fenced);
        events.println("LOST " + g.leasesLost());
        if (!pausable && random.nextInt(100) < 35 && System.currentTimeMillis() < endAt - 1_500) {
          ids.flush();
          events.println("CRASH " + workerId + " " + token);
          events.flush();
          Runtime.getRuntime().halt(3); // no release, no shutdown hook: the lease must expire
        }
        boolean held = g.isIssuing();
        g.close();
        if (held) {
          events.println("RELEASE " + workerId + " " + token);
        }
      }
      ids.flush();
      events.println("DONE " + issued);
    } catch (IOException e) {
      e.printStackTrace();
      System.exit(2);
    }
    System.exit(0);
  }
}
