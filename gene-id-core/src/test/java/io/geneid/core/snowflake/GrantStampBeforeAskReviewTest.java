package io.geneid.core.snowflake;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerLease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review w39r2 of #39 (grant stamp). docs/leases.md invites an assigner of one's own to return
 * {@code lease.grantSentAt(sendNanos)} and says that without it "the TTL counts from the call to acquire, the safe
 * side". {@code LeaseKeeper.grantSent} trusts the stamp only inside [ask, answer]; a stamp <em>before</em> the ask
 * (an assigner that hands out a lease it was granted ahead of the call: a warm spare for a fast start or failover,
 * a lease granted by a call that timed out and was adopted on the next) is replaced by the ask, a <em>later</em>
 * time. The keeper then measures the pause between the grant and the first renewal short, and the #39 scenario 1
 * (a store restored from a copy that still holds the old grant) repeats ids again. The safe side is the earlier of
 * the two, as long as the stamp is not after the answer.
 *
 * <p>Same hand-driven time and model store as {@link FirstRenewalAfterGrantTest}.
 */
class GrantStampBeforeAskReviewTest {

  private static final Duration TTL = Duration.ofSeconds(1);
  private static final long BORROW = 10;
  private static final java.util.concurrent.atomic.AtomicInteger EPOCHS = new java.util.concurrent.atomic.AtomicInteger();

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final long wallBase = System.currentTimeMillis();
  private final GeneClock clock = () -> {
    nanos.addAndGet(10_000);
    return millis();
  };
  private final ModelLeaseStore store = new ModelLeaseStore("stamp-before-ask" + ThreadLocalRandom.current()
      .nextInt(1 << 30), 0, 0, TTL, this::millis, nanos::get);
  private final List<LeasedGeneGenerator> open = new ArrayList<>();

  private long millis() {
    return wallBase + (nanos.get() - 1_000_000_000L) / 1_000_000L;
  }

  private LeasedGeneGenerator generator(WorkerIdAssigner assigner) {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(GeneIdLayout.DEFAULT_EPOCH.minus(Duration.ofDays(
        2_000 + EPOCHS.incrementAndGet() % 2_000 + ThreadLocalRandom.current().nextInt(500) * 2))).build();
    LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(assigner).layout(layout).clock(clock)
        .maxBorrowMillis(BORROW).storeWait(Duration.ZERO).nanoTime(nanos::get).sleep(nanos::addAndGet)
        .manualKeeper().build();
    open.add(g);
    return g;
  }

  @AfterEach
  void close() {
    open.forEach(LeasedGeneGenerator::close);
  }

  /** An assigner of one's own that was granted a lease ahead of the call and hands it out, stamped truthfully. */
  private static final class WarmSpare implements WorkerIdAssigner {
    private final WorkerIdAssigner delegate;
    private WorkerLease spare;

    WarmSpare(WorkerIdAssigner delegate) {
      this.delegate = delegate;
    }

    void prefetch() {
      spare = delegate.acquire(255, Duration.ofMillis(BORROW)); // stamped by the model store with its send
    }

    @Override
    public String space() {
      return delegate.space();
    }

    @Override
    public Duration ttl() {
      return delegate.ttl();
    }

    @Override
    public boolean vouchesForHistory() {
      return delegate.vouchesForHistory();
    }

    @Override
    public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
      WorkerLease s = spare;
      spare = null;
      return s != null ? s : delegate.acquire(layoutMaxWorkerId, borrowSlack);
    }

    @Override
    public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
      return delegate.renew(lease, highWaterMark);
    }

    @Override
    public void release(WorkerLease lease, Instant highWaterMark) {
      delegate.release(lease, highWaterMark);
    }
  }

  @Test
  void aGrantStampedBeforeTheAskIsCountedFromTheStamp() {
    store.vouches = false; // JDBC, ZooKeeper, etcd
    WarmSpare a = new WarmSpare(store.holder("a", Duration.ZERO));
    a.prefetch(); // granted worker id 0 at t0, stamped t0
    long stamp = nanos.get();
    Object withA = store.snapshot(); // A's row, A's token
    nanos.addAndGet(TTL.multipliedBy(2).toNanos()); // A's process does not ask yet: the spare's TTL runs out
    LeasedGeneGenerator b = generator(store.holder("b", Duration.ZERO)); // granted 0, waits, issues
    assertThat(b.workerId()).isZero();
    b.nextId(0);
    store.rollBackSilently(withA); // the old row comes back (a restore, a lagging standby promoted)
    LeasedGeneGenerator ga = generator(a); // handed the spare: 3 TTLs after its grant's send
    Set<List<Long>> ofB = new HashSet<>();
    List<List<Long>> ofA = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      try {
        ofB.add(key(b, b.nextId(0)));
      } catch (GeneIdException e) {
        // B fenced
      }
      ofA.add(key(ga, ga.nextId(0)));
    }
    long repeats = ofA.stream().filter(ofB::contains).count();
    System.out.println("[w39r2 stamp before ask] spare granted " + (nanos.get() - stamp) / 1_000_000
        + " ms ago; calls " + store.calls + "; A issued " + ofA.size() + ", B " + ofB.size() + ", repeated "
        + repeats);
    assertThat(repeats).as("ids of A equal to ids of B (same worker id, ms, sequence, gene)").isZero();
    assertThat(store.calls).as("A gave back the spare that lapsed before its first renewal").contains("a RELEASE 0");
  }

  private static List<Long> key(LeasedGeneGenerator g, long id) {
    GeneIdParts p = g.layout().decode(id);
    return List.of(p.workerId(), p.timestamp().toEpochMilli(), p.sequence(), p.gene());
  }
}
