package io.geneid.core.snowflake;


import io.geneid.core.testing.TestTime;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.lease.StaticWorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GeneIdRegistryTest {

  // epochs and worker ids used here are unique to this class: the registry and the claims are JVM-wide
  private static final GeneIdLayout LAYOUT = GeneIdLayout.builder().epoch(Instant.parse("2025-06-01T00:00:00Z"))
      .build();

  @TempDir Path dir;

  @Test
  void buildSharesOneInstancePerLayoutAndWorker() {
    GeneSnowflakeGenerator a = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(200).build();
    GeneSnowflakeGenerator b = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(200).build();
    GeneSnowflakeGenerator other = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(201).build();
    assertThat(b).isSameAs(a);
    assertThat(other).isNotSameAs(a);
    assertThat(GeneIdRegistry.find(LAYOUT, 200)).containsSame(a);
    assertThat(GeneIdRegistry.find(LAYOUT, 202)).isEmpty();
    assertThat(GeneIdRegistry.all()).contains(a, other);
    // buildUnshared takes no claim: nothing stops it (which is why it is for tests only)
    assertThat(GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(200).buildUnshared()).isNotSameAs(a);
  }

  @Test
  void conflictingSettingsForTheSameWorkerAreRefused() {
    GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(210).build();
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(210).maxBorrowMillis(99)
            .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("a GeneSnowflakeGenerator for worker id 210 and " + LAYOUT
            + " already exists in this JVM as GeneSnowflakeGenerator[workerId=210, ")
        .hasMessageContaining("a second one with maxBorrowMillis=99")
        .hasMessageEndingWith("would issue duplicate ids. Build it with the same settings to share it.");
  }

  @Test
  void aLaterHighWaterMarkRaisesTheSharedInstance() {
    GeneSnowflakeGenerator a = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(220).build();
    Instant mark = Instant.now().plusMillis(5);
    GeneSnowflakeGenerator b = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(220).highWaterMark(mark)
        .build();
    assertThat(b).isSameAs(a);
    assertThat(LAYOUT.decode(a.nextId(4)).timestamp()).isAfter(mark);
  }

  // ---------------------------------------------------------------- claims (#11 scenario 6)

  /**
   * #11 scenario 6. Before: the builder's generator and the static sharedGenerator both issued for worker id 1, and
   * 2 threads on each for 300 ms gave 37,197 duplicates among 1,231,118 ids. Now the second one is refused.
   */
  @Test
  void aBuiltGeneratorAndASharedStaticGeneratorForOneWorkerIdAreNeverBothCreated() {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(Instant.parse("2024-06-06T00:00:00Z")).build();
    GeneSnowflakeGenerator fixed = GeneSnowflakeGenerator.builder().layout(layout).workerId(1).build();
    Map<String, String> props = Map.of("worker-id", "1", "epoch", Long.toString(layout.epoch().toEpochMilli()),
        "mark-file", dir.resolve("w1.mark").toString(), "space", "scenario6");
    for (int attempt = 0; attempt < 2; attempt++) { // the refused attempt left no lock behind: same answer again
      assertThatThrownBy(() -> LeasedGenerators.sharedGenerator(props))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("worker id 1 (epoch 2024-06-06T00:00:00Z) is already used in this JVM by "
              + "GeneSnowflakeGenerator.builder().build() [workerId=1, " + layout)
          .hasMessageContaining("shared for the JVM's life] (claim #")
          .hasMessageContaining("; a second generator, LeasedGeneGenerator of space 'scenario6' from "
              + "StaticWorkerIdAssigner[space=scenario6, workerId=1, ")
          .hasMessageContaining("would issue the same ids");
    }
    assertThat(GeneIdRegistry.allShared()).noneMatch(g -> g.toString().contains("scenario6"));
    assertThat(fixed.nextId()).isPositive();
  }

  @Test
  void aBuildIsRefusedWhileALeasedGeneratorHoldsTheWorkerIdAndStartsAfterItsMarkOnceItLetGo() {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(Instant.parse("2024-06-07T00:00:00Z")).build();
    Map<String, String> props = Map.of("worker-id", "2", "epoch", Long.toString(layout.epoch().toEpochMilli()),
        "mark-file", dir.resolve("w2.mark").toString(), "space", "scenario6b", "max-borrow-millis", "2000",
        "sequence-bits", "0", "gene-bits", "0", "worker-bits", "22");
    GeneIdLayout leasedLayout = GeneIdLayout.builder().epoch(layout.epoch()).sequenceBits(0).geneBits(0)
        .workerBits(22).build();
    Instant leasedMark;
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> leased = LeasedGenerators.sharedGenerator(props)) {
      for (int i = 0; i < 500; i++) {
        leased.nextId(); // one id per ms: these borrow up to 500 ms ahead
      }
      // another layout, same epoch and worker id: the timestamps would still collide
      assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().layout(layout).workerId(2).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("worker id 2 (epoch 2024-06-07T00:00:00Z) is already used in this JVM by "
              + "LeasedGeneGenerator of space 'scenario6b'")
          .hasMessageContaining("; a second generator, GeneSnowflakeGenerator.builder().build() [workerId=2, "
              + layout);
      assertThat(GeneIdRegistry.find(layout, 2)).isEmpty();
      leasedMark = leased.generator().highWaterMark();
    }
    // the leased generator let go (its mark kept with the claim): the build now succeeds and starts after it
    GeneSnowflakeGenerator fixed = GeneSnowflakeGenerator.builder().layout(leasedLayout).workerId(2)
        .maxBorrowMillis(2000).build();
    assertThat(leasedLayout.decode(fixed.nextId()).timestamp()).isAfter(leasedMark);
  }

  @Test
  void twoClassLoadersShareTheClaimsThroughTheSystemProperties() throws Exception {
    URL classes = GeneIdRegistry.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader first = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
        URLClassLoader second = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
      Class<?> inFirst = first.loadClass(GeneSnowflakeGenerator.class.getName());
      assertThat(inFirst).isNotSameAs(GeneSnowflakeGenerator.class); // a registry of its own
      assertThat(buildIn(first, 243)).isNotNull();
      assertThatThrownBy(() -> buildIn(second, 243))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("worker id 243 (epoch " + GeneIdLayout.DEFAULT_EPOCH + ") is already used in "
              + "this JVM by GeneSnowflakeGenerator.builder().build() [workerId=243, ");
      // and this test's own class loader, a third registry, is refused too
      assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().workerId(243).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is already used in this JVM by GeneSnowflakeGenerator.builder().build()");
    }
  }

  private static Object buildIn(ClassLoader loader, long workerId) throws Exception {
    Class<?> type = loader.loadClass(GeneSnowflakeGenerator.class.getName());
    Object builder = type.getMethod("builder").invoke(null);
    builder.getClass().getMethod("workerId", long.class).invoke(builder, workerId);
    try {
      return builder.getClass().getMethod("build").invoke(builder);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw (Exception) e.getCause();
    }
  }

  // ---------------------------------------------------------------- restart (#11 scenario 5)

  /**
   * #11 scenario 5, fixed worker id without a mark. Before: run B, started at once after run A crashed, repeated
   * 17,792 of A's 20,000 ids (A had borrowed ~1.2 s ahead). Now B starts after its clock + maxBorrowMillis.
   */
  @Test
  void aQuickRestartOfAFixedWorkerIdRepeatsNoneOfTheIdsTheCrashedRunBorrowed() {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(Instant.parse("2024-05-05T00:00:00Z")).timestampBits(41)
        .workerBits(18).sequenceBits(4).geneBits(0).build();
    // run A: another process (buildUnshared: no claim, as if in another JVM) that borrows ahead, then dies
    GeneSnowflakeGenerator runA = GeneSnowflakeGenerator.builder().layout(layout).workerId(3).maxBorrowMillis(5000)
        .buildUnshared();
    Set<Long> issuedByA = new HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      issuedByA.add(runA.nextId());
    }
    assertThat(runA.stats().borrowDebt().toMillis()).as("run A borrowed ahead").isGreaterThan(200);
    GeneSnowflakeGenerator runB = GeneSnowflakeGenerator.builder().layout(layout).workerId(3).maxBorrowMillis(5000)
        .build();
    int repeats = 0;
    for (int i = 0; i < 20_000; i++) {
      if (issuedByA.contains(runB.nextId())) {
        repeats++;
      }
    }
    assertThat(repeats).isZero();
  }

  @Test
  void aBuildWithoutAMarkStartsAfterItsClockPlusMaxBorrow() {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(Instant.parse("2024-05-06T00:00:00Z")).build();
    ManualClock clock = new ManualClock(layout.epoch().toEpochMilli() + 86_400_000L).tickEvery(1);
    long atBuild = clock.now();
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().layout(layout).workerId(4).clock(clock)
        .maxBorrowMillis(50).build();
    assertThat(layout.decode(g.nextId()).timestamp().toEpochMilli()).isGreaterThan(atBuild + 50);
    // an explicit mark is the caller's word for the worker id's history: no floor beyond it
    GeneSnowflakeGenerator marked = GeneSnowflakeGenerator.builder().layout(layout).workerId(5).clock(clock)
        .maxBorrowMillis(50).highWaterMark(Instant.ofEpochMilli(clock.now())).build();
    assertThat(layout.decode(marked.nextId()).timestamp().toEpochMilli()).isLessThan(clock.now() + 50);
  }

  // ---------------------------------------------------------------- shared by configuration (#11 scenario 10)

  @Test
  void handlesAreCountedAndTheLastCloseClosesTheGenerator() {
    AtomicInteger created = new AtomicInteger();
    Closeable first = new Closeable(300);
    GeneIdRegistry.Handle<Closeable> a = GeneIdRegistry.acquire("test:counted", () -> {
      created.incrementAndGet();
      return first;
    });
    GeneIdRegistry.Handle<Closeable> b = GeneIdRegistry.acquire("test:counted", () -> {
      throw new AssertionError("created twice");
    });
    assertThat(b).isNotSameAs(a);
    assertThat(b.generator()).isSameAs(a.generator()).isSameAs(first);
    assertThat(GeneIdRegistry.users("test:counted")).isEqualTo(2);
    a.close();
    a.close(); // idempotent: does not count twice
    assertThat(GeneIdRegistry.users("test:counted")).isEqualTo(1);
    assertThat(first.closed).isFalse();
    assertThat(b.nextId()).isPositive();
    assertThatThrownBy(a::nextId).isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("this handle on the shared generator ").hasMessageContaining(" is closed");
    b.close();
    assertThat(first.closed).isTrue();
    assertThat(GeneIdRegistry.findShared("test:counted")).isEmpty();
    assertThat(GeneIdRegistry.allShared()).doesNotContain(first);
    // a later call creates a new one
    GeneIdRegistry.Handle<Closeable> c = GeneIdRegistry.acquire("test:counted", () -> new Closeable(301));
    assertThat(c.generator()).isNotSameAs(first);
    assertThat(created).hasValue(1);
    c.close();
  }

  /**
   * Before: {@code ConcurrentHashMap.computeIfAbsent} ran the factory with the map bin locked, and getting a key B of
   * the same bin waited 2,017 ms for key A's 2 s factory.
   */
  @Test
  void aSlowFactoryForOneKeyDoesNotBlockAnotherKey() throws Exception {
    String keyA = "test:slow-A";
    String keyB = sameBin(keyA);
    CountDownLatch inFactory = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<GeneIdRegistry.Handle<Closeable>> slow = pool.submit(() -> GeneIdRegistry.acquire(keyA, () -> {
        inFactory.countDown();
        await(release);
        return new Closeable(302);
      }));
      assertThat(inFactory.await(5, TimeUnit.SECONDS)).isTrue();
      // a second caller of key A waits for the first one's generator instead of creating one
      Future<GeneIdRegistry.Handle<Closeable>> sameKey = pool.submit(() -> GeneIdRegistry.acquire(keyA, () -> {
        throw new AssertionError("key A created twice");
      }));
      long start = System.nanoTime();
      try (GeneIdRegistry.Handle<Closeable> b = GeneIdRegistry.acquire(keyB, () -> new Closeable(303))) {
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMillis).as("key B while key A's factory runs").isLessThan(1_000);
        assertThat(b.nextId()).isPositive();
      }
      assertThat(slow.isDone()).isFalse();
      assertThat(sameKey.isDone()).isFalse();
      release.countDown();
      GeneIdRegistry.Handle<Closeable> a1 = slow.get(5, TimeUnit.SECONDS);
      GeneIdRegistry.Handle<Closeable> a2 = sameKey.get(5, TimeUnit.SECONDS);
      assertThat(a2.generator()).isSameAs(a1.generator());
      assertThat(GeneIdRegistry.users(keyA)).isEqualTo(2);
      a1.close();
      a2.close();
      assertThat(a1.generator().closed).isTrue();
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void aFailedFactoryFailsItsWaitersAndTheNextCallTriesAgain() throws Exception {
    CountDownLatch inFactory = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> failing = pool.submit(() -> GeneIdRegistry.acquire("test:failing", () -> {
        inFactory.countDown();
        await(release);
        throw new GeneIdException("store unreachable");
      }));
      assertThat(inFactory.await(5, TimeUnit.SECONDS)).isTrue();
      java.util.concurrent.CompletableFuture<Object> waited = new java.util.concurrent.CompletableFuture<>();
      Thread waiter = new Thread(() -> {
        try {
          waited.complete(GeneIdRegistry.acquire("test:failing", () -> new Closeable(304)));
        } catch (Throwable t) {
          waited.completeExceptionally(t);
        }
      });
      waiter.start();
      Await.until(() -> waiter.getState() == Thread.State.WAITING, java.time.Duration.ofSeconds(5),
          "the second caller waiting for the first one's factory");
      release.countDown();
      assertThatThrownBy(() -> failing.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(GeneIdException.class)
          .hasMessage("store unreachable");
      assertThatThrownBy(() -> waited.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(GeneIdException.class)
          .hasMessage("store unreachable");
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
    try (GeneIdRegistry.Handle<Closeable> next = GeneIdRegistry.acquire("test:failing", () -> new Closeable(305))) {
      assertThat(next.nextId()).isPositive();
    }
  }

  @Test
  void theShutdownHookClosesEverySharedGeneratorWhateverItsHandleCount() {
    GeneIdRegistry.Handle<Closeable> a = GeneIdRegistry.acquire("test:hook-a", () -> new Closeable(306));
    GeneIdRegistry.Handle<Closeable> a2 = GeneIdRegistry.acquire("test:hook-a", () -> new Closeable(307));
    Closeable b = GeneIdRegistry.shared("test:hook-b", () -> new Closeable(308)); // held for the JVM's life
    GeneIdRegistry.closeAllShared(); // what the one hook of the registry runs
    assertThat(a.generator().closed).isTrue();
    assertThat(b.closed).isTrue();
    assertThat(GeneIdRegistry.users("test:hook-a")).isZero();
    assertThat(GeneIdRegistry.allShared()).doesNotContain(a.generator(), b);
    a.close(); // late handles close quietly
    a2.close();
  }

  @Test
  void aGeneratorClosedDirectlyLeavesTheRegistryAndItsHandlesFailLikeIt() {
    Map<String, String> props = Map.of("worker-id", "14", "mark-file", dir.resolve("w14.mark").toString(),
        "space", "direct", "lease-ttl", TestTime.seconds(1).toMillis() + "ms"); // issues on the system clock
    GeneIdRegistry.Handle<LeasedGeneGenerator> handle = LeasedGenerators.sharedGenerator(props);
    handle.generator().close(); // for every user: the handle's javadoc says to close the handle instead
    assertThat(GeneIdRegistry.users(handle.key())).isZero();
    assertThat(GeneIdRegistry.allShared()).doesNotContain(handle.generator());
    assertThatThrownBy(handle::nextId).isInstanceOf(GeneIdException.class).hasMessageContaining("is closed");
    handle.close();
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> again = LeasedGenerators.sharedGenerator(props)) {
      assertThat(again.generator()).isNotSameAs(handle.generator());
      assertThat(again.nextId()).isPositive();
    }
  }

  /** A key whose ConcurrentHashMap bin (for tables up to 1024 bins) is {@code key}'s. */
  private static String sameBin(String key) {
    for (int i = 0; ; i++) {
      String candidate = "test:fast-B-" + i;
      if ((spread(candidate) & 1023) == (spread(key) & 1023)) {
        return candidate;
      }
    }
  }

  private static int spread(String k) {
    int h = k.hashCode();
    return (h ^ (h >>> 16)) & 0x7fffffff;
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** A generator that records whether it was closed. */
  static final class Closeable implements GeneIdGenerator, AutoCloseable {
    private final GeneSnowflakeGenerator ids;
    volatile boolean closed;

    Closeable(long workerId) {
      this.ids = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(workerId % 256).buildUnshared();
    }

    @Override
    public long nextId() {
      return ids.nextId();
    }

    @Override
    public long nextId(long gene) {
      return ids.nextId(gene);
    }

    @Override
    public long[] nextIds(int n) {
      return ids.nextIds(n);
    }

    @Override
    public long[] nextIdsFor(long parentKey, int n) {
      return ids.nextIdsFor(parentKey, n);
    }

    @Override
    public long nextIdFor(long parentKey) {
      return ids.nextIdFor(parentKey);
    }

    @Override
    public long nextIdFor(String parentKey) {
      return ids.nextIdFor(parentKey);
    }

    @Override
    public long nextIdForKey(Object parentKey) {
      return ids.nextIdForKey(parentKey);
    }

    @Override
    public long getGene(long id) {
      return ids.getGene(id);
    }

    @Override
    public int geneBits() {
      return ids.geneBits();
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
