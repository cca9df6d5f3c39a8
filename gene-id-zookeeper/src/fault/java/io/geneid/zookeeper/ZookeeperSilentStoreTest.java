package io.geneid.zookeeper;

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
 * Issue #39, scenario 2: a ZooKeeper connection that stays open but goes silent (a proxy that swallows bytes and
 * closes nothing). ZooKeeper's client notices it only after two thirds of the session timeout, and Curator then
 * retries, so before every call was bounded a renewal returned after 37.8 s (session 30 s, TTL 3 s). Now every call
 * is waited for at most the call timeout (a third of the TTL): the renewal, and the keeper, return within it.
 */
class ZookeeperSilentStoreTest {

  /** The TTL the bounds below are measured against, unscaled: {@link Await#until} scales it itself. */
  private static final Duration BASE_TTL = Duration.ofSeconds(3);
  /**
   * 3 s at the tests' time scale: the bounds (a third of the TTL, the TTL) grow with it and stay as strict relative to
   * it, while a busy machine's pauses get the margin the lease rule needs.
   */
  private static final Duration TTL = TestTime.scaled(BASE_TTL);
  /**
   * Far longer than the TTL, and not scaled: closing on the silent connection waits two thirds of it. At least the
   * TTL, as the assigner requires.
   */
  private static final Duration SESSION = TTL.compareTo(Duration.ofSeconds(30)) > 0 ? TTL : Duration.ofSeconds(30);
  private TestZookeeper zk;
  private String space;

  @BeforeEach
  void start() {
    zk = new TestZookeeper();
    space = "s" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  @AfterEach
  void stop() {
    zk.close();
  }

  private ZookeeperWorkerIdAssigner assigner(int port) {
    return ZookeeperWorkerIdAssigner.builder().connectString("127.0.0.1:" + port).basePath("/gene-id-silent")
        .space(space).workerIds(0, 3).ttl(TTL).sessionTimeout(SESSION).acquireTimeout(Duration.ZERO).build();
  }

  /** Runs {@code call} and returns how long it took to return or throw (waiting at most a minute). */
  private static long millisUntilItReturns(Runnable call) throws Exception {
    long started = System.nanoTime();
    CompletableFuture<Void> f = CompletableFuture.runAsync(call);
    try {
      f.handle((v, e) -> null).get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return -1;
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
  }

  @Test
  void aRenewalOnASilentConnectionReturnsWithinAThirdOfTheTtl() throws Exception {
    try (TcpProxy proxy = new TcpProxy("127.0.0.1", zk.port());
        ZookeeperWorkerIdAssigner a = assigner(proxy.port())) {
      WorkerLease lease = a.acquire(255);
      lease = a.renew(lease, Instant.now().plus(TTL));
      WorkerLease held = lease;
      proxy.freeze(); // open, silent, never closed
      CompletableFuture<Throwable> error = new CompletableFuture<>();
      long renewal = millisUntilItReturns(() -> {
        try {
          a.renew(held, Instant.now().plus(TTL));
          error.complete(null);
        } catch (RuntimeException e) {
          error.complete(e);
        }
      });
      long acquire = millisUntilItReturns(() -> {
        try {
          a.acquire(255);
        } catch (RuntimeException e) {
          // refused: what is timed is how long it took
        }
      });
      System.out.println("[zookeeper silent] session " + SESSION.toMillis() + " ms, TTL " + TTL.toMillis()
          + " ms, call timeout " + a.callTimeout().toMillis() + " ms: renewal returned after " + renewal
          + " ms (" + error.getNow(null) + "), acquire after " + acquire + " ms");
      assertThat(renewal).as("ms until the renewal returned (-1: not within a minute)")
          .isBetween(0L, TTL.toMillis() / 3 + TestTime.millis(500));
      assertThat(error.getNow(null)).isInstanceOf(GeneIdException.class).hasMessageContaining("did not answer");
      assertThat(acquire).as("ms until an acquisition returned").isBetween(0L, TTL.toMillis() / 3
          + TestTime.millis(500));
    }
  }

  @Test
  void theKeeperOfAGeneratorGetsItsRenewalErrorWithinTheTtlAndStopsIssuing() throws Exception {
    try (TcpProxy proxy = new TcpProxy("127.0.0.1", zk.port());
        ZookeeperWorkerIdAssigner a = assigner(proxy.port());
        LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(a).build()) {
      g.nextId();
      long frozen = System.nanoTime();
      proxy.freeze();
      // a renewal is due within a third of the TTL and must come back within the call timeout after it
      Await.until(() -> g.lastRenewalError() != null, BASE_TTL, "the keeper's renewal to return with an error");
      long returned = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozen);
      System.out.println("[zookeeper silent] keeper's renewal error " + returned + " ms after the connection went"
          + " silent: " + g.lastRenewalError());
      Await.until(() -> !g.isIssuing(), BASE_TTL, "the generator to fence itself by its deadline");
    }
  }
}
