package io.geneid.micrometer;

import io.geneid.core.snowflake.LeasedGenerators;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.Await;
import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.GeneClock;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.StaticWorkerIdAssigner;
import io.geneid.core.testing.TcpProxy;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.testing.TestTime;
import io.geneid.redis.RedisWorkerIdAssigner;
import io.geneid.redis.TestRedis;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Meters of {@link LeasedGeneGenerator}: over a static assigner with a mark file, and over the shared Redis. */
class LeasedGeneIdMetricsTest {

  /** Short, for a lease that lapses; at the tests' time scale, so that the one it keeps is kept on a busy machine. */
  private static final Duration TTL = TestTime.ofMillis(600);
  private static final String REDIS = "redis://127.0.0.1:6379";
  private static final List<String> LEASE_METERS = List.of(GeneIdMetrics.LEASE_REMAINING,
      GeneIdMetrics.LEASE_RENEWAL_FAILURES, GeneIdMetrics.LEASE_FENCINGS, GeneIdMetrics.LEASE_SWITCHES,
      GeneIdMetrics.LEASE_ISSUING, GeneIdMetrics.WORKER_ID);

  @TempDir Path dir;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void aLeasedGeneratorIsTaggedBySpaceNotWorkerId() {
    StaticWorkerIdAssigner assigner = StaticWorkerIdAssigner.builder().space("orders").workerId(42)
        .markFile(dir.resolve("w42.mark")).ttl(TTL).build();
    try (LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(assigner).build()) {
      GeneIdMetrics.of(g).bindTo(registry);
      for (int i = 0; i < 500; i++) {
        g.nextIdFor(i);
      }
      Tags tags = Tags.of("space", "orders", "layout", "T41-W8-S8-G6", "epoch", "2025-01-01T00:00:00Z");
      assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isEqualTo(500);
      assertThat(gauge(GeneIdMetrics.WORKER_ID, tags)).isEqualTo(42);
      assertThat(gauge(GeneIdMetrics.LEASE_ISSUING, tags)).isEqualTo(1);
      assertThat(millis(GeneIdMetrics.LEASE_REMAINING, tags)).isPositive().isLessThanOrEqualTo(TTL.toMillis());
      assertThat(counter(GeneIdMetrics.LEASE_RENEWAL_FAILURES, tags)).isZero();
      assertThat(counter(GeneIdMetrics.LEASE_FENCINGS, tags)).isZero();
      assertThat(counter(GeneIdMetrics.LEASE_SWITCHES, tags)).isZero();
      assertThat(millis(GeneIdMetrics.TIMESTAMP_REMAINING, tags)).isGreaterThan(TimeUnit.DAYS.toMillis(365L * 60));
      System.out.println(registry.getMetersAsString());
      assertThat(registry.getMeters()).hasSize(12)
          .allSatisfy(m -> assertThat(m.getId().getTag("worker.id")).isNull());
      g.close();
      assertThat(gauge(GeneIdMetrics.LEASE_ISSUING, tags)).isZero();
      assertThat(millis(GeneIdMetrics.LEASE_REMAINING, tags)).isZero();
    }
  }

  @Test
  void registeredBindsLeasedGeneratorsSharedByConfiguration() {
    String space = "shared-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    GeneIdRegistry.Handle<LeasedGeneGenerator> handle = LeasedGenerators.sharedGenerator(Map.of("worker-assigner", "static", "worker-id", "3",
        "mark-file", dir.resolve("w3.mark").toString(), "space", space,
        "lease-ttl", TestTime.seconds(1).toMillis() + "ms")); // on the system clock: at the time scale
    LeasedGeneGenerator shared = handle.generator();
    try {
      handle.nextId();
      GeneIdMetrics.registered().withTags(Tags.of("application", "orders")).bindTo(registry);
      Tags tags = Tags.of("space", space, "application", "orders");
      assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isEqualTo(1);
      assertThat(gauge(GeneIdMetrics.WORKER_ID, tags)).isEqualTo(3);
      for (String name : LEASE_METERS) {
        assertThat(registry.find(name).tags(tags).meters()).as(name).hasSize(1);
      }
    } finally {
      handle.close();
    }
    assertThat(GeneIdRegistry.allShared()).doesNotContain(shared);
  }

  @Test
  void aRedisLeaseCutOffShowsFailedRenewalsNoTimeLeftAndAFencing() throws Exception {
    try (TestRedis redis = new TestRedis("micrometer"); TcpProxy proxy = new TcpProxy("127.0.0.1", 6379)) {
      String space = redis.agedSpace();
      RedisWorkerIdAssigner assigner = assigner(redis, space, "redis://127.0.0.1:" + proxy.port());
      try (LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(assigner).build()) {
        GeneIdMetrics.of(g).bindTo(registry);
        Tags tags = Tags.of("space", space);
        g.nextId();
        assertThat(millis(GeneIdMetrics.LEASE_REMAINING, tags)).isPositive();
        long worker = g.workerId();

        proxy.stop(); // the store vanishes for this generator (the shared Redis keeps running)
        Await.until(() -> counter(GeneIdMetrics.LEASE_RENEWAL_FAILURES, tags) >= 1, Duration.ofSeconds(15),
            "a failed renewal");
        Await.until(() -> counter(GeneIdMetrics.LEASE_FENCINGS, tags) == 1, Duration.ofSeconds(15),
            "the lapse counted");
        assertThat(millis(GeneIdMetrics.LEASE_REMAINING, tags)).isZero();
        assertThat(gauge(GeneIdMetrics.LEASE_ISSUING, tags)).isZero();
        assertThat(gauge(GeneIdMetrics.WORKER_ID, tags)).isEqualTo(worker);
        assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isEqualTo(1);
        assertThat(g.stats().lastRenewalError()).isNotBlank();
      }
    }
  }

  @Test
  void aMoveToAnotherWorkerIdKeepsTheCountersGrowing() {
    try (TestRedis redis = new TestRedis("micrometer")) {
      String space = redis.agedSpace();
      AtomicLong offset = new AtomicLong();
      GeneClock steppable = () -> System.currentTimeMillis() + offset.get();
      try (LeasedGeneGenerator g = LeasedGeneGenerator.builder().assigner(assigner(redis, space, REDIS))
          .clock(steppable).clockBackwardsPolicy(ClockBackwardsPolicy.FAIL).build()) {
        GeneIdMetrics.of(g).bindTo(registry);
        Tags tags = Tags.of("space", space);
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 3_000; i++) {
          ids.add(g.nextId(i & 7));
        }
        long first = g.workerId();
        assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isEqualTo(3_000);
        assertThat(gauge(GeneIdMetrics.WORKER_ID, tags)).isEqualTo(first);

        offset.set(-5_000); // the wall clock steps back five seconds: the generator moves to a fresh worker id
        for (int i = 0; i < 2_000; i++) {
          assertThat(ids.add(g.nextId(i & 7))).isTrue();
        }
        assertThat(g.workerId()).isNotEqualTo(first);
        assertThat(counter(GeneIdMetrics.LEASE_SWITCHES, tags)).isEqualTo(1);
        assertThat(gauge(GeneIdMetrics.WORKER_ID, tags)).isEqualTo(g.workerId());
        // the first worker id's ids stay counted; the step back was seen once it moved
        assertThat(counter(GeneIdMetrics.IDS_ISSUED, tags)).isEqualTo(5_000);
        assertThat(counter(GeneIdMetrics.CLOCK_STEPBACKS, tags)).isGreaterThanOrEqualTo(1);
        assertThat(millis(GeneIdMetrics.CLOCK_STEPBACK_MAX, tags)).isGreaterThanOrEqualTo(4_900);
        assertThat(counter(GeneIdMetrics.LEASE_FENCINGS, tags)).isZero();
        assertThat(registry.find(GeneIdMetrics.IDS_ISSUED).meters()).hasSize(1); // one series across the move
      }
    }
  }

  private double counter(String name, Tags tags) {
    return registry.get(name).tags(tags).functionCounter().count();
  }

  private double gauge(String name, Tags tags) {
    return registry.get(name).tags(tags).gauge().value();
  }

  private double millis(String name, Tags tags) {
    return registry.get(name).tags(tags).timeGauge().value(TimeUnit.MILLISECONDS);
  }

  private static RedisWorkerIdAssigner assigner(TestRedis redis, String space, String uri) {
    return RedisWorkerIdAssigner.builder().redisUri(uri).keyPrefix(redis.prefix).space(space).workerIds(0, 3).ttl(TTL)
        .acquireTimeout(TestTime.seconds(5)).owner("metrics-test").build();
  }
}
