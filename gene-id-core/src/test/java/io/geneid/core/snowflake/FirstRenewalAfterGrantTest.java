package io.geneid.core.snowflake;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue #39, scenario 1: "a lease that lapsed and is renewed is a new grant" holds for the first renewal after a grant
 * too, not only for the renewals of {@link LeaseKeeper}'s loop. Process A is granted worker id 0 of a store that does
 * not vouch for its history and stops right after the grant for two TTLs (a GC pause, a slow reply); B is granted
 * worker id 0, waits out forgotten holders and issues; the store comes back from a copy taken while A held the worker
 * id (A's row, A's token). When A resumes, its first renewal succeeds. Before the fix A issued at once, next to B;
 * now A gives that lease back and leases again, under the wait, by when B has fenced itself.
 *
 * <p>Everything runs on one thread with one hand-driven time ({@code nanos}), so the pause is exact. The two processes
 * use layouts whose epochs differ (one JVM allows one generator per worker id and epoch), and an id of A "repeats"
 * one of B when worker id, timestamp, sequence and gene are all equal: with one epoch they would be the same id.
 */
class FirstRenewalAfterGrantTest {

  private static final Duration TTL = Duration.ofSeconds(1);
  private static final long BORROW = 10;

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final long wallBase = System.currentTimeMillis();
  /** Every reading moves time on by 10 us, so a generator waiting for its clock sees it move. */
  private final GeneClock clock = () -> {
    nanos.addAndGet(10_000);
    return millis();
  };
  private final ModelLeaseStore store = new ModelLeaseStore("first-renewal" + ThreadLocalRandom.current()
      .nextInt(1 << 30), 0, 0, TTL, this::millis, nanos::get);
  private final List<LeasedGeneGenerator> open = new ArrayList<>();
  private static final java.util.concurrent.atomic.AtomicInteger EPOCHS = new java.util.concurrent.atomic.AtomicInteger();

  private long millis() {
    return wallBase + (nanos.get() - 1_000_000_000L) / 1_000_000L;
  }

  private LeasedGeneGenerator generator(String owner) {
    // an epoch of its own per generator: A and B stand for two processes, which one JVM's worker-id claims would
    // otherwise refuse (a random pick of the epoch collided now and then)
    GeneIdLayout layout = GeneIdLayout.builder().epoch(GeneIdLayout.DEFAULT_EPOCH.minus(Duration.ofDays(
        2_000 + EPOCHS.incrementAndGet() % 2_000))).build();
    LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(store.holder(owner, Duration.ZERO)).layout(layout)
        .clock(clock).maxBorrowMillis(BORROW).storeWait(Duration.ZERO).nanoTime(nanos::get).sleep(nanos::addAndGet)
        .manualKeeper().build();
    open.add(g);
    return g;
  }

  @AfterEach
  void close() {
    open.forEach(LeasedGeneGenerator::close);
  }

  /**
   * Arms A's next grant: A stops for two TTLs after it; meanwhile B leases worker id 0, waits and issues a few ids;
   * then the store silently goes back to a copy taken right after A's grant.
   */
  private AtomicReference<LeasedGeneGenerator> pauseAfterNextGrantOf(String owner) {
    AtomicReference<LeasedGeneGenerator> b = new AtomicReference<>();
    store.afterGrant.put(owner, () -> {
      Object withA = store.snapshot(); // A's row, A's token
      nanos.addAndGet(TTL.multipliedBy(2).toNanos()); // A is paused past its TTL
      LeasedGeneGenerator other = generator("b"); // granted worker id 0, waits one TTL + borrow + 2 s
      assertThat(other.workerId()).isZero();
      other.nextId(0);
      b.set(other);
      store.rollBackSilently(withA); // the old row comes back
    });
    return b;
  }

  /**
   * A and B take turns issuing 500 ids each (gene 0), as two processes issuing at once would; returns how many of
   * A's ids repeat one of B's, and asserts nothing else.
   */
  private static int repeatsWhileBothIssue(LeasedGeneGenerator a, LeasedGeneGenerator b, List<String> log) {
    Set<List<Long>> ofB = new HashSet<>();
    List<List<Long>> ofA = new ArrayList<>();
    int bFenced = 0;
    for (int i = 0; i < 500; i++) {
      try {
        ofB.add(key(b, b.nextId(0)));
      } catch (GeneIdException e) {
        bFenced++;
      }
      ofA.add(key(a, a.nextId(0)));
    }
    int repeats = (int) ofA.stream().filter(ofB::contains).count();
    log.add("A issued " + ofA.size() + ", B issued " + ofB.size() + " (refused " + bFenced + "), repeated: "
        + repeats);
    return repeats;
  }

  private static List<Long> key(LeasedGeneGenerator g, long id) {
    GeneIdParts p = g.layout().decode(id);
    return List.of(p.workerId(), p.timestamp().toEpochMilli(), p.sequence(), p.gene());
  }

  @Test
  void aHolderPausedBetweenItsGrantAndItsFirstRenewalLeasesAgainUnderTheWait() {
    store.vouches = false;
    AtomicReference<LeasedGeneGenerator> b = pauseAfterNextGrantOf("a");
    long acquiresBefore = calls("a ACQUIRE");
    LeasedGeneGenerator a = generator("a"); // granted, paused (B leases and issues), store restored, resumes
    assertThat(b.get()).as("B ran during A's pause").isNotNull();
    List<String> log = new ArrayList<>();
    int repeats = repeatsWhileBothIssue(a, b.get(), log);
    System.out.println("[first-renewal] pause after the first grant: " + log);
    assertThat(repeats).as("ids of A equal to ids of B (same worker id, ms, sequence, gene)").isZero();
    assertThat(store.calls).as("A gave back the lease that lapsed before its first renewal").contains("a RELEASE 0");
    assertThat(calls("a ACQUIRE")).as("A leased again").isEqualTo(acquiresBefore + 2);
  }

  @Test
  void aHolderPausedAfterTheGrantThatReplacesALostLeaseLeasesAgainUnderTheWait() {
    store.vouches = false;
    Object empty = store.snapshot();
    LeasedGeneGenerator a = generator("a");
    a.nextId(0);
    store.rollBackSilently(empty); // A's row is gone: its next renewal is refused, and it re-leases
    AtomicReference<LeasedGeneGenerator> b = pauseAfterNextGrantOf("a");
    long acquiresBefore = calls("a ACQUIRE");
    for (int i = 0; i < 10 && b.get() == null; i++) {
      nanos.addAndGet(TTL.toNanos() / 3);
      a.tick(); // the renewal is refused; the next tick re-leases (and is paused after the grant)
    }
    assertThat(b.get()).as("A re-leased, and B ran during A's pause").isNotNull();
    for (int i = 0; i < 3; i++) {
      a.tick(); // whatever the keeper does after the pause, on A's thread
    }
    List<String> log = new ArrayList<>();
    int repeats = repeatsWhileBothIssue(a, b.get(), log);
    System.out.println("[first-renewal] pause after a re-lease: " + log);
    assertThat(repeats).as("ids of A equal to ids of B (same worker id, ms, sequence, gene)").isZero();
    assertThat(calls("a ACQUIRE")).as("A leased again after the lapsed re-lease").isGreaterThanOrEqualTo(
        acquiresBefore + 2);
  }

  @Test
  void aStoreThatVouchesIsNotAskedTwice() {
    // the rule is for stores that cannot vouch: Redis notices a rollback itself, so its first renewal is trusted
    AtomicLong acquires = new AtomicLong(calls("a ACQUIRE"));
    store.afterGrant.put("a", () -> nanos.addAndGet(TTL.multipliedBy(2).toNanos()));
    LeasedGeneGenerator a = generator("a");
    a.nextId(0);
    assertThat(calls("a ACQUIRE")).isEqualTo(acquires.get() + 1);
    assertThat(store.calls).doesNotContain("a RELEASE 0");
  }

  private long calls(String prefix) {
    return store.calls.stream().filter(c -> c.startsWith(prefix)).count();
  }
}
