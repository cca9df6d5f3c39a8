package io.geneid.core.snowflake;

import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkerIdAssigner#onLeaseDoubt}: an assigner that learns between renewals that its leases may be gone (a
 * ZooKeeper session suspended) stops the generator at once, and only a renewal sent after the doubt revives it. Driven
 * by hand: a manual keeper and a manual monotonic clock, over the in-memory model store.
 */
class LeaseDoubtTest {

  private static final Duration TTL = Duration.ofSeconds(10);

  /** A model-store holder that can raise doubts, as the ZooKeeper assigner does on SUSPENDED. */
  private static final class Doubting implements WorkerIdAssigner {
    final ModelLeaseStore.Holder holder;
    final AtomicReference<Consumer<String>> listener = new AtomicReference<>();

    Doubting(ModelLeaseStore.Holder holder) {
      this.holder = holder;
    }

    @Override
    public String space() {
      return holder.space();
    }

    @Override
    public Duration ttl() {
      return holder.ttl();
    }

    @Override
    public boolean vouchesForHistory() {
      return holder.vouchesForHistory();
    }

    @Override
    public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
      return holder.acquire(layoutMaxWorkerId, borrowSlack);
    }

    @Override
    public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
      return holder.renew(lease, highWaterMark);
    }

    @Override
    public void release(WorkerLease lease, Instant highWaterMark) {
      holder.release(lease, highWaterMark);
    }

    @Override
    public Runnable onLeaseDoubt(Consumer<String> l) {
      listener.set(l);
      return () -> listener.compareAndSet(l, null);
    }

    void doubt(String why) {
      Consumer<String> l = listener.get();
      assertThat(l).as("a generator subscribed").isNotNull();
      l.accept(why);
    }
  }

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ModelLeaseStore store = new ModelLeaseStore("doubt", 0, 3, TTL, GeneClock.system(), nanos::get);

  private LeasedGeneGenerator generator(Doubting a) {
    return LeasedGeneGenerator.builder().assigner(a).manualKeeper().nanoTime(nanos::get).build();
  }

  @Test
  void aDoubtStopsIssuingAtOnceAndARenewalAfterItResumesTheSameLease() {
    Doubting a = new Doubting(store.holder("zk", Duration.ZERO));
    try (LeasedGeneGenerator g = generator(a)) {
      long workerId = g.workerId();
      g.nextId();
      a.doubt("the connection was suspended");
      assertThat(g.isIssuing()).isFalse(); // long before its deadline (TTL less 5 %)
      assertThatThrownBy(g::nextId)
          .isInstanceOf(WorkerLeaseLostException.class)
          .hasMessageStartingWith("worker id " + workerId + " of space 'doubt' issues no ids: its lease lapsed at ")
          .hasMessageContaining("the lease store reports the lease in doubt until a renewal verifies it: the "
              + "connection was suspended");
      assertThat(g.stats().fencings()).isEqualTo(1);

      store.renewFailure = new GeneIdException("not connected"); // still suspended: renewals fail
      g.tick();
      assertThat(g.isIssuing()).isFalse();

      store.renewFailure = null; // reconnected: the next renewal verifies the lease
      g.tick();
      assertThat(g.isIssuing()).isTrue();
      assertThat(g.workerId()).isEqualTo(workerId);
      assertThat(g.leasesLost()).isZero();
      g.nextId();
    }
    assertThat(a.listener.get()).as("unsubscribed at close").isNull();
  }

  @Test
  void aRenewalInFlightWhenTheDoubtComesDoesNotReviveTheLease() throws Exception {
    Doubting a = new Doubting(store.holder("zk", Duration.ZERO));
    try (LeasedGeneGenerator g = generator(a)) {
      nanos.addAndGet(TTL.dividedBy(3).toNanos()); // a renewal is due
      store.hang(ModelLeaseStore.Op.RENEW);
      Thread keeper = new Thread(g::tick);
      keeper.start();
      while (store.inFlight.get() == 0) {
        Thread.onSpinWait();
      }
      a.doubt("suspended while the renewal ran"); // the renewal was sent before the doubt
      store.answer();
      keeper.join(10_000);
      assertThat(g.isIssuing()).as("a renewal sent before the doubt verifies nothing").isFalse();
      g.tick(); // one sent after it
      assertThat(g.isIssuing()).isTrue();
    }
  }
}
