package io.geneid.core.snowflake;


import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.GeneClock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import org.jspecify.annotations.Nullable;

/**
 * The lease protocol as a whole, model-based: three processes ({@link LeasedGeneGenerator}s with keepers driven by
 * hand, each with its own clock) share a {@link ModelLeaseStore} that follows {@link io.geneid.core.lease.WorkerIdAssigner}'s protocol and
 * can forget, roll back to an older snapshot (and say so, or not: a silent rollback), drop one worker id's record
 * and lose replies. A process can also stop right after a grant, before its first renewal, while the next steps of
 * the sequence run ({@code stallAfterGrant}: the rule that a lease that lapsed and is renewed is a new grant holds for
 * the first renewal too, issue #39), or wait inside its acquisition before the grant, as an assigner waiting for a
 * free worker id does ({@code stallBeforeGrant}). The rule's clock: a lease's TTL runs from the send of the store call
 * that granted it (the assigner tells, {@code WorkerLease.grantSentNanos}), so the first renewal is due within the
 * deadline of that send, however long the acquisition waited before it. Random action
 * sequences move time, run keeper steps, issue ids, pause and resume processes, step their clocks and break the
 * store; after every action no two processes may have issued an id with the same (worker id, millisecond).
 *
 * <p>The store applies the unknown-history rule with a margin of {@link #MAX_AHEAD_MS} for clock skew: a process
 * whose clock runs further ahead than that may repeat a (worker id, millisecond) of a worker id whose record was lost,
 * whatever the generator does. That bound is the model's, and the store implementations' margin must cover it too.
 */
class LeaseProtocolModelTest {

  private static final Duration TTL = Duration.ofMillis(1_000);
  /** How far ahead of true time a process clock may step (the store's margin for unknown history covers it). */
  private static final long MAX_AHEAD_MS = 2_000;
  private static final int PROCESSES = 3;

  /** One action of the sequence. */
  record Step(String kind, int process, long amount) {
    @Override
    public String toString() {
      return kind + "(" + process + ", " + amount + ")";
    }
  }

  @Provide
  Arbitrary<List<Step>> actions() {
    return steps(0);
  }

  /** {@link #actions()} with silent rollbacks: the store goes back to its last snapshot and cannot tell. */
  @Provide
  Arbitrary<List<Step>> silentActions() {
    return steps(3);
  }

  /**
   * Random sequences of steps. With silent rollbacks the sequence is drawn from fragments, so that the moves a
   * silent rollback needs to do harm come together often enough to be found: a snapshot taken, then every holder
   * lapsing and another process taking a worker id; a rollback, then a holder talking to the store at once.
   */
  @SuppressWarnings("unchecked")
  private static Arbitrary<List<Step>> steps(int silentRollbacks) {
    Arbitrary<Integer> p = Arbitraries.integers().between(0, PROCESSES - 1);
    List<Tuple.Tuple2<Integer, Arbitrary<List<Step>>>> kinds = new ArrayList<>(List.of(
        one(6, Arbitraries.longs().between(1, 700).map(ms -> new Step("advance", 0, ms))),
        one(8, p.map(i -> new Step("tick", i, 0))),
        one(8, Arbitraries.integers().between(0, PROCESSES - 1)
            .flatMap(i -> Arbitraries.longs().between(1, 4).map(n -> new Step("issue", i, n)))),
        one(2, p.map(i -> new Step("pause", i, 0))),
        one(2, p.map(i -> new Step("resume", i, 0))),
        one(2, p.flatMap(i -> Arbitraries.of(-5L, -2_000L, -10_000L, 1_500L).map(d -> new Step("clock", i, d)))),
        one(1, p.map(i -> new Step("restart", i, 0))),
        one(1, Arbitraries.just(new Step("forget", 0, 0))),
        one(1, Arbitraries.just(new Step("snapshot", 0, 0))),
        one(1, Arbitraries.just(new Step("rollback", 0, 0))),
        one(1, Arbitraries.longs().between(0, 2).map(id -> new Step("drop", 0, id))),
        one(1, Arbitraries.integers().between(1, 3).map(n -> new Step("loseReplies", 0, n)))));
    if (silentRollbacks > 0) {
      kinds.add(Tuple.of(silentRollbacks, p.map(i -> List.of(new Step("snapshot", 0, 0),
          new Step("advance", 0, TTL.toMillis() + 200), new Step("tick", i, 0)))));
      // a process stops right after a grant; meanwhile the copy is taken, its lease lapses, another process leases
      // and issues, and the copy comes back; then both issue
      kinds.add(Tuple.of(silentRollbacks, p.flatMap(i -> Arbitraries.integers().between(1, PROCESSES - 1)
          .map(d -> pauseAfterGrant(i, (i + d) % PROCESSES)))));
      kinds.add(Tuple.of(silentRollbacks, p.map(i -> List.of(new Step("silentRollback", 0, 0),
          new Step("tick", i, 0)))));
    }
    // a process waits inside its acquisition (a busy pool) for longer than the TTL before its grant
    kinds.add(Tuple.of(1, p.flatMap(i -> Arbitraries.integers().between(1, PROCESSES - 1)
        .map(d -> waitBeforeGrant(i, (i + d) % PROCESSES)))));
    Arbitrary<List<Step>> fragment = Arbitraries.frequencyOf(kinds.toArray(new Tuple.Tuple2[0]));
    return fragment.list().ofMinSize(10).ofMaxSize(50)
        .map(fragments -> fragments.stream().flatMap(List::stream).toList());
  }

  /**
   * Process {@code i} (re)starts and stops right after its grant; while it stands still the copy of the store is
   * taken, its lease lapses, {@code j} leases, waits and issues, and the store silently goes back to the copy;
   * then both issue.
   */
  static List<Step> pauseAfterGrant(int i, int j) {
    List<Step> nested = List.of(new Step("snapshot", 0, 0), new Step("advance", 0, TTL.toMillis() + 200),
        new Step("tick", j, 0), new Step("issue", j, 3), new Step("silentRollback", 0, 0));
    List<Step> all = new ArrayList<>(List.of(new Step("resume", i, 0), new Step("restart", i, 0),
        new Step("stallAfterGrant", i, nested.size()), new Step("tick", i, 0)));
    all.addAll(nested);
    all.addAll(List.of(new Step("issue", i, 3), new Step("issue", j, 3), new Step("advance", 0, 6),
        new Step("issue", i, 3), new Step("issue", j, 3), new Step("advance", 0, 6), new Step("issue", i, 3)));
    return all;
  }

  /**
   * Process {@code i} (re)starts and waits inside its acquisition, before the grant, for longer than the TTL; while
   * it waits {@code j} ticks, issues and restarts (its worker id becomes free); then both issue.
   */
  static List<Step> waitBeforeGrant(int i, int j) {
    List<Step> nested = List.of(new Step("advance", 0, TTL.toMillis() / 2), new Step("tick", j, 0),
        new Step("issue", j, 2), new Step("advance", 0, TTL.toMillis() / 2 + 100), new Step("restart", j, 0));
    List<Step> all = new ArrayList<>(List.of(new Step("resume", i, 0), new Step("restart", i, 0),
        new Step("stallBeforeGrant", i, nested.size()), new Step("tick", i, 0)));
    all.addAll(nested);
    all.addAll(List.of(new Step("issue", i, 3), new Step("tick", j, 0), new Step("issue", j, 3),
        new Step("advance", 0, 6), new Step("issue", i, 3)));
    return all;
  }

  private static Tuple.Tuple2<Integer, Arbitrary<List<Step>>> one(int weight, Arbitrary<Step> step) {
    return Tuple.of(weight, step.map(List::of));
  }

  @Property(tries = 300)
  void noTwoProcessesIssueTheSameWorkerIdAndMillisecond(@ForAll("actions") @Size(min = 10) List<Step> steps) {
    assertThat(run(steps, true)).isNull();
  }

  /**
   * The rule of {@link io.geneid.core.lease.WorkerIdAssigner#vouchesForHistory()}: a store that may go back in time without noticing
   * (no new identity, nothing marked unknown) does not vouch, and its grants wait out any holder it forgot.
   */
  @Property(tries = 1000)
  void silentRollbacksRepeatNothingWhenTheStoreDoesNotVouch(@ForAll("silentActions") @Size(min = 10)
      List<Step> steps) {
    assertThat(run(steps, false)).isNull();
  }

  /**
   * The model can tell: the same silent rollbacks with a store that (wrongly) vouches for its history, so grants are
   * trusted at once, repeat ids. Without this the property above could pass for want of a scenario.
   */
  @Example
  void theModelFindsASilentRollbackWhenTheStoreIsTrusted() {
    AtomicLong tried = new AtomicLong();
    String clash = silentActions().sampleStream().limit(6000).peek(steps -> tried.incrementAndGet())
        .map(steps -> run(steps, true)).filter(c -> c != null).findFirst().orElse(null);
    System.out.println("[model] silent rollback with a trusted store: clash after " + tried + " sequences: " + clash);
    assertThat(clash).as("a clash in 6000 random sequences with silent rollbacks and a trusted store").isNotNull();
  }

  /**
   * Issue #39, scenario 1, by hand: process 0 holds worker id 1, process 2 worker id 0 (kept renewed); process 0
   * stops right after the grant of worker id 1 for longer than the TTL; process 1 is granted worker id 1, waits and
   * issues; the store comes back from a copy taken after process 0's grant, and process 0's first renewal succeeds.
   * Before the fix process 0 issued at once, on the milliseconds of process 1.
   */
  @Example
  void aPauseBetweenAGrantAndItsFirstRenewalRepeatsNothing() {
    List<Step> nested = List.of(new Step("snapshot", 0, 0), new Step("advance", 0, 300), new Step("tick", 2, 0),
        new Step("advance", 0, 300), new Step("tick", 2, 0), new Step("advance", 0, 300), new Step("tick", 2, 0),
        new Step("advance", 0, 300), new Step("tick", 2, 0), new Step("tick", 1, 0), new Step("issue", 1, 3),
        new Step("silentRollback", 0, 0));
    List<Step> steps = new ArrayList<>(List.of(new Step("tick", 2, 0), new Step("stallAfterGrant", 0, nested.size()),
        new Step("tick", 0, 0)));
    steps.addAll(nested);
    for (int k = 0; k < 10; k++) { // over 20 ms: process 1 starts up to max-borrow-millis ahead of the clock
      steps.addAll(List.of(new Step("issue", 0, 4), new Step("issue", 1, 4), new Step("advance", 0, 2)));
    }
    String clash = run(steps, false);
    System.out.println("[model] pause between a grant and its first renewal, store restored from a copy: "
        + (clash == null ? "no clash" : clash));
    assertThat(clash).isNull();
  }

  /**
   * Issue #39 review (w39r), liveness: process 0 asks for a worker id while processes 2 and 1 hold both, and waits
   * inside its acquisition for more than the TTL until process 1 stops; its grant is renewed at once and kept. Before
   * the TTL was counted from the grant's send, process 0 took its own wait for a pause after the grant, gave the
   * worker id back and leased again.
   */
  @Example
  void aWaitBeforeTheGrantLongerThanTheTtlCostsNoSecondGrant() {
    List<Step> nested = List.of(new Step("advance", 0, 300), new Step("tick", 2, 0), new Step("advance", 0, 300),
        new Step("tick", 2, 0), new Step("advance", 0, 300), new Step("tick", 2, 0), new Step("advance", 0, 300),
        new Step("tick", 2, 0), new Step("restart", 1, 0));
    List<Step> steps = new ArrayList<>(List.of(new Step("tick", 2, 0), new Step("tick", 1, 0),
        new Step("stallBeforeGrant", 0, nested.size()), new Step("tick", 0, 0)));
    steps.addAll(nested);
    steps.addAll(List.of(new Step("issue", 0, 3), new Step("tick", 2, 0), new Step("issue", 2, 3),
        new Step("advance", 0, 6), new Step("issue", 0, 3)));
    World w = new World(false, 1, steps);
    try {
      String clash = w.runAll();
      List<String> ofP0 = w.store.calls.stream().filter(c -> c.startsWith("p0 ")).toList();
      System.out.println("[model] a wait longer than the TTL before the grant: " + (clash == null ? "no clash"
          : clash) + "; process 0's first calls " + ofP0.subList(0, Math.min(4, ofP0.size())));
      assertThat(clash).isNull();
      assertThat(w.generators[0]).as("process 0 holds a lease").isNotNull();
      assertThat(ofP0).as("process 0's store calls").startsWith("p0 ACQUIRE -1")
          .filteredOn(c -> c.startsWith("p0 ACQUIRE") || c.startsWith("p0 RELEASE")).hasSize(1);
      assertThat(ofP0.get(1)).as("process 0's second store call").startsWith("p0 RENEW");
      assertThat(w.ids).as("ids issued").isNotEmpty();
    } finally {
      w.closeAll();
    }
  }

  /** Runs {@code steps}; the first clash (with the steps so far), or null. */
  private static @Nullable String run(List<Step> steps, boolean storeVouches) {
    // with silent rollbacks, three processes share two worker ids, so a worker id a lapsed holder had is taken by
    // another process before the store forgets it
    boolean silent = steps.stream().anyMatch(st -> st.kind().equals("silentRollback"));
    World w = new World(storeVouches, silent ? 1 : 2, steps);
    try {
      return w.runAll();
    } finally {
      w.closeAll();
    }
  }

  /** The processes, their clocks and the store. */
  private static final class World {
    /** Runs the steps; the first clash (with the steps so far), or null. */
    @Nullable String runAll() {
      while (next < steps.size()) {
        apply(steps.get(next++));
        if (clash != null) {
          return clash + " after " + steps.subList(0, next);
        }
      }
      return null;
    }


    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final long wallBase = System.currentTimeMillis();
    /**
     * One layout per process, with epochs a day apart: the processes share this JVM, and its claims (one generator
     * per worker id and epoch) would otherwise stand in for the store. Ids are compared by (worker id, instant).
     */
    final GeneIdLayout[] layouts = new GeneIdLayout[PROCESSES];
    {
      int base = 3_000 + ThreadLocalRandom.current().nextInt(3000);
      for (int i = 0; i < PROCESSES; i++) {
        layouts[i] = GeneIdLayout.builder().epoch(GeneIdLayout.DEFAULT_EPOCH.minus(Duration.ofDays(base + i))).build();
      }
    }
    final String space = "model" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    final ModelLeaseStore store;
    final long[] offsets = new long[PROCESSES];
    final boolean[] paused = new boolean[PROCESSES];
    /** Processes standing still inside a store call ({@code stallAfterGrant}). */
    final boolean[] stalled = new boolean[PROCESSES];
    final LeasedGeneGenerator[] generators = new LeasedGeneGenerator[PROCESSES];
    /** (worker id, ms since epoch) -> the process that issued an id there. */
    final Map<Long, Integer> issued = new HashMap<>();
    final List<Long> ids = new ArrayList<>();
    Object snapshot;
    String clash;
    /** The sequence, and the index of its next step (steps run inside a stalled call advance it too). */
    final List<Step> steps;
    int next;

    World(boolean storeVouches, long maxWorkerId, List<Step> steps) {
      this.steps = steps;
      store = new ModelLeaseStore(space, 0, maxWorkerId, TTL, this::trueMillis, nanos::get);
      store.unknownHistoryWaitNanos = TTL.plusMillis(MAX_AHEAD_MS + 100).toNanos();
      store.vouches = storeVouches;
      snapshot = store.snapshot();
    }

    long trueMillis() {
      return wallBase + (nanos.get() - 1_000_000_000L) / 1_000_000L;
    }

    void start(int i) {
      if (generators[i] != null) {
        return;
      }
      // every reading moves time on by 10 us, so that a generator waiting for its clock (a borrowing bound, a mark
      // just ahead) sees it move, as it would in real time
      GeneClock clock = () -> {
        nanos.addAndGet(10_000);
        return trueMillis() + offsets[i];
      };
      try {
        generators[i] = LeasedGeneGenerator.builder().assigner(store.holder("p" + i, Duration.ZERO)).layout(layouts[i])
            .clock(clock).clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).storeWait(Duration.ZERO)
            .nanoTime(nanos::get).sleep(nanos::addAndGet).manualKeeper().build();
      } catch (GeneIdException e) {
        // no free worker id now (or its reply was lost): try again later
      }
    }

    void apply(Step s) {
      int i = s.process();
      switch (s.kind()) {
        case "advance" -> nanos.addAndGet(s.amount() * 1_000_000L);
        case "tick" -> {
          if (!paused[i]) {
            if (generators[i] == null) {
              start(i);
            } else {
              generators[i].tick();
            }
          }
        }
        case "issue" -> {
          if (!paused[i] && generators[i] != null) {
            for (int k = 0; k < s.amount(); k++) {
              issue(i);
            }
          }
        }
        case "pause" -> paused[i] = true;
        case "resume" -> paused[i] = false;
        case "clock" -> offsets[i] = Math.max(-30_000, Math.min(MAX_AHEAD_MS, offsets[i] + s.amount()));
        case "restart" -> {
          if (!paused[i] && generators[i] != null) {
            generators[i].close();
            generators[i] = null;
          }
        }
        case "forget" -> store.forgetAll();
        case "snapshot" -> snapshot = store.snapshot();
        case "rollback" -> store.rollBack(snapshot);
        case "silentRollback" -> store.rollBackSilently(snapshot);
        case "drop" -> store.drop(s.amount());
        case "loseReplies" -> store.repliesToLose.set((int) s.amount());
        case "stallAfterGrant" -> store.afterGrant.put("p" + i, stall(i, s.amount()));
        case "stallBeforeGrant" -> store.beforeGrant.put("p" + i, stall(i, s.amount()));
        default -> throw new IllegalArgumentException(s.kind());
      }
    }

    /**
     * Process i stands still inside its acquisition: the next {@code count} steps run meanwhile (its own, and those
     * of any other process stalled the same way, are skipped).
     */
    Runnable stall(int i, long count) {
      return () -> {
        stalled[i] = true;
        try {
          for (long n = 0; n < count && next < steps.size() && clash == null; n++) {
            Step inner = steps.get(next++);
            if (!stalled[inner.process()] || !List.of("tick", "issue", "restart").contains(inner.kind())) {
              apply(inner);
            }
          }
        } finally {
          stalled[i] = false;
        }
      };
    }

    void issue(int i) {
      long id;
      try {
        id = generators[i].nextId(ThreadLocalRandom.current().nextInt(4));
      } catch (GeneIdException e) {
        return; // fenced, clock behind, no fresh worker id: no id, which is always allowed
      }
      GeneIdParts parts = layouts[i].decode(id);
      long key = parts.workerId() * 1_000_000_000_000_000L + parts.timestamp().toEpochMilli();
      Integer other = issued.putIfAbsent(key, i);
      if (other != null && other != i) {
        clash = "processes " + other + " and " + i + " both issued worker id " + parts.workerId() + " at "
            + parts.timestamp();
      }
      ids.add(id);
    }

    void closeAll() {
      for (LeasedGeneGenerator g : generators) {
        if (g != null) {
          g.close();
        }
      }
    }
  }
}
