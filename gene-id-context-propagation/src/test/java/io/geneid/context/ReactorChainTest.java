package io.geneid.context;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneContext;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.testing.GeneProbe;
import io.geneid.core.testing.ManualClock;
import io.micrometer.context.ContextRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * A Reactor chain hopping schedulers with automatic context propagation: every id made on the way carries the gene of
 * the scope open at subscription (or of the parent key written into the context), and afterwards no thread of either
 * scheduler keeps a scope.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class ReactorChainTest {

  private static final Scheduler ELASTIC = Schedulers.newBoundedElastic(2, 100_000, "gene-elastic");
  private static final Scheduler PARALLEL = Schedulers.newParallel("gene-parallel", 2);

  private final GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(12)
      .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared();

  @BeforeAll
  static void propagate() {
    Hooks.enableAutomaticContextPropagation();
  }

  @AfterAll
  static void stop() {
    Hooks.disableAutomaticContextPropagation();
    ELASTIC.dispose();
    PARALLEL.dispose();
  }

  @AfterEach
  void noSchedulerThreadKeepsAGene() {
    assertThat(probeAll()).allMatch(GeneProbe::clean);
    assertThat(GeneContext.isActive()).isFalse();
  }

  /**
   * Every live thread of both schedulers, probed by tasks the schedulers run as they are: with automatic propagation
   * Reactor also wraps every scheduled task in the scheduling thread's context (a schedule hook), which would hide a
   * scope left on a thread, so it is off while probing.
   */
  private static List<GeneProbe> probeAll() {
    Hooks.disableAutomaticContextPropagation();
    try {
      List<GeneProbe> probes = new ArrayList<>();
      probes.addAll(GeneProbe.onEveryThread(PARALLEL::schedule, 2, "gene-parallel-"));
      int elastic = (int) Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().startsWith("gene-elastic-")).count();
      if (elastic > 0) {
        probes.addAll(GeneProbe.onEveryThread(ELASTIC::schedule, elastic, "gene-elastic-"));
      }
      return probes;
    } finally {
      Hooks.enableAutomaticContextPropagation();
    }
  }

  /** The ids of a chain that hops: subscribeOn elastic, publishOn parallel, back to elastic, then parallel. */
  private Mono<List<Long>> hoppingChain() {
    return Mono.fromCallable(ids::nextId).subscribeOn(ELASTIC)
        .publishOn(PARALLEL).map(first -> List.of(first, ids.nextId()))
        .flatMap(two -> Mono.fromCallable(() -> append(two, ids.nextId())).subscribeOn(ELASTIC))
        .delayElement(Duration.ofMillis(1), PARALLEL).map(three -> append(three, ids.nextId()));
  }

  private static List<Long> append(List<Long> list, long id) {
    List<Long> more = new ArrayList<>(list);
    more.add(id);
    return more;
  }

  @Test
  void theProbeSeesAScopeLeftOnASchedulerThread() {
    // the control: the final check can fail. Tasks scheduled as they are, with no propagation, leave scopes open
    Hooks.disableAutomaticContextPropagation();
    List<GeneContext.Scope> left = new ArrayList<>();
    for (int i = 0; i < 2; i++) { // the parallel scheduler hands tasks to its two threads in turn
      CompletableFuture<GeneContext.Scope> opened = new CompletableFuture<>();
      PARALLEL.schedule(() -> opened.complete(GeneContext.inherit(43L)));
      left.add(opened.join());
    }
    assertThat(GeneProbe.onEveryThread(PARALLEL::schedule, 2, "gene-parallel-")).noneMatch(GeneProbe::clean);
    Hooks.enableAutomaticContextPropagation();
    for (GeneContext.Scope scope : left) {
      try {
        scope.close(); // on another thread: it throws, and the scope ends on its own thread too
      } catch (IllegalStateException expected) {
        assertThat(expected).hasMessageStartingWith("GeneContext scope opened on gene-parallel-");
      }
    }
  }

  @Test
  void aScopeOpenAtSubscriptionReachesEverySchedulerTheChainHopsTo() {
    for (long parent = 0; parent < 200; parent++) {
      List<Long> made;
      try (var scope = GeneContext.inherit(parent)) {
        made = hoppingChain().block();
      }
      assertThat(made).hasSize(4);
      for (long id : made) {
        assertThat(ids.getGene(id)).isEqualTo(parent & 63);
      }
    }
  }

  @Test
  void withoutTheAccessorTheScopeStaysBehind() {
    // what the chain did before this module: the ids made on scheduler threads did not get the parent's gene
    assertThat(ContextRegistry.getInstance().removeThreadLocalAccessor(GeneContextAccessor.KEY)).isTrue();
    try {
      long withParentsGene = 0;
      for (long parent = 0; parent < 20; parent++) {
        try (var scope = GeneContext.inherit(parent)) {
          long gene = parent;
          withParentsGene += hoppingChain().block().stream().filter(id -> ids.getGene(id) == gene).count();
        }
      }
      assertThat(withParentsGene).isLessThan(20);
    } finally {
      ContextRegistry.getInstance().registerThreadLocalAccessor(new GeneContextAccessor());
    }
  }

  @Test
  void manyChainsWithDifferentParentsAtOnceEachNamingItsParentInTheContext() {
    List<List<Long>> all = Flux.range(0, 300)
        .flatMap(n -> hoppingChain().map(made -> append(made, n)).contextWrite(Context.of(GeneContextAccessor.KEY,
            "customer-" + n)), 32)
        .collectList().block();
    assertThat(all).hasSize(300);
    for (List<Long> made : all) {
      long n = made.get(4);
      long gene = ids.layout().geneOf("customer-" + n);
      assertThat(made.subList(0, 4)).allMatch(id -> ids.getGene(id) == gene, "gene " + gene);
    }
  }

  @Test
  void withoutAScopeTheChainSpreadsItsRootIds() {
    List<Long> genes = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      hoppingChain().block().forEach(id -> genes.add(ids.getGene(id)));
    }
    assertThat(genes.stream().distinct().count()).isGreaterThan(8);
  }

  @Test
  void contextCaptureCarriesTheScopeToSubscribe() throws Exception {
    CompletableFuture<List<Long>> done = new CompletableFuture<>();
    try (var scope = GeneContext.inherit(29L)) {
      hoppingChain().contextCapture().subscribe(done::complete, done::completeExceptionally);
    }
    assertThat(done.get()).allMatch(id -> ids.getGene(id) == 29);
  }
}
