package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneSegmentGenerator;
import io.geneid.core.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link GeneSegmentGenerator} over {@link RedisSegmentStore} on the real Redis. */
class RedisSegmentGeneratorTest {

  private final SegmentRedis redis = new SegmentRedis();
  private final List<AutoCloseable> resources = new ArrayList<>();
  /** A clock the test moves: step adaptation and prefetch retries stand still unless the test says so. */
  private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
  private final GeneClock clock = now::get;

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    redis.close();
  }

  private RedisSegmentStore store(String uri) {
    RedisSegmentStore store = RedisSegmentStore.builder(uri).keyPrefix(redis.prefix)
        .timeout(Duration.ofMillis(500)).build();
    resources.add(store);
    return store;
  }

  private GeneSegmentGenerator generator(RedisSegmentStore store, long minStep, long maxStep, GeneClock clock) {
    GeneSegmentGenerator g = GeneSegmentGenerator.builder(store, "order").minStep(minStep).maxStep(maxStep)
        .clock(clock).build();
    resources.add(g);
    return g;
  }

  @Test
  void threadsOfTwoGeneratorsOnOneRedisNeverIssueTheSameId() throws Exception {
    GeneSegmentGenerator g1 = generator(store(SegmentRedis.URI), 10, 100, GeneClock.system());
    GeneSegmentGenerator g2 = generator(store(SegmentRedis.URI), 10, 100, GeneClock.system());
    int threads = 4;
    int perThread = 50_000;
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        GeneSegmentGenerator g = t % 2 == 0 ? g1 : g2;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            String parent = "customer-" + i;
            long id = (i & 1) == 0 ? g.nextId() : g.nextIdFor(parent);
            if (!ids.add(id)) {
              throw new AssertionError("duplicate id " + id);
            }
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(ids).hasSize(threads * perThread).allMatch(id -> id > 0);
  }

  @Test
  void aRestartedGeneratorContinuesAboveEveryValueHandedOutBefore() throws Exception {
    RedisSegmentStore store = store(SegmentRedis.URI);
    GeneSegmentGenerator first = generator(store, 100, 1000, clock);
    long highestBefore = 0;
    for (int i = 0; i < 2_500; i++) {
      highestBefore = Math.max(highestBefore, first.valueOf(first.nextId()));
    }
    await(() -> first.status().nextReady());
    first.close();
    long counter = Long.parseLong(redis.redis().get(store.key("order")));
    assertThat(counter).isGreaterThan(highestBefore);

    GeneSegmentGenerator second = generator(store(SegmentRedis.URI), 100, 1000, clock); // a new process
    assertThat(second.valueOf(second.nextId())).isEqualTo(counter + 1);
    for (int i = 0; i < 1_000; i++) {
      assertThat(second.valueOf(second.nextId())).isGreaterThan(highestBefore);
    }
  }

  @Test
  void aRedisOutageIsRiddenOutThenFailsFastAndClearlyThenResumesWithoutReuse() throws Exception {
    TcpProxy proxy = new TcpProxy("127.0.0.1", SegmentRedis.PORT);
    resources.add(proxy);
    RedisSegmentStore store = store("redis://127.0.0.1:" + proxy.port());
    GeneSegmentGenerator g = generator(store, 100, 100, clock);
    Set<Long> values = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      values.add(g.valueOf(g.nextId()));
    }
    await(() -> g.status().nextReady());

    proxy.stop();
    for (int i = 0; i < 190; i++) { // the rest of the current segment and all of the prefetched one
      assertThat(values.add(g.valueOf(g.nextId()))).isTrue();
    }
    long start = System.nanoTime();
    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("no ids left for tag 'order': its segments are used up and the segment store "
            + "RedisSegmentStore[redis://127.0.0.1:" + proxy.port() + "/0, keyPrefix=" + redis.prefix
            + "] failed to hand out the next segment: ")
        .cause().isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("the Redis segment store at redis://127.0.0.1:" + proxy.port()
            + "/0 could not hand out 100 values of tag 'order' (INCRBY " + redis.prefix + "order): ");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));

    proxy.start();
    long resumed = issueOnceTheStoreIsBack(g);
    assertThat(values.add(resumed)).isTrue();
    for (int i = 0; i < 300; i++) {
      long v = g.valueOf(g.nextId());
      assertThat(v).isGreaterThan(200);
      assertThat(values.add(v)).as("value %d reused", v).isTrue();
    }
    assertThat(values).hasSize(501);
  }

  @Test
  void aRedisThatLostItsCounterIsRefusedInsteadOfReusingValues() {
    RedisSegmentStore store = store(SegmentRedis.URI);
    GeneSegmentGenerator g = generator(store, 10, 10, clock);
    for (int i = 0; i < 5; i++) {
      g.nextId();
    }
    await(() -> g.status().nextReady());
    redis.redis().del(store.key("order")); // what a restart of a Redis without persistence does
    for (int i = 0; i < 15; i++) {
      g.nextId(); // values 6..20 were fetched before the loss
    }
    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
        .hasMessageContaining("for tag 'order', which is not above the highest value already handed out (20): the "
            + "store lost or reset its counter, refusing the segment so that no id is issued twice");
  }

  /** Lettuce reconnects on its own schedule (at most 2 s apart): each failure until then must be the clear one. */
  private static long issueOnceTheStoreIsBack(GeneSegmentGenerator g) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      try {
        return g.valueOf(g.nextId());
      } catch (GeneIdException e) {
        assertThat(e).hasMessageStartingWith("no ids left for tag 'order'");
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the generator did not resume within 20 s after Redis came back", e);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // polling for the reconnect
      }
    }
  }

  static void await(BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
