package io.geneid.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.testing.GeneProbe;
import io.geneid.core.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scope across threads: {@link GeneContext#wrap} carries the caller's gene to a pooled thread and restores the
 * thread afterwards, and a scope that ends on the wrong thread, or never ends inside a wrapped task, leaves no gene
 * behind on a pooled thread. Each test ends by probing every thread of its pool: no scope, root ids spread.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class GeneContextThreadsTest {

  private static final AtomicInteger POOLS = new AtomicInteger();
  private static final int THREADS = 2;

  private final GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(6)
      .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared();
  private final String name = "gene-pool-" + POOLS.incrementAndGet() + "-";
  private final AtomicInteger threads = new AtomicInteger();
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS,
      r -> new Thread(r, name + threads.incrementAndGet()));

  @AfterEach
  void noThreadKeepsAGene() {
    try {
      assertThat(GeneProbe.onEveryThread(pool, THREADS, name)).allMatch(GeneProbe::clean);
      assertThat(GeneContext.isActive()).isFalse();
    } finally {
      pool.shutdownNow();
    }
  }

  private long gene(Future<Long> id) throws Exception {
    return ids.getGene(id.get());
  }

  @Test
  void aScopeClosedOnAnotherThreadEndsOnTheThreadThatOpenedIt() throws Exception {
    String[] opener = new String[1];
    GeneContext.Scope scope = pool.submit(() -> {
      opener[0] = Thread.currentThread().getName();
      return GeneContext.inherit(43L);
    }).get();
    assertThatThrownBy(scope::close).isInstanceOf(IllegalStateException.class)
        .hasMessage("GeneContext scope opened on " + opener[0] + " was closed on " + Thread.currentThread().getName()
            + ": a scope belongs to the thread that opened it, and has now ended there too; carry a gene to other"
            + " threads with GeneContext.wrap, withGene (Kotlin) or gene-id-context-propagation");
    scope.close(); // ended: a second close does nothing
  }

  @Test
  void aScopeClosedElsewhereUnderAnInnerScopeEndsWhenTheInnerOneCloses() throws Exception {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      GeneContext.Scope outer = CompletableFuture.supplyAsync(() -> GeneContext.inherit(40L), one).get();
      GeneContext.Scope inner = CompletableFuture.supplyAsync(() -> GeneContext.inherit(41L), one).get();
      assertThatThrownBy(outer::close).hasMessageStartingWith("GeneContext scope opened on");
      assertThat(CompletableFuture.supplyAsync(() -> ids.getGene(ids.nextId()), one).get()).isEqualTo(41);
      CompletableFuture.runAsync(inner::close, one).get();
      assertThat(CompletableFuture.supplyAsync(GeneProbe::here, one).get().clean()).isTrue();
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void aScopeClosedOutOfOrderEndsAndTheInnerOneStaysUntilClosed() {
    var outer = GeneContext.inherit(1L);
    var inner = GeneContext.inherit(2L);
    assertThatThrownBy(outer::close).hasMessage("GeneContext scopes must be closed innermost first");
    assertThat(ids.getGene(ids.nextId())).isEqualTo(2);
    inner.close();
    assertThat(GeneContext.isActive()).isFalse(); // the outer scope has ended too
  }

  @Test
  void wrapCarriesTheCallersGeneAndTheScopeIsReadWhenWrapping() throws Exception {
    Callable<Long> child;
    Runnable rootProbe;
    List<Long> fromRunnable = new ArrayList<>();
    try (var scope = GeneContext.inherit(43L)) {
      child = GeneContext.wrap(() -> ids.nextId());
      rootProbe = GeneContext.wrap(() -> {
        fromRunnable.add(ids.nextId());
      });
    }
    Callable<Boolean> outside = GeneContext.wrap(GeneContext::isActive);
    for (int i = 0; i < 20; i++) {
      assertThat(gene(pool.submit(child))).isEqualTo(43);
    }
    pool.submit(rootProbe).get();
    assertThat(ids.getGene(fromRunnable.get(0))).isEqualTo(43);
    assertThat(pool.submit(outside).get()).isFalse();
  }

  @Test
  void wrapRestoresTheWorkersOwnScopeAndDropsWhatTheTaskLeftOpen() throws Exception {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      GeneContext.Scope workers = CompletableFuture.supplyAsync(() -> GeneContext.inherit(7L), one).get();
      Callable<Long> leaky;
      try (var scope = GeneContext.inherit(43L)) {
        leaky = GeneContext.wrap(() -> {
          GeneContext.inherit(9L); // never closed
          return ids.getGene(ids.nextId());
        });
      }
      assertThat(CompletableFuture.supplyAsync(() -> call(leaky), one).get()).isEqualTo(9);
      assertThat(CompletableFuture.supplyAsync(() -> ids.getGene(ids.nextId()), one).get()).isEqualTo(7);
      CompletableFuture.runAsync(workers::close, one).get(); // still the worker's innermost scope: no error
      assertThat(CompletableFuture.supplyAsync(GeneProbe::here, one).get().clean()).isTrue();
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void anUnclosedScopeInAWrappedTaskDoesNotOutliveTheTask() throws Exception {
    for (int i = 0; i < 10; i++) {
      pool.submit(GeneContext.wrap(() -> GeneContext.inherit(43L))).get();
    }
  }

  @Test
  void aScopeClosedWhileItsThreadsStateIsSetAsideFailsAndEnds() {
    var scope = GeneContext.inherit(3L);
    // a task run on this very thread sets the thread's state aside, as a coroutine resuming here does
    Runnable task = GeneContext.wrap(() -> {
      assertThatThrownBy(scope::close)
        .hasMessage("GeneContext scope was no longer open on " + Thread.currentThread().getName() + " when closed:"
            + " the thread's state was set aside while it was open (a task or coroutine resumed on this thread), so"
            + " ids made since did not carry its gene; use GeneContext.wrap or withGene (Kotlin) rather than"
            + " holding a scope across a suspension");
    });
    task.run();
    assertThat(GeneContext.isActive()).isFalse(); // restored, and dropped: it has ended
  }

  @Test
  void wrappedExecutorsCarryTheSubmittersGene() throws Exception {
    Executor executor = GeneContext.wrapExecutor(pool);
    ExecutorService service = GeneContext.wrap(pool);
    for (long parent = 0; parent < 64; parent++) {
      try (var scope = GeneContext.inherit(parent)) {
        CompletableFuture<Long> viaExecutor = CompletableFuture.supplyAsync(ids::nextId, executor);
        Future<Long> submitted = service.submit(() -> ids.nextId());
        List<Future<Long>> all = service.invokeAll(List.of(ids::nextId, ids::nextId));
        long any = service.invokeAny(List.of(ids::nextId));
        assertThat(ids.getGene(viaExecutor.get())).isEqualTo(parent);
        assertThat(gene(submitted)).isEqualTo(parent);
        for (Future<Long> f : all) {
          assertThat(gene(f)).isEqualTo(parent);
        }
        assertThat(ids.getGene(any)).isEqualTo(parent);
      }
    }
    assertThat(service.isShutdown()).isFalse();
  }

  @Test
  void aPerRowScopeIsNotCarried() {
    try (var scope = GeneContext.inheritEach(List.of(1L, 2L))) {
      assertThatThrownBy(() -> GeneContext.wrap(() -> { })).isInstanceOf(IllegalStateException.class)
          .hasMessage("a per-row GeneContext scope (inheritEach) stays on the thread that opened it: its keys are"
              + " taken in order by one statement; open a scope per task instead");
      ids.nextId();
      ids.nextId();
    }
  }

  private static <T> T call(Callable<T> task) {
    try {
      return task.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
