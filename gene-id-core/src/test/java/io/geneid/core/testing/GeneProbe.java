package io.geneid.core.testing;

import io.geneid.core.GeneContext;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * What a thread shows of {@link GeneContext}: whether a scope is open on it, and how many distinct genes 64 root ids
 * ({@code nextId()} without a parent) from a fresh generator carry there. A clean thread spreads them over all 64
 * genes of the default layout; a thread that kept a scope gives every one of them the scope's gene. Shared through
 * core's test-jar with the modules that carry genes across threads.
 */
public record GeneProbe(String thread, boolean scopeOpen, int distinctRootGenes) {

  /** Root ids one probe issues: one cycle of the generator's spread over the default layout's 64 genes. */
  public static final int ROOT_IDS = 64;

  /** Probes the calling thread. */
  public static GeneProbe here() {
    GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(1)
        .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared();
    boolean open = GeneContext.isActive();
    Set<Long> genes = new HashSet<>();
    for (int i = 0; i < ROOT_IDS; i++) {
      genes.add(ids.getGene(ids.nextId()));
    }
    return new GeneProbe(Thread.currentThread().getName(), open, genes.size());
  }

  /** Whether the thread holds no scope and its root ids spread over every gene. */
  public boolean clean() {
    return !scopeOpen && distinctRootGenes == ROOT_IDS;
  }

  /**
   * Probes every thread of a pool of {@code threads} threads: as many probes as threads, each held at a barrier until
   * all of them run at once, so each runs on a thread of its own. Fails if the probes did not meet (the pool has
   * fewer threads than said) or if the live threads named {@code namePrefix...} are not exactly the probed ones.
   */
  public static List<GeneProbe> onEveryThread(Executor pool, int threads, String namePrefix) {
    CyclicBarrier all = new CyclicBarrier(threads);
    List<CompletableFuture<GeneProbe>> probes = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      probes.add(CompletableFuture.supplyAsync(() -> {
        try {
          all.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new IllegalStateException("the probes of " + namePrefix + " did not meet: fewer than " + threads
              + " threads", e);
        }
        return here();
      }, pool));
    }
    List<GeneProbe> found = probes.stream().map(CompletableFuture::join).toList();
    Set<String> probed = new TreeSet<>();
    found.forEach(p -> probed.add(p.thread()));
    Set<String> live = new TreeSet<>();
    Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith(namePrefix))
        .forEach(live::add);
    if (!probed.equals(live) || probed.size() != threads) {
      throw new IllegalStateException("probed " + probed + " but the live threads of " + namePrefix + " are " + live);
    }
    return found;
  }
}
