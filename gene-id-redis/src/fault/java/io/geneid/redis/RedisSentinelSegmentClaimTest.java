package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: segment ranges claimed on a Sentinel master while its one replica cannot have them, then a failover to
 * that replica. Two processes issue segment ids from the start (each a store over a client of its own, as two JVMs
 * would be); a third starts while the replica is cut off, the master is killed, the replica promoted. Before the fix
 * the third process skipped {@code WAIT} (it had seen no replica) and the Sentinel check let its claims count, so the
 * promoted replica handed its ranges out again. Every id goes into one set; none may repeat. Each test prints a
 * {@code [sentinel-claims]} line (ids, duplicates, claims refused) and the claim latency of a healthy deployment.
 */
class RedisSentinelSegmentClaimTest {

  private static final String PREFIX = "gid_sentinel_claims";
  private static final String TAG = "order";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /**
   * Case (a): the replica's link is cut (it stays up and the sentinels still list it), a new process starts during
   * the cut and claims, and the master is killed 4 s later: the replica is promoted with what it had before the cut.
   */
  @Test
  void aProcessStartedWhileTheReplicasLinkIsCutNeverGetsRangesHandedOutAgain() throws Exception {
    run("replica's link cut, a new process starts during the cut, master killed 4 s later", (sentinel, master,
        replica) -> sentinel.cutReplicaLink(master), (sentinel, master, replica) -> {
          Thread.sleep(4_000); // the scenario's delay between the new process and the master's death
          sentinel.kill9(master);
        });
  }

  /**
   * Case (b): the replica is frozen ({@code SIGSTOP}) until the sentinels mark it down and the master drops it, a new
   * process starts, the master is killed and the replica resumed: it is promoted before it could resynchronise.
   */
  @Test
  void aProcessStartedWhileTheReplicaIsDownNeverGetsRangesHandedOutAgain() throws Exception {
    run("replica frozen until marked down, a new process starts, master killed, replica resumed and promoted",
        (sentinel, master, replica) -> {
          sentinel.node(master).configSet("repl-timeout", "2"); // the master drops the frozen replica soon
          sentinel.freeze(replica);
          sentinel.awaitReplicaDown(replica, WAIT);
          RedisProcesses.await(() -> "0".equals(sentinel.info(master, "replication", "connected_slaves")), WAIT,
              "the master to drop its frozen replica");
        }, (sentinel, master, replica) -> {
          Thread.sleep(2_000); // the new process claims for a while
          sentinel.kill9(master);
          sentinel.thaw(replica);
        });
  }

  @FunctionalInterface
  private interface Step {
    void apply(PrivateSentinel sentinel, int master, int replica) throws Exception;
  }

  private void run(String fault, Step cut, Step failover) throws Exception {
    try (PrivateSentinel sentinel = PrivateSentinel.start(dir)) {
      int master = sentinel.masterPort();
      int replica = sentinel.other(master);
      sentinel.awaitSynchronisedReplica(master, WAIT);
      String latency = claimLatency(sentinel);
      Set<Long> ids = ConcurrentHashMap.newKeySet();
      List<Worker> processes = new ArrayList<>();
      try {
        processes.add(new Worker("old-1", sentinel, ids));
        processes.add(new Worker("old-2", sentinel, ids));
        RedisProcesses.await(() -> processes.stream().allMatch(p -> p.claims.get() > 5), WAIT, "claims before the "
            + "fault");
        cut.apply(sentinel, master, replica);
        Worker fresh = new Worker("new", sentinel, ids);
        processes.add(fresh);
        RedisProcesses.await(() -> fresh.claims.get() + fresh.refused.get() > 3, WAIT,
            "the new process to claim or be refused");
        failover.apply(sentinel, master, replica);
        sentinel.awaitMasterOtherThan(master, WAIT);
        long claimsAtFailover = processes.stream().mapToLong(p -> p.claims.get()).sum();
        // the processes run on the promoted replica, alone (the old master is dead), as a deployment would until an
        // operator brings the old master back
        Thread.sleep(3_000);
        long claimsAlone = processes.stream().mapToLong(p -> p.claims.get()).sum() - claimsAtFailover;
        // the old master comes back, empty, as a replica of the new one: the deployment is whole again
        sentinel.restartAsReplica(master, replica, WAIT);
        for (Worker p : processes) {
          p.issuer.mark();
        }
        RedisProcesses.await(() -> processes.stream().allMatch(p -> p.issuer.issuedSinceMark(500)), WAIT,
            "every process to issue again");
        long claimsAfter = processes.stream().mapToLong(p -> p.claims.get()).sum() - claimsAtFailover;
        for (Worker p : processes) {
          p.close();
        }
        long issued = processes.stream().mapToLong(p -> p.issuer.issued()).sum();
        long duplicates = processes.stream().mapToLong(p -> p.issuer.duplicates()).sum();
        StringBuilder b = new StringBuilder(String.format("[sentinel-claims] %s: %,d segment ids, %d duplicates;",
            fault, issued, duplicates));
        for (Worker p : processes) {
          b.append(String.format(" %s %,d ids, %d claims, %d refused;", p.name, p.issuer.issued(), p.claims.get(),
              p.refused.get()));
          System.out.println("[sentinel-claims] " + p.name + " refused because: " + p.reasons);
        }
        System.out.println(b + " claims on the promoted replica alone " + claimsAlone + ", after the old master's return "
            + (claimsAfter - claimsAlone) + "; healthy claim latency " + latency);
        assertThat(duplicates).as("segment ids issued twice over all processes").isZero();
      } finally {
        for (Worker p : processes) {
          p.close();
        }
      }
    }
  }

  /** 300 claims on the healthy deployment, one at a time: the median, 99th percentile and mean, in µs. */
  private static String claimLatency(PrivateSentinel sentinel) {
    try (RedisSegmentStore store = store(sentinel)) {
      long[] micros = new long[300];
      for (int i = -50; i < micros.length; i++) {
        long t = System.nanoTime();
        store.nextSegment("latency", 100);
        if (i >= 0) {
          micros[i] = (System.nanoTime() - t) / 1_000;
        }
      }
      Arrays.sort(micros);
      return String.format("p50 %d µs, p99 %d µs, mean %d µs", micros[150], micros[296],
          Arrays.stream(micros).sum() / micros.length);
    }
  }

  private static RedisSegmentStore store(PrivateSentinel sentinel) {
    return RedisSegmentStore.builder().redisUri(sentinel.uri()).keyPrefix(PREFIX)
        .commandTimeout(Duration.ofMillis(500)).allowWithoutPersistence(true).build();
  }

  /**
   * A process as far as the store can tell: a store over a client of its own, a generator and an issuer. The
   * generator is built by the issuer's thread, again after every failure: its first segment is fetched when it is
   * built, and a process that starts while claims are refused keeps trying, as a service's start would.
   */
  private static final class Worker implements AutoCloseable {
    final String name;
    final AtomicLong claims = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    /** Why claims were refused: each distinct reason once, first words only. */
    final Set<String> reasons = ConcurrentHashMap.newKeySet();
    final RedisSegmentStore store;
    final SegmentStore counting;
    final Issuer issuer;
    private volatile GeneSegmentGenerator generator;
    private boolean closed;

    Worker(String name, PrivateSentinel sentinel, Set<Long> ids) {
      this.name = name;
      this.store = store(sentinel);
      this.counting = (tag, step) -> {
        try {
          Segment s = store.nextSegment(tag, step);
          claims.incrementAndGet();
          return s;
        } catch (RuntimeException e) {
          refused.incrementAndGet();
          String m = String.valueOf(e.getMessage());
          reasons.add(m.substring(Math.max(0, m.indexOf(": ") + 2), Math.min(m.length(), m.indexOf(": ") + 90)));
          throw e;
        }
      };
      this.issuer = new Issuer(name, () -> generator().nextId(), 1, ids);
    }

    private GeneSegmentGenerator generator() {
      GeneSegmentGenerator g = generator;
      if (g == null) {
        g = GeneSegmentGenerator.builder(counting, TAG).minStep(100).maxStep(100)
            .prefetchRetry(Duration.ofMillis(20)).fetchTimeout(Duration.ofSeconds(1)).build();
        generator = g;
      }
      return g;
    }

    @Override
    public void close() throws InterruptedException {
      if (closed) {
        return;
      }
      closed = true;
      issuer.close();
      GeneSegmentGenerator g = generator;
      if (g != null) {
        g.close();
      }
      store.close();
    }
  }
}
