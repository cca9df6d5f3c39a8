package io.geneid.context;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneContext;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * Every {@code java} block of docs/threads.md is a region of a test of this module between docs markers (the Spring
 * bean is in {@link AsyncTaskExecutorTest}), and the regions run.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class ThreadsDocTest {

  private final GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(16)
      .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared();

  @Test
  void everyJavaBlockOfThreadsMdIsCodeOfATest() throws Exception {
    String page = Files.readString(Path.of("..", "docs", "threads.md"), StandardCharsets.UTF_8);
    List<String> blocks = new ArrayList<>();
    Matcher block = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(page);
    Set<String> imports = new HashSet<>();
    while (block.find()) {
      // a block's imports are lines of the test that holds its code; the rest is a region of that test
      StringBuilder code = new StringBuilder();
      block.group(1).lines().forEach(l -> {
        if (l.startsWith("import ")) {
          imports.add(l);
        } else {
          code.append(l).append('\n');
        }
      });
      blocks.add(code.toString().strip());
    }
    Set<String> regions = new HashSet<>();
    Set<String> testImports = new HashSet<>();
    for (String test : List.of("ThreadsDocTest.java", "AsyncTaskExecutorTest.java")) {
      String source = Files.readString(Path.of("src/test/java/io/geneid/context", test), StandardCharsets.UTF_8);
      Matcher region = Pattern.compile("// docs begin\\n(.*?)\\n\\s*// docs end", Pattern.DOTALL).matcher(source);
      while (region.find()) {
        regions.add(region.group(1).stripIndent().strip());
      }
      source.lines().filter(l -> l.startsWith("import ")).forEach(testImports::add);
    }
    assertThat(blocks).hasSize(3);
    assertThat(regions).containsAll(blocks);
    for (String i : imports) { // the tests need no import of this module's own package: load those
      if (i.startsWith("import io.geneid.context.")) {
        Class.forName(i.substring("import ".length(), i.length() - 1));
      } else {
        assertThat(testImports).as("the imports of the docs' blocks").contains(i);
      }
    }
  }

  @Test
  void executors() throws Exception {
    long orderId = 4244L;
    List<Long> items = Collections.synchronizedList(new ArrayList<>());
    // docs begin
    ExecutorService pool = GeneContext.wrap(Executors.newFixedThreadPool(4));
    Future<Long> itemId;
    CompletableFuture<Long> other;
    try (var scope = GeneContext.inherit(orderId)) {
      itemId = pool.submit(() -> ids.nextId());                        // runs with orderId's gene
      other = CompletableFuture.supplyAsync(ids::nextId,
          GeneContext.wrapExecutor(ForkJoinPool.commonPool()));        // so does this
      Runnable task = GeneContext.wrap(() -> {
        items.add(ids.nextId());                                       // and this, wherever it runs
      });
      new Thread(task).start();
    }
    // docs end
    try {
      assertThat(ids.getGene(itemId.get())).isEqualTo(orderId & 63);
      assertThat(ids.getGene(other.get())).isEqualTo(orderId & 63);
      long end = System.nanoTime() + 30_000_000_000L;
      while (items.isEmpty() && System.nanoTime() < end) {
        Thread.onSpinWait();
      }
      assertThat(items).singleElement().matches(id -> ids.getGene(id) == (orderId & 63));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void reactor() {
    long orderId = 4245L;
    List<Long> orderIds = List.of(1L, 2L, 3L, 70L);
    try {
      // docs begin
      Hooks.enableAutomaticContextPropagation();                         // once, at start-up
      Long itemId;
      try (var scope = GeneContext.inherit(orderId)) {
        itemId = Mono.fromCallable(ids::nextId).subscribeOn(Schedulers.boundedElastic())
            .publishOn(Schedulers.parallel()).block();                   // carries orderId's gene
      }
      Flux<Long> itemIds = Flux.fromIterable(orderIds)
          .flatMap(order -> Mono.fromCallable(ids::nextId).subscribeOn(Schedulers.parallel())
              .contextWrite(Context.of(GeneContextAccessor.KEY, order))); // each carries its order's gene
      // docs end
      assertThat(ids.getGene(itemId)).isEqualTo(orderId & 63);
      assertThat(itemIds.map(ids::getGene).collectList().block()).containsExactlyInAnyOrder(1L, 2L, 3L, 6L);
    } finally {
      Hooks.disableAutomaticContextPropagation();
    }
  }
}
