package io.geneid.core.snowflake;

import io.geneid.core.lease.StaticWorkerIdAssigner;
import io.geneid.core.lease.WorkerLeaseLostException;


import io.geneid.core.internal.WorkerIdClaims;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneClock;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.CapturingLoggerFinder;
import io.geneid.core.testing.ManualClock;
import io.geneid.core.testing.TestTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LeasedGeneGenerator} against a {@link ModelLeaseStore} that goes silent, fails, forgets and is shared with
 * other holders (issue #11 scenarios 4, 5, 6, 7, 11 and 15). Each test uses its own space and layout epoch, so the
 * JVM-wide worker-id claims of other tests never meet these.
 */
class LeasedGeneGeneratorFaultTest {

  private static final String LOGGER = LeasedGeneGenerator.class.getName();

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final String space = "fault" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  /** A layout of its own (its epoch), so claims of worker ids never meet those of other tests. */
  private final GeneIdLayout layout = GeneIdLayout.builder()
      .epoch(GeneIdLayout.DEFAULT_EPOCH.minus(Duration.ofDays(1 + ThreadLocalRandom.current().nextInt(3000))))
      .build();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /**
   * {@code base} ms at the tests' time scale: the TTLs and waits of the model stores here that run on the system
   * clock, so that a busy machine's late renewal does not fence a holder a test means to keep, and the bounds measured
   * against them stay as strict relative to them.
   */
  private static Duration ms(long base) {
    return TestTime.ofMillis(base);
  }

  private <T extends AutoCloseable> T track(T c) {
    toClose.add(c);
    return c;
  }

  private List<CapturingLoggerFinder.Entry> logs() {
    return CapturingLoggerFinder.of(LOGGER).stream().filter(e -> e.message().contains("'" + space + "'")).toList();
  }

  // ------------------------------------------------------------------------------------------ scenario 4

  @Test
  void closeReturnsInBoundedTimeWhileARenewalHangsOnASilentStore() throws Exception {
    Duration storeWait = ms(300);
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 3, ms(600), GeneClock.system());
    ModelLeaseStore.Holder a = store.holder("silent", ms(600));
    LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(a).layout(layout)
        .renewInterval(Duration.ofMillis(50)).storeWait(storeWait).build();
    g.nextId();
    store.hang(ModelLeaseStore.Op.RENEW, ModelLeaseStore.Op.RELEASE, ModelLeaseStore.Op.CLOSE);
    Await.until(() -> store.inFlight.get() > 0, Duration.ofSeconds(5), "a renewal stuck in the silent store");
    long start = System.nanoTime();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(g::close);
    try {
      closing.get(10, TimeUnit.SECONDS);
    } finally {
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      System.err.println("scenario 4: close() with a silent store took " + tookMs + " ms");
      store.answer();
      // the store wait and a margin, both at the time scale
      assertThat(tookMs).as("close() took %d ms", tookMs).isLessThan(TestTime.millis(1_000));
    }
    assertThatThrownBy(g::nextId).hasMessage("this LeasedGeneGenerator of space '" + space
        + "' is closed: it issues no ids");
    // the abandoned release is said once, and the lease runs out by itself
    assertThat(logs()).filteredOn(e -> e.message().contains("did not finish within " + storeWait.toMillis() + " ms")).hasSize(1);
  }

  @Test
  void aFencedGeneratorIssuesAgainOnceTheSilentStoreAnswers() {
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 3, ms(400), GeneClock.system());
    LeasedGeneGenerator g = track(LeasedGeneGenerator.builder().assigner(store.holder("p", ms(800)))
        .layout(layout).build());
    long workerId = g.workerId();
    g.nextId();
    store.hang(ModelLeaseStore.Op.RENEW);
    Await.until(() -> !g.isIssuing(), Duration.ofSeconds(5), "fencing after the TTL");
    assertThatThrownBy(g::nextId).isInstanceOf(WorkerLeaseLostException.class)
        .hasMessageStartingWith("worker id " + workerId + " of space '" + space + "' issues no ids: its lease lapsed")
        .hasMessageContaining("the renewal has been stuck in a store call (renew of worker id " + workerId + " at "
            + "ModelLeaseStore[" + space + "] as p) for ")
        .hasMessageNotContaining("was the process paused?");
    store.answer();
    Await.until(g::isIssuing, Duration.ofSeconds(5), "issuing again after the store answered");
    assertThat(g.nextId()).isPositive();
  }

  @Test
  void aLeaseTakenOverMovesToAnotherWorkerId() {
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 3, ms(1_000), GeneClock.system());
    LeasedGeneGenerator g = track(LeasedGeneGenerator.builder().assigner(store.holder("victim", Duration.ZERO))
        .layout(layout).build());
    assertThat(g.workerId()).isZero();
    store.takeOver(0, "thief");
    Await.until(() -> g.leasesLost() == 1 && g.isIssuing(), Duration.ofSeconds(5), "a new lease after the lost one");
    assertThat(g.workerId()).isEqualTo(1);
    assertThat(store.heldBy("victim")).containsExactly(1L);
    assertThat(g.nextId()).isPositive();
  }

  // ------------------------------------------------------------------------------------------ scenario 5

  @Test
  void aWorkerIdGotBackStartsAboveTheGeneratorsOwnLastMark() {
    // one gene, no sequence: every id of a frozen clock borrows one more millisecond
    GeneIdLayout oneGene = GeneIdLayout.builder().epoch(layout.epoch()).timestampBits(55).workerBits(8)
        .sequenceBits(0).geneBits(0).build();
    ManualClock clock = new ManualClock(System.currentTimeMillis());
    // the store's clock runs 3 s behind this process's: its "now + slack" is below what this process borrowed
    GeneClock storeClock = () -> clock.now() - 3_000;
    // the lease deadlines run on System.nanoTime whatever the id clock: the TTL is at the time scale
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 0, ms(1_000), storeClock);
    LeasedGeneGenerator g = track(LeasedGeneGenerator.builder().assigner(store.holder("own", ms(2_000)))
        .layout(oneGene).clock(clock).maxBorrowMillis(5_000).renewInterval(Duration.ofMillis(50)).build());
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < 3_000; i++) {
      ids.add(g.nextId());
    }
    store.forgetAll(); // a restart without data: the lease is lost, the same worker id comes back
    Await.until(() -> g.leasesAcquired() == 2 && g.isIssuing(), Duration.ofSeconds(5), "the worker id re-acquired");
    assertThat(g.workerId()).isZero();
    clock.advance(4_000); // time enough for 3000 more ids within the borrowing bound
    long duplicates = 0;
    for (int i = 0; i < 3_000; i++) {
      try {
        if (!ids.add(g.nextId())) {
          duplicates++;
        }
      } catch (WorkerLeaseLostException e) {
        i--; // a renewal in between: retry
      }
    }
    System.err.println("scenario 5 (own mark): " + duplicates + " duplicate ids of 3000");
    assertThat(duplicates).isZero();
  }

  // ------------------------------------------------------------------------------------------ scenario 6

  @Test
  void aWorkerIdClaimedByAnotherGeneratorOfThisJvmIsPassedOver() {
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 2, ms(1_000), GeneClock.system());
    try (WorkerIdClaims.Claim fixed = WorkerIdClaims.claim(layout.epoch(), 0, "a fixed worker-id test generator")) {
      LeasedGeneGenerator g = track(LeasedGeneGenerator.builder().assigner(store.holder("p", Duration.ZERO))
          .layout(layout).build());
      assertThat(g.workerId()).isEqualTo(1);
      assertThat(store.heldBy("p")).containsExactly(1L); // worker id 0 went back to the pool at once
      assertThatThrownBy(() -> WorkerIdClaims.claim(layout.epoch(), 1, "another")).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("LeasedGeneGenerator of space '" + space + "' from ModelLeaseStore[" + space + "] as p");
      g.close();
      WorkerIdClaims.claim(layout.epoch(), 1, "after close").close(); // the claim was given up with the holding
    }
  }

  @Test
  void aStaticWorkerIdClaimedByAnotherGeneratorIsAStartUpErrorNamingBoth(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) {
    try (WorkerIdClaims.Claim fixed = WorkerIdClaims.claim(layout.epoch(), 7, "a fixed worker-id test generator")) {
      StaticWorkerIdAssigner a = StaticWorkerIdAssigner.builder().space(space).workerId(7)
          .markFile(dir.resolve("w7.mark")).build();
      assertThatThrownBy(() -> LeasedGeneGenerator.builder().assigner(a).layout(layout).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("worker id 7 (epoch " + layout.epoch() + ") is already used in this JVM by a fixed "
              + "worker-id test generator")
          .hasMessageContaining("a second generator, LeasedGeneGenerator of space '" + space + "' from ");
    }
  }

  // ------------------------------------------------------------------------------------------ scenario 7

  @Test
  void aWorkerSwitchInsideACallConsumesNoExtraParentKey() {
    AtomicLong offset = new AtomicLong();
    GeneClock stepping = () -> System.currentTimeMillis() + offset.get();
    // the whole host stepped back, the store's clock too: the move to a fresh worker id succeeds
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 3, ms(1_000), stepping);
    LeasedGeneGenerator g = track(LeasedGeneGenerator.builder().assigner(store.holder("p", Duration.ZERO))
        .layout(layout).clock(stepping).clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).build());
    long first = g.workerId();
    for (int i = 0; i < 50; i++) {
      g.nextId(i & 7);
    }
    offset.set(-10_000);
    List<Long> genes = new ArrayList<>();
    try (GeneContext.Scope scope = GeneContext.inheritEach(List.of(1L, 2L, 3L))) {
      for (int i = 0; i < 3; i++) {
        genes.add(g.getGene(g.nextId()));
      }
    }
    assertThat(g.workerSwitches()).isEqualTo(1);
    assertThat(g.workerId()).isNotEqualTo(first);
    assertThat(genes).containsExactly(1L, 2L, 3L);
  }

  // ------------------------------------------------------------------------------------------ scenario 11

  @Test
  void aClockStepBackBlocksTheCallerBrieflyKeepsRenewingAndHoldsOneWorkerId() {
    AtomicLong offset = new AtomicLong();
    GeneClock behind = () -> System.currentTimeMillis() + offset.get();
    // the store and the rest of the fleet keep true time: every free worker id's mark is ahead of this clock
    Duration ttl = ms(1_500);
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 2, ttl, GeneClock.system());
    ModelLeaseStore.Holder a = store.holder("behind", ms(3_000));
    LeasedGeneGenerator g = track(LeasedGeneGenerator.builder().assigner(a).layout(layout).clock(behind)
        .clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).build());
    long workerId = g.workerId();
    for (int i = 0; i < 100; i++) {
      g.nextId(i & 7);
    }
    offset.set(-10_000);
    long renewalsBefore = a.renewCalls.get();
    long worst = 0;
    long start = System.nanoTime();
    // eight renewal intervals (a third of the TTL each)
    long window = ttl.toNanos() * 8 / 3;
    for (int call = 0; System.nanoTime() - start < window; call++) {
      long t0 = System.nanoTime();
      try {
        g.nextId(call & 7);
      } catch (GeneIdException e) {
        assertThat(e).isInstanceOf(ClockMovedBackwardsException.class);
      }
      worst = Math.max(worst, System.nanoTime() - t0);
    }
    System.err.println("scenario 11: longest nextId() after a 10 s step back took " + worst / 1_000_000
        + " ms; renewals meanwhile " + (a.renewCalls.get() - renewalsBefore) + "; most worker ids held at once "
        + a.maxHeld.get() + "; held now " + store.heldBy("behind"));
    // the default storeWait (2 s) and a margin at the time scale
    assertThat(worst / 1_000_000).isLessThan(2_000 + TestTime.millis(500));
    assertThat(a.renewCalls.get() - renewalsBefore).isGreaterThanOrEqualTo(4); // every third of the TTL: 8 due
    assertThat(g.stats().fencings()).isZero();
    assertThat(a.maxHeld.get()).isLessThanOrEqualTo(2);
    Await.until(() -> store.heldBy("behind").size() == 1, Duration.ofSeconds(5), "one worker id held");
    assertThat(g.workerId()).isEqualTo(workerId);
    offset.set(0); // the clock caught up: the same worker id issues again
    assertThat(g.nextId(3)).isPositive();
  }

  // ------------------------------------------------------------------------------------------ scenario 15

  @Test
  void anOutageIsLoggedOncePerStateChangeWithTheRealReason() {
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 3, ms(400), GeneClock.system());
    LeasedGeneGenerator g = track(LeasedGeneGenerator.builder().assigner(store.holder("p", ms(800)))
        .layout(layout).build());
    long workerId = g.workerId();
    int before = logs().size();
    store.renewFailure = new GeneIdException("connection refused (model store down)");
    Await.until(() -> g.stats().fencings() == 1, Duration.ofSeconds(5), "fencing");
    Await.until(() -> g.stats().renewalFailures() >= 8, Duration.ofSeconds(10), "eight failed renewals");
    store.renewFailure = null;
    Await.until(g::isIssuing, Duration.ofSeconds(5), "the lease revived");
    Await.until(() -> logs().stream().anyMatch(e -> e.message().contains("works again")), Duration.ofSeconds(5),
        "the recovery logged");
    List<CapturingLoggerFinder.Entry> outage = logs().subList(before, logs().size());
    outage.forEach(e -> System.err.println("scenario 15 log: " + e.level() + " " + e.message()));
    System.err.println("scenario 15: " + outage.size() + " lines over " + g.stats().renewalFailures()
        + " failed renewals");
    assertThat(outage).hasSize(3);
    assertThat(outage.get(0).level()).isEqualTo(Level.WARNING);
    assertThat(outage.get(0).message()).startsWith("renewing worker id " + workerId + " of space '" + space
        + "' at ModelLeaseStore[" + space + "] as p failed: ").contains("connection refused (model store down)");
    assertThat(outage.get(1).level()).isEqualTo(Level.WARNING);
    assertThat(outage.get(1).message()).startsWith("worker id " + workerId + " of space '" + space + "' at "
        + "ModelLeaseStore[" + space + "] as p is fenced: its lease lapsed at ");
    assertThat(outage.get(2).level()).isEqualTo(Level.INFO);
    assertThat(outage.get(2).message()).startsWith("renewing worker id " + workerId + " of space '" + space
        + "' at ModelLeaseStore[" + space + "] as p works again after ");
  }

  @Test
  void closingLogsTheReleaseWithItsMark() {
    ModelLeaseStore store = new ModelLeaseStore(space, 0, 3, ms(1_000), GeneClock.system());
    ModelLeaseStore.Holder a = store.holder("p", Duration.ZERO);
    LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(a).layout(layout).build();
    g.nextId();
    Instant mark = g.highWaterMark();
    g.close();
    assertThat(a.releasedMarks).containsExactly(mark.toEpochMilli());
    assertThat(logs()).last().satisfies(e -> assertThat(e.message()).isEqualTo("released worker id "
        + g.lease().orElseThrow().workerId() + " of space '" + space + "' at ModelLeaseStore[" + space + "] as p with mark "
        + mark));
  }
}
