package io.geneid.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdException;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.IdIssuers;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * etcd breaking while leased generators issue ids: keep-alives that fail past the TTL (the holder cut off while
 * another holder takes its worker id), and the etcd process stopped and started again. Each counts ids and duplicates
 * across every generator.
 */
class EtcdLeaseFaultTest {

  private static final String PREFIX = "/gene-id-fault";
  /** 1 s at the tests' time scale: a busy machine's pauses must not lapse a lease the test means to keep. */
  private static final Duration TTL = TestTime.seconds(1);
  private PrivateEtcd etcd;
  private String space;

  @BeforeEach
  void start() {
    etcd = PrivateEtcd.start();
    space = "f" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  @AfterEach
  void stop() {
    etcd.close();
  }

  private EtcdWorkerIdAssigner assigner(int port, String owner) {
    return EtcdWorkerIdAssigner.builder().endpoints("http://127.0.0.1:" + port).keyPrefix(PREFIX).space(space)
        .workerIds(0, 1).ttl(TTL).acquireTimeout(Duration.ZERO).owner(owner).build();
  }

  @Test
  void keepAlivesFailingPastTheTtlLoseTheWorkerIdToAnotherHolderWithoutADuplicate() throws Exception {
    try (TcpProxy proxy = new TcpProxy("127.0.0.1", etcd.port());
        EtcdWorkerIdAssigner aa = assigner(proxy.port(), "cut-off");
        EtcdWorkerIdAssigner ba = assigner(etcd.port(), "steady");
        EtcdWorkerIdAssigner ca = assigner(etcd.port(), "taker");
        LeasedGeneGenerator a = LeasedGeneGenerator.builder().assigner(aa).build();
        LeasedGeneGenerator b = LeasedGeneGenerator.builder().assigner(ba).build();
        IdIssuers issuers = new IdIssuers()) {
      long aId = a.workerId();
      IdIssuers.Issuer ai = issuers.start("A", a);
      IdIssuers.Issuer bi = issuers.start("B", b);
      Await.until(() -> ai.issued.get() > 1_000 && bi.issued.get() > 1_000, Duration.ofSeconds(10), "ids before");
      issuers.fault();
      proxy.freeze(); // A's keep-alives vanish without an answer: packets dropped, no reset
      Await.until(() -> !a.isIssuing(), Duration.ofSeconds(5), "A fenced by its deadline");
      // etcd expires A's etcd lease and deletes its claim; then another process may take A's worker id (in this JVM
      // A still holds it, so the taker is a bare assigner, as a generator in another JVM would use it)
      WorkerLease taken;
      long started = System.nanoTime();
      for (;;) {
        try {
          taken = ca.acquire(255);
          break;
        } catch (GeneIdException e) { // not free yet, or the store busy a moment
          assertThat(System.nanoTime() - started).isLessThan(TestTime.seconds(15).toNanos());
          Thread.sleep(50);
        }
      }
      assertThat(taken.workerId()).isEqualTo(aId);
      assertThat(taken.previousHighWaterMark()).isAfter(a.highWaterMark()); // A recorded its mark ahead of use
      Instant takersMark = taken.previousHighWaterMark().plusMillis(300);
      AtomicReference<WorkerLease> held = new AtomicReference<>(ca.renew(taken, takersMark));
      ScheduledExecutorService taker = Executors.newSingleThreadScheduledExecutor(); // renews as its own JVM would
      taker.scheduleWithFixedDelay(() -> held.set(ca.renew(held.get(), takersMark)), 200, 200, TimeUnit.MILLISECONDS);
      proxy.start(); // A reaches etcd again: its etcd lease is gone and the pool is full
      // A's lease is refused at its renewal, or given back as lapsed (a store that cannot vouch for its history never
      // revives a lapsed lease); either way A leases again and finds the pool full
      Await.until(() -> a.lastRenewalError() instanceof WorkerIdExhaustedException, Duration.ofSeconds(10),
          "A back at the store, finding the pool full");
      assertThat(a.isIssuing()).isFalse();
      taker.shutdown();
      assertThat(taker.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
      taken = held.get();
      ca.release(taken, takersMark);
      Await.until(a::isIssuing, Duration.ofSeconds(10), "A leasing again");
      assertThat(a.workerId()).isEqualTo(aId);
      // the taker's exact mark, or above it if that lease lapsed while waiting out forgotten holders (a loaded
      // machine, TTL 1 s) and A leased its worker id once more
      assertThat(a.lease().orElseThrow().previousHighWaterMark()).isAfterOrEqualTo(takersMark);
      long after = ai.issued.get();
      Await.until(() -> ai.issued.get() > after + 1_000, Duration.ofSeconds(10), "ids from A again");
      issuers.close();
      System.out.println(issuers.report("etcd keep-alives failing, worker id taken over"));
      assertThat(issuers.duplicates()).isZero();
      assertThat(a.stats().fencings()).isGreaterThanOrEqualTo(1);
      assertThat(b.stats().fencings()).isZero();
    }
  }

  @Test
  void etcdStoppedAndStartedAgainFencesEveryoneAndAllResume() throws Exception {
    try (EtcdWorkerIdAssigner aa = assigner(etcd.port(), "A");
        EtcdWorkerIdAssigner ba = assigner(etcd.port(), "B");
        LeasedGeneGenerator a = LeasedGeneGenerator.builder().assigner(aa).build();
        LeasedGeneGenerator b = LeasedGeneGenerator.builder().assigner(ba).build();
        IdIssuers issuers = new IdIssuers()) {
      IdIssuers.Issuer ai = issuers.start("A", a);
      IdIssuers.Issuer bi = issuers.start("B", b);
      Await.until(() -> ai.issued.get() > 1_000 && bi.issued.get() > 1_000, Duration.ofSeconds(10), "ids before");
      issuers.fault();
      etcd.stopProcess(false);
      Await.until(() -> !a.isIssuing() && !b.isIssuing(), Duration.ofSeconds(5), "both fenced");
      long aBefore = ai.issued.get();
      long bBefore = bi.issued.get();
      etcd.startProcess();
      Await.until(() -> ai.issued.get() > aBefore + 1_000 && bi.issued.get() > bBefore + 1_000,
          Duration.ofSeconds(20), "both issuing again");
      issuers.close();
      System.out.println(issuers.report("etcd stopped and restarted"));
      assertThat(issuers.duplicates()).isZero();
      assertThat(a.stats().fencings()).isGreaterThanOrEqualTo(1);
      assertThat(b.stats().fencings()).isGreaterThanOrEqualTo(1);
      assertThat(a.workerId()).isNotEqualTo(b.workerId());
    }
  }
}
