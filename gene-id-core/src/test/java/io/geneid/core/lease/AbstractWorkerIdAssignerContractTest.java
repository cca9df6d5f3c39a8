package io.geneid.core.lease;

import io.geneid.core.snowflake.LeasedGeneGenerator;

import io.geneid.core.GeneIdException;
import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.snowflake.ClockMovedBackwardsException;
import io.geneid.core.GeneClock;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.testing.TestTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.snowflake.ClockMovedBackwardsException;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link WorkerIdAssigner} backed by a shared store must do, run against the real store by one subclass
 * per backend (the CosId habit): acquire, renew, reclaim after expiry, release on shutdown, exhaustion message, LRU
 * order, concurrent acquisition, lost lease; and, through {@link LeasedGeneGenerator}, the high-water mark, fencing
 * and the move to a fresh worker id after a clock step back.
 */
public abstract class AbstractWorkerIdAssignerContractTest {

  /**
   * The lease TTL of every test here: 1 s times the tests' time scale ({@link TestTime}). The lease rule renews at a
   * third of the TTL and fences a holder whose renewal has not come back within the TTL, so a renewal thread that a
   * busy machine keeps off a core for a whole second loses its lease: a test that asserts it keeps one needs the
   * margin the scale gives. The tests that need a short TTL (the holder cut off, fenced within its TTL) measure
   * against this one, so they stay as strict, relative to the TTL. Whole seconds: etcd grants leases in whole seconds,
   * and a store TTL longer than the generator's moves the forgotten holders' floor past the tests' marks.
   */
  protected static final Duration TTL = TestTime.wholeSeconds(1);

  private final List<String> spaces = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** A new assigner for the pool {@code [min, max]} of {@code space}, talking to the store through {@code port}. */
  protected abstract WorkerIdAssigner assigner(String space, long min, long max, Duration ttl,
      Duration acquireTimeout, String owner, int port);

  /** The store's real port. */
  protected abstract int storePort();

  /** Makes the store hand the worker id to someone else behind the holder's back (another token). */
  protected abstract void takeOver(String space, long workerId);

  /** Prepares a fresh space (e.g. marks it as known to the store); called once per space. */
  protected void prepare(String space) {}

  /** Removes everything the store holds for a space. */
  protected abstract void cleanup(String space);

  protected final String newSpace() {
    String space = "gid_lease_t" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    spaces.add(space);
    prepare(space);
    return space;
  }

  protected final WorkerIdAssigner assigner(String space, long min, long max, String owner) {
    return track(assigner(space, min, max, TTL, Duration.ZERO, owner, storePort()));
  }

  protected final <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    for (String space : spaces) {
      cleanup(space);
    }
  }

  @Test
  void acquireGivesAFreshIdAndRenewalExtendsTheLeaseAndKeepsTheHighestMark() {
    String space = newSpace();
    WorkerIdAssigner a = assigner(space, 0, 3, "alpha");
    WorkerLease lease = a.acquire(255);
    assertThat(lease.workerId()).isEqualTo(0);
    assertThat(lease.space()).isEqualTo(space);
    assertThat(lease.owner()).isEqualTo("alpha");
    assertThat(lease.previousHighWaterMark().toEpochMilli()).isLessThanOrEqualTo(System.currentTimeMillis());

    Instant mark = Instant.ofEpochMilli(System.currentTimeMillis() + 5_000);
    WorkerLease renewed = a.renew(lease, mark);
    assertThat(renewed.highWaterMark()).isEqualTo(mark);
    assertThat(renewed.expiresAt()).isAfterOrEqualTo(lease.expiresAt());
    assertThat(renewed.token()).isEqualTo(lease.token());
    // a lower mark never lowers the recorded one
    assertThat(a.renew(renewed, mark.minusSeconds(60)).highWaterMark()).isEqualTo(mark);
  }

  @Test
  void anExpiredLeaseIsReclaimedWithItsMarkAndItsOldHolderIsRefused() {
    String space = newSpace();
    WorkerIdAssigner old = assigner(space, 0, 0, "old");
    WorkerLease lease = old.acquire(255);
    // beyond the takeover time + borrowing bound (a grant's previous mark is at least store now + borrowSlack), so
    // the recorded mark is what the next holder gets
    // 1.777 TTLs: the next holder polls every TTL / 10 while it waits, so the margin grows with the TTL
    Instant mark = Instant.ofEpochMilli(System.currentTimeMillis() + TTL.toMillis() * 1_777 / 1_000);
    old.renew(lease, mark);

    WorkerIdAssigner next = track(assigner(space, 0, 0, TTL, TTL.multipliedBy(4), "next", storePort()));
    long started = System.nanoTime();
    WorkerLease taken = next.acquire(255); // waits for the old lease to expire
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(TTL.dividedBy(2));
    assertThat(taken.workerId()).isEqualTo(0);
    assertThat(taken.previousHighWaterMark()).isEqualTo(mark);
    assertThat(taken.token()).isNotEqualTo(lease.token());

    assertThatThrownBy(() -> old.renew(lease, mark))
        .isInstanceOf(WorkerLeaseLostException.class)
        .hasMessageStartingWith("worker id 0 of space '" + space + "' is no longer leased under token "
            + lease.token());
    old.release(lease, Instant.EPOCH); // a lost lease is not released: the new holder keeps it
    assertThat(next.renew(taken, Instant.EPOCH).highWaterMark()).isEqualTo(mark);
  }

  @Test
  void closingAGeneratorReleasesTheLeaseWithItsExactMark() {
    String space = newSpace();
    Set<Long> ids = new HashSet<>();
    Instant exact;
    try (LeasedGeneGenerator g = generator(assigner(space, 0, 0, "first"), GeneClock.system())) {
      for (int i = 0; i < 20_000; i++) {
        ids.add(g.nextId());
      }
      exact = g.highWaterMark();
      // while it runs, the store holds a mark ahead of what it issued
      assertThat(g.lease().orElseThrow().highWaterMark()).isAfter(exact);
    }
    WorkerLease after = assigner(space, 0, 0, "second").acquire(255); // free at once: no waiting for expiry
    assertThat(after.workerId()).isEqualTo(0);
    assertThat(after.previousHighWaterMark()).isEqualTo(exact);
    assertThat(ids).hasSize(20_000);
  }

  @Test
  void exhaustionNamesThePoolSizeAndTheHolders() {
    String space = newSpace();
    assigner(space, 4, 5, "alpha").acquire(255);
    assigner(space, 4, 5, "beta").acquire(255);
    assertThatThrownBy(() -> assigner(space, 4, 5, "gamma").acquire(255))
        .isInstanceOf(WorkerIdExhaustedException.class)
        .hasMessageStartingWith("no free worker id in space '" + space + "': all 2 worker ids of the pool [4, 5] "
            + "are taken")
        .hasMessageContaining("holders: 4 by alpha until ")
        .hasMessageContaining(", 5 by beta until ")
        .hasMessageEndingWith(". Stop a process, widen the pool (worker-id-min/worker-id-max, worker bits) or use "
            + "another space.")
        .satisfies(e -> assertThat(((WorkerIdExhaustedException) e).poolSize()).isEqualTo(2));
  }

  @Test
  void theLeastRecentlyUsedFreeIdComesFirst() throws Exception {
    String space = newSpace();
    WorkerIdAssigner a = assigner(space, 0, 2, "lru");
    WorkerLease l0 = a.acquire(255);
    WorkerLease l1 = a.acquire(255);
    WorkerLease l2 = a.acquire(255);
    assertThat(List.of(l0.workerId(), l1.workerId(), l2.workerId())).containsExactly(0L, 1L, 2L);
    a.release(l1, Instant.EPOCH);
    TimeUnit.MILLISECONDS.sleep(5); // store time has millisecond resolution
    a.release(l2, Instant.EPOCH);
    TimeUnit.MILLISECONDS.sleep(5);
    a.release(l0, Instant.EPOCH);
    TimeUnit.MILLISECONDS.sleep(5);
    assertThat(a.acquire(255).workerId()).isEqualTo(1);
    assertThat(a.acquire(255).workerId()).isEqualTo(2);
    assertThat(a.acquire(255).workerId()).isEqualTo(0);
  }

  @Test
  void concurrentAcquisitionsGetDistinctIds() throws Exception {
    String space = newSpace();
    int n = 12;
    List<WorkerIdAssigner> assigners = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      assigners.add(assigner(space, 0, n - 1, "c" + i));
    }
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<WorkerLease>> futures = new ArrayList<>();
      for (WorkerIdAssigner a : assigners) {
        futures.add(pool.submit(() -> {
          go.await();
          return a.acquire(255);
        }));
      }
      go.countDown();
      Set<Long> ids = new HashSet<>();
      for (Future<WorkerLease> f : futures) {
        ids.add(f.get(30, TimeUnit.SECONDS).workerId());
      }
      assertThat(ids).hasSize(n).allMatch(id -> id >= 0 && id < n);
      assertThatThrownBy(() -> assigners.get(0).acquire(255)).isInstanceOf(WorkerIdExhaustedException.class);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aLeaseTakenOverIsLostAtRenewalAndTheGeneratorFencesAndMovesOn() {
    String space = newSpace();
    WorkerIdAssigner a = assigner(space, 0, 3, "victim");
    try (LeasedGeneGenerator g = generator(a, GeneClock.system())) {
      long before = g.workerId();
      Set<Long> ids = new HashSet<>();
      for (int i = 0; i < 1_000; i++) {
        ids.add(g.nextId());
      }
      takeOver(space, before);
      assertThatThrownBy(() -> a.renew(g.lease().orElseThrow(), Instant.EPOCH)).isInstanceOf(WorkerLeaseLostException.class);
      Await.until(() -> g.leasesLost() == 1 && g.isIssuing(), Duration.ofSeconds(5), "a new lease after the lost one");
      assertThat(g.workerId()).isNotEqualTo(before);
      for (int i = 0; i < 1_000; i++) {
        long id = g.nextId();
        assertThat(ids.add(id)).isTrue();
        assertThat(g.layout().decode(id).workerId()).isEqualTo(g.workerId());
      }
    }
  }

  @Test
  void aNewHolderNeverIssuesAtOrBelowThePreviousHoldersMark() {
    String space = newSpace();
    WorkerIdAssigner old = assigner(space, 0, 0, "old");
    WorkerLease lease = old.acquire(255);
    // the old holder's clock ran 600 ms ahead of the next holder's: its mark is in the next holder's future
    long mark = System.currentTimeMillis() + 600;
    old.renew(lease, Instant.ofEpochMilli(mark));
    old.release(lease, Instant.ofEpochMilli(mark));
    try (LeasedGeneGenerator g = generator(assigner(space, 0, 0, "new"), GeneClock.system())) {
      assertThat(g.lease().orElseThrow().previousHighWaterMark().toEpochMilli()).isEqualTo(mark);
      for (int i = 0; i < 5_000; i++) {
        long id = g.nextId(i & 3);
        assertThat(g.layout().decode(id).timestamp().toEpochMilli()).isGreaterThan(mark);
      }
    }
  }

  @Test
  void aMarkFarAheadOfTheClockIsRefusedNotIssuedBelow() {
    String space = newSpace();
    WorkerIdAssigner old = assigner(space, 0, 0, "old");
    WorkerLease lease = old.acquire(255);
    long mark = System.currentTimeMillis() + 60_000;
    old.renew(lease, Instant.ofEpochMilli(mark));
    old.release(lease, Instant.ofEpochMilli(mark));
    assertThatThrownBy(() -> generator(assigner(space, 0, 0, "behind"), GeneClock.system()))
        .isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("the high-water marks of worker ids 0 (mark " + Instant.ofEpochMilli(mark)
            + ") of space '" + space + "' are more than 1010 ms ahead of this generator's clock");
  }

  @Test
  void aHolderThatCannotRenewStopsIssuingWithinItsTtl() throws Exception {
    String space = newSpace();
    TcpProxy proxy = track(new TcpProxy("127.0.0.1", storePort()));
    WorkerIdAssigner a = track(assigner(space, 0, 3, TTL, TTL, "cut-off", proxy.port()));
    try (LeasedGeneGenerator g = generator(a, GeneClock.system())) {
      long workerId = g.workerId();
      g.nextId();
      long cut = System.nanoTime();
      proxy.stop(); // the store vanishes
      Throwable fenced = null;
      long count = 0;
      long lastIssuedCallStart = cut;
      while (fenced == null && System.nanoTime() - cut < TTL.multipliedBy(5).toNanos()) {
        long callStart = System.nanoTime();
        try {
          g.nextId();
          count++;
          lastIssuedCallStart = callStart;
        } catch (WorkerLeaseLostException e) {
          fenced = e;
        }
      }
      assertThat(fenced).as("fenced after %d ids", count).isNotNull();
      // no id came from a call that started later than one TTL after the store vanished
      assertThat((lastIssuedCallStart - cut) / 1_000_000).isLessThan(TTL.toMillis());
      assertThat(fenced.getMessage())
          .startsWith("worker id " + workerId + " of space '" + space + "' issues no ids: its lease lapsed at ")
          .contains("so another process may hold it now; last renewal error: ");
      assertThat(((WorkerLeaseLostException) fenced).workerId()).isEqualTo(workerId);
      // and it keeps refusing
      assertThatThrownBy(g::nextId).isInstanceOf(WorkerLeaseLostException.class);
      assertThat(g.isIssuing()).isFalse();
    }
  }

  @Test
  void aClockStepBackBeyondThePolicyMovesToAFreshWorkerIdIfTheStoreVouches() {
    String space = newSpace();
    AtomicLong offset = new AtomicLong();
    GeneClock steppable = () -> System.currentTimeMillis() + offset.get();
    WorkerIdAssigner a = assigner(space, 0, 3, "stepper");
    try (LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(a).clock(steppable)
        .clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).build()) {
      long first = g.workerId();
      Set<Long> ids = new HashSet<>();
      for (int i = 0; i < 5_000; i++) {
        ids.add(g.nextId(i & 7));
      }
      Instant firstMark = g.highWaterMark();
      offset.set(-5_000); // the wall clock steps back five seconds
      if (!a.vouchesForHistory()) {
        // a fresh worker id would wait TTL + 2 s by the store's clock, longer than this clock needs to catch up: the
        // generator stays on its worker id and refuses until the clock is back past its last id
        assertThatThrownBy(() -> g.nextId(0)).isInstanceOf(ClockMovedBackwardsException.class)
            .satisfies(e -> assertThat(e.getSuppressed()[0]).hasMessageContaining("cannot vouch for its history"));
        offset.set(0);
        for (int i = 0; i < 5_000; i++) {
          assertThat(ids.add(g.nextId(i & 7))).isTrue();
        }
        assertThat(g.workerId()).isEqualTo(first);
        assertThat(g.workerSwitches()).isZero();
        return;
      }
      for (int i = 0; i < 5_000; i++) {
        assertThat(ids.add(g.nextId(i & 7))).isTrue();
      }
      assertThat(g.workerId()).isNotEqualTo(first);
      assertThat(g.workerSwitches()).isEqualTo(1);
      assertThat(ids).hasSize(10_000);
      // the old worker id went back to the pool with the mark it reached
      WorkerLease back = assigner(space, first, first, "checker").acquire(255);
      assertThat(back.previousHighWaterMark()).isEqualTo(firstMark);
    }
  }

  protected final LeasedGeneGenerator generator(WorkerIdAssigner assigner, GeneClock clock) {
    return LeasedGeneGenerator.builder().assigner(assigner).clock(clock).build();
  }


}
