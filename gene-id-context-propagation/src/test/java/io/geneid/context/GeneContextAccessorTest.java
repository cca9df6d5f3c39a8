package io.geneid.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.testing.GeneProbe;
import io.geneid.core.testing.ManualClock;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.ThreadLocalAccessor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The accessor as context-propagation itself drives it: snapshots captured on one thread and set on another. */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class GeneContextAccessorTest {

  private final GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(14)
      .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared();
  private final ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder().build();
  private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "gene-cp-worker"));

  @AfterEach
  void stop() {
    try {
      assertThat(GeneProbe.onEveryThread(worker, 1, "gene-cp-worker")).allMatch(GeneProbe::clean);
    } finally {
      worker.shutdownNow();
    }
  }

  @Test
  void serviceLoaderRegistersTheAccessor() {
    List<ThreadLocalAccessor<?>> loaded = new ContextRegistry().loadThreadLocalAccessors().getThreadLocalAccessors();
    assertThat(loaded).filteredOn(a -> a instanceof GeneContextAccessor).singleElement()
        .extracting(ThreadLocalAccessor::key).isEqualTo(GeneContextAccessor.KEY);
    assertThat(ContextRegistry.getInstance().getThreadLocalAccessors()).anyMatch(a -> a instanceof GeneContextAccessor);
  }

  @Test
  void aSnapshotCarriesTheGeneAndTheWorkerGetsItsOwnScopeBack() throws Exception {
    GeneContext.Scope workers = worker.submit(() -> GeneContext.inherit(7L)).get();
    Runnable task;
    long[] made = new long[2];
    try (var scope = GeneContext.inherit(43L)) {
      ContextSnapshot snapshot = snapshots.captureAll();
      task = snapshot.wrap(() -> {
        made[0] = ids.nextId();
        GeneContext.inherit(9L); // left open: dropped when the task ends
      });
    }
    worker.submit(task).get();
    assertThat(ids.getGene(made[0])).isEqualTo(43);
    assertThat(worker.submit(() -> ids.getGene(ids.nextId())).get()).isEqualTo(7);
    worker.submit(workers::close).get(); // the worker's own scope, exactly: it closes without an error
    // a caller without a scope carries "no scope": the task spreads even where a scope was left behind
    GeneContext.Scope leftover = worker.submit(() -> GeneContext.inherit(5L)).get();
    Runnable root = snapshots.captureAll().wrap(() -> {
      made[1] = GeneContext.isActive() ? 1 : 0;
    });
    worker.submit(root).get();
    assertThat(made[1]).isZero();
    worker.submit(leftover::close).get();
  }

  @Test
  void aPerRowScopeStaysOnItsThread() throws Exception {
    ContextSnapshot snapshot;
    try (var scope = GeneContext.inheritEach(List.of(1L, 2L))) {
      snapshot = snapshots.captureAll();
      ids.nextId();
      ids.nextId();
    }
    CompletableFuture<Void> run = CompletableFuture.runAsync(snapshot.wrap(() -> { }), worker);
    assertThatThrownBy(run::join).hasRootCauseInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage("a per-row GeneContext scope (inheritEach) stays on the thread that opened it: its keys"
            + " are taken in order by one statement; open a scope per task instead");
  }
}
