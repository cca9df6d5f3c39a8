package io.geneid.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue #39: every lease store call has a bound no larger than the lease allows, shown for etcd as
 * {@code ZookeeperSilentStoreTest} and {@code RedisSilentLeaseStoreTest} show it for theirs. A private etcd behind a
 * proxy whose open connection goes silent (bytes swallowed, nothing closed, no reset: gRPC sees a healthy channel
 * until its keep-alive, 10 s, gives up): a renewal and an acquisition each return within the call timeout (a third of
 * the TTL). With new connections silent too (a black hole), a generator's keeper gets its renewal error within the
 * TTL and fences itself.
 */
class EtcdSilentStoreTest {

  /** 3 s at the tests' time scale. */
  private static final Duration TTL = TestTime.seconds(3);
  /** The assigner's default call timeout: a third of the TTL, in [100 ms, 5 s]. */
  private static final long CALL_TIMEOUT_MS = Math.max(100, Math.min(TTL.toMillis() / 3, 5_000));
  /** What a call may take beyond its timeout here: the future's cancel, a busy machine. */
  private static final long SLACK_MS = TestTime.millis(500);
  private PrivateEtcd etcd;
  private String space;

  @BeforeEach
  void start() {
    etcd = PrivateEtcd.start();
    space = "s" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  @AfterEach
  void stop() {
    etcd.close();
  }

  private EtcdWorkerIdAssigner assigner(int port) {
    return EtcdWorkerIdAssigner.builder().endpoints("http://127.0.0.1:" + port).keyPrefix("/gene-id-silent")
        .space(space).workerIds(0, 3).ttl(TTL).acquireTimeout(Duration.ZERO).build();
  }

  /** Runs {@code call} and returns how long it took to return or throw, and what it threw (-1: not in a minute). */
  private static Timed time(Runnable call) throws Exception {
    long started = System.nanoTime();
    CompletableFuture<Throwable> f = CompletableFuture.supplyAsync(() -> {
      try {
        call.run();
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    });
    try {
      Throwable e = f.get(60, TimeUnit.SECONDS);
      return new Timed(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), e);
    } catch (java.util.concurrent.TimeoutException e) {
      return new Timed(-1, null);
    }
  }

  private record Timed(long millis, Throwable error) {}

  @Test
  void aRenewalAndAnAcquisitionOnASilentConnectionReturnWithinTheCallTimeout() throws Exception {
    try (TcpProxy proxy = new TcpProxy("127.0.0.1", etcd.port());
        EtcdWorkerIdAssigner a = assigner(proxy.port())) {
      WorkerLease lease = a.acquire(255);
      lease = a.renew(lease, Instant.now().plus(TTL));
      WorkerLease held = lease;
      proxy.freeze(); // open, silent, never closed
      Timed renewal = time(() -> a.renew(held, Instant.now().plus(TTL)));
      Timed acquire = time(() -> a.acquire(255));
      System.out.println("[etcd silent] TTL " + TTL.toMillis() + " ms, call timeout " + CALL_TIMEOUT_MS
          + " ms: renewal returned after " + renewal.millis() + " ms (" + renewal.error() + "), acquire after "
          + acquire.millis() + " ms (" + acquire.error() + ")");
      assertThat(renewal.millis()).as("ms until the renewal returned (-1: not within a minute)")
          .isBetween(0L, CALL_TIMEOUT_MS + SLACK_MS);
      assertThat(renewal.error()).isInstanceOf(GeneIdException.class).hasMessageContaining("did not answer within "
          + CALL_TIMEOUT_MS + " ms");
      assertThat(acquire.millis()).as("ms until an acquisition returned").isBetween(0L, CALL_TIMEOUT_MS + SLACK_MS);
      assertThat(acquire.error()).isInstanceOf(GeneIdException.class);
    }
  }

  @Test
  void theKeeperOfAGeneratorGetsItsRenewalErrorWithinTheTtlAndStopsIssuing() throws Exception {
    try (TcpProxy proxy = new TcpProxy("127.0.0.1", etcd.port());
        EtcdWorkerIdAssigner a = assigner(proxy.port());
        LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(a).build()) {
      Await.until(g::isIssuing, TTL.multipliedBy(4), "the first lease's wait for forgotten holders");
      g.nextId();
      long frozen = System.nanoTime();
      // new connections silent too: with freeze() alone gRPC's keep-alive (10 s + the call timeout) drops the frozen
      // connection and reconnects through the proxy, which at a large time scale heals the lease before its deadline
      proxy.blackHole();
      // a renewal is due within a third of the TTL and must come back within the call timeout after it
      Await.until(() -> g.lastRenewalError() != null, TTL, "the keeper's renewal to return with an error");
      long returned = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozen);
      System.out.println("[etcd silent] keeper's renewal error " + returned + " ms after the connection went silent: "
          + g.lastRenewalError());
      assertThat(g.lastRenewalError()).hasMessageContaining("did not answer within");
      Await.until(() -> !g.isIssuing(), TTL, "the generator to fence itself by its deadline");
    }
  }
}
