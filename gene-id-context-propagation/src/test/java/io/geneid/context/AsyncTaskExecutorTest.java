package io.geneid.context;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneContext;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.testing.GeneProbe;
import io.geneid.core.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * {@code @Async} on the task executor Spring Boot configures, decorated by a {@link ContextPropagatingTaskDecorator}
 * bean (Boot applies a {@code TaskDecorator} bean to its executor): the method runs with its caller's gene, and
 * afterwards no thread of the pool keeps a scope.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class AsyncTaskExecutorTest {

  private static final int THREADS = 2;
  private static ConfigurableApplicationContext context;

  @Configuration(proxyBeanMethods = false)
  @EnableAsync
  @ImportAutoConfiguration(TaskExecutionAutoConfiguration.class)
  static class App {
    // docs begin
    @Bean
    ContextPropagatingTaskDecorator contextPropagatingTaskDecorator() {
      return new ContextPropagatingTaskDecorator();
    }
    // docs end

    @Bean
    Items items() {
      return new Items();
    }
  }

  /** A service whose ids are made on the executor's threads. */
  static class Items {
    private final GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(13)
        .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared();

    public GeneSnowflakeGenerator ids() {
      return ids;
    }

    @Async
    public CompletableFuture<Long> insert() {
      return CompletableFuture.completedFuture(ids.nextId());
    }

    @Async
    public CompletableFuture<GeneContext.Scope> leaveAScopeOpen() {
      return CompletableFuture.completedFuture(GeneContext.inherit(43L));
    }
  }

  @BeforeAll
  static void start() {
    context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
        .properties("spring.task.execution.pool.core-size=" + THREADS, "spring.task.execution.pool.max-size=" + THREADS,
            "spring.task.execution.thread-name-prefix=gene-async-", "spring.main.banner-mode=off",
            "spring.main.log-startup-info=false")
        .run();
  }

  @AfterAll
  static void stop() {
    context.close();
  }

  /** The pool's own threads, probed past the decorator (which would give the probe the prober's empty state). */
  private static List<GeneProbe> probePool() {
    ThreadPoolTaskExecutor executor = context.getBean("applicationTaskExecutor", ThreadPoolTaskExecutor.class);
    return GeneProbe.onEveryThread(executor.getThreadPoolExecutor(), THREADS, "gene-async-");
  }

  @Test
  void anAsyncMethodRunsWithItsCallersGeneAndLeavesNoScopeBehind() throws Exception {
    Items items = context.getBean(Items.class);
    List<Future<Long>> made = new ArrayList<>();
    for (long parent = 0; parent < 256; parent++) {
      try (var scope = GeneContext.inherit(parent)) {
        made.add(items.insert());
      }
    }
    for (int parent = 0; parent < made.size(); parent++) {
      assertThat(items.ids().getGene(made.get(parent).get())).isEqualTo(parent & 63);
    }
    List<Long> roots = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      roots.add(items.ids().getGene(items.insert().get()));
    }
    assertThat(roots.stream().distinct().count()).as("root ids of callers without a scope spread").isGreaterThan(16);
    // a method that leaves a scope open: the decorator gives the thread back its own state afterwards
    for (int i = 0; i < 8; i++) {
      items.leaveAScopeOpen().get();
    }
    assertThat(probePool()).allMatch(GeneProbe::clean);
    assertThat(context.getBean("applicationTaskExecutor", ThreadPoolTaskExecutor.class).getThreadNamePrefix())
        .isEqualTo("gene-async-");
  }
}
