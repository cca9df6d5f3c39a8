package io.geneid.core.bucket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.bucket.BucketMapStore.MoveProgress;
import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import io.geneid.core.testing.ManualClock;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BucketMapStore} must do, run against the real store by one subclass per backend (as
 * {@code AbstractWorkerIdAssignerContractTest} is): maps stored once and changed by version only, large irregular
 * maps, router heartbeats, a move's progress, one winner among racing writers, and a {@link BucketMapRouter} over
 * the store learning a new map within its refresh interval and fencing its writes when the store is out of reach.
 * Each test works on a store of its own names (a table, a key prefix) that the subclass removes afterwards.
 */
public abstract class AbstractBucketMapStoreContractTest {

  /** The store under test, the same instance for the whole test. */
  protected abstract BucketMapStore store();

  /**
   * A second store over the same data, with a connection of its own that {@link #cutOff(BucketMapStore)} can take
   * away without touching {@link #store()}.
   */
  protected abstract BucketMapStore ownStore() throws Exception;

  /** Makes {@code own} (from {@link #ownStore()}) unable to reach the store from now on. */
  protected abstract void cutOff(BucketMapStore own) throws Exception;

  /** How the error of {@code own}'s failed {@code load(name)} starts, e.g. {@code the JDBC bucket map store ...}. */
  protected abstract String loadFailure(BucketMapStore own, String name);

  @Test
  void storesAMapOnceAndChangesItByVersion() {
    BucketMapStore store = store();
    assertThat(store.load("orders")).isEmpty();
    BucketMap two = BucketMap.ofMod(6, 2, 1).withVersion(1);
    assertThat(store.compareAndSet("orders", -1, two)).isTrue();
    assertThat(store.compareAndSet("orders", -1, two)).as("a second first map").isFalse();
    assertThat(store.load("orders")).contains(two);

    BucketMap frozen = two.withState(List.of(2, 6, 10), BucketState.FROZEN).withVersion(2);
    assertThat(store.compareAndSet("orders", 0, frozen)).as("a stale expected version").isFalse();
    assertThat(store.compareAndSet("orders", 1, frozen)).isTrue();
    assertThat(store.load("orders")).contains(frozen);
    assertThat(store.load("orders").orElseThrow().state(6)).isEqualTo(BucketState.FROZEN);

    BucketMap grown = BucketPlanner.plan(two, 4).next().withState(List.of(3), BucketState.MOVED).withVersion(3);
    assertThat(store.compareAndSet("orders", 2, grown)).isTrue();
    assertThat(store.load("orders")).contains(grown);
    assertThat(store.load("items")).isEmpty();
    assertThatThrownBy(() -> store.compareAndSet("orders", 3, grown))
        .hasMessage("a new bucket map must have a version above 3 but had 3");
    BucketMap otherBits = BucketMap.ofMod(4, 2, 1).withVersion(4);
    assertThat(store.compareAndSet("orders", 3, otherBits)).as("another gene-bits: ids would route elsewhere")
        .isFalse();
    assertThat(store.load("orders")).contains(grown);
  }

  @Test
  void aLargeIrregularMapRoundTrips() {
    int[] targets = new int[1 << 16];
    for (int b = 0; b < targets.length; b++) {
      targets[b] = (int) ((b * 2654435761L >>> 7) % 13);
    }
    BucketMap map = BucketMap.of(16, targets).withVersion(1);
    assertThat(store().compareAndSet("big", -1, map)).isTrue();
    assertThat(store().load("big")).contains(map);
  }

  @Test
  void ofWritersRacingFromOneVersionExactlyOneWins() throws Exception {
    BucketMapStore store = store();
    BucketMap two = BucketMap.ofMod(6, 2, 1).withVersion(1);
    assertThat(store.compareAndSet("orders", -1, two)).isTrue();
    int writers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Boolean>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        BucketMap mine = two.withState(List.of(w), BucketState.FROZEN).withVersion(2);
        Callable<Boolean> cas = () -> {
          go.await();
          return store.compareAndSet("orders", 1, mine);
        };
        results.add(pool.submit(cas));
      }
      go.countDown();
      int won = -1;
      for (int w = 0; w < writers; w++) {
        if (results.get(w).get(30, TimeUnit.SECONDS)) {
          assertThat(won).as("a second winner").isEqualTo(-1);
          won = w;
        }
      }
      assertThat(won).as("a winner").isNotNegative();
      assertThat(store.load("orders").orElseThrow().bucketsIn(BucketState.FROZEN)).containsExactly(won);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @SuppressWarnings("deprecation") // the caller's time, the ignored router clock: on purpose
  void recordsEachRoutersVersion() {
    BucketMapStore store = store();
    assertThat(store.routers("orders")).isEmpty();
    store.heartbeat("orders", "app-1", 1, 1000);
    store.heartbeat("orders", "app-2", 1, 1001);
    store.heartbeat("orders", "app-1", 2, 1500);
    store.heartbeat("items", "app-1", 7, 1600);
    assertThat(store.routers("orders")).containsExactly(new RouterHeartbeat("app-1", 2, 1500),
        new RouterHeartbeat("app-2", 1, 1001));
    assertThat(store.routers("items")).containsExactly(new RouterHeartbeat("app-1", 7, 1600));
  }

  /**
   * Issue #38, scenario 8: two routers given one id (two data sources of one JVM with other refresh settings, or
   * containers running as pid 1 on one host network) heartbeat under two ids, each keeping the given one.
   */
  @Test
  void twoRoutersGivenOneIdHeartbeatUnderIdsOfTheirOwn() {
    store().compareAndSet("orders", -1, BucketMap.ofMod(6, 2, 1).withVersion(1));
    BucketMapRouter first = BucketMapRouter.builder(store(), "orders").routerId("host:1").build();
    BucketMapRouter second = BucketMapRouter.builder(store(), "orders").routerId("host:1")
        .refreshInterval(Duration.ofSeconds(30)).staleAfter(Duration.ofSeconds(60)).build();
    assertThat(first.refresh()).isTrue();
    assertThat(second.refresh()).isTrue();
    assertThat(store().routers("orders")).as("one heartbeat per router").extracting(RouterHeartbeat::routerId)
        .containsExactlyInAnyOrder(first.routerId(), second.routerId())
        .allSatisfy(id -> assertThat(id).startsWith("host:1#"));
    assertThat(store().liveRoutersOnePerId("orders", Duration.ofSeconds(30))).hasSize(2);
  }

  /**
   * Signs of two writers under one router id (a router of another version, or a store wrapper, sharing an id): a
   * heartbeat whose instance differs from the last one's, or whose version is lower. The mover's
   * {@link BucketMapStore#liveRoutersOnePerId} refuses while both writers are live, naming the id and both.
   */
  @Test
  void twoWritersUnderOneRouterIdAreSeenAndRefused() {
    BucketMapStore store = store();
    store.heartbeat("orders", "app", 3, "aaaa");
    store.heartbeat("orders", "app", 3, "aaaa");
    assertThat(store.liveRoutersOnePerId("orders", Duration.ofSeconds(30))).singleElement()
        .satisfies(r -> assertThat(r.other()).as("one instance beating again and again").isNull());
    store.heartbeat("orders", "app", 2, "bbbb");
    store.heartbeat("orders", "app", 3, "aaaa");
    assertThat(store.liveRouters("orders", Duration.ofSeconds(30))).singleElement().satisfies(r -> {
      assertThat(r.instance()).isEqualTo("aaaa");
      assertThat(r.other()).isNotNull();
      assertThat(r.other().instance()).isEqualTo("bbbb");
      assertThat(r.other().version()).isEqualTo(2);
    });
    assertThatThrownBy(() -> store.liveRoutersOnePerId("orders", Duration.ofSeconds(30)))
        .isInstanceOf(io.geneid.core.GeneIdException.class)
        .hasMessageContaining("router id 'app' of map 'orders'")
        .hasMessageContaining("instance aaaa at version 3").hasMessageContaining("instance bbbb at version 2");

    // without instances (a router of an older version): a version that goes back is the sign
    store.heartbeat("items", "old", 5);
    store.heartbeat("items", "old", 4);
    assertThatThrownBy(() -> store.liveRoutersOnePerId("items", Duration.ofSeconds(30)))
        .hasMessageContaining("router id 'old' of map 'items'").hasMessageContaining("at version 5");
    // a sign older than the window is a writer gone: not refused
    long storeNow = store.nowMillis("carts");
    @SuppressWarnings("deprecation") // the caller's time, to make a beat a minute old
    Runnable old = () -> store.heartbeat("carts", "gone", 9, storeNow - 60_000);
    old.run();
    store.heartbeat("carts", "gone", 8);
    assertThat(store.liveRoutersOnePerId("carts", Duration.ofSeconds(30))).singleElement()
        .satisfies(r -> assertThat(r.other()).as("the other writer, silent for a minute").isNull());
    assertThat(store.routers("carts")).singleElement().satisfies(r -> assertThat(r.other()).isNotNull());
  }

  @Test
  void keepsTheLastProgressOfEachMapsMove() throws Exception {
    BucketMapStore store = store();
    assertThat(store.progress("orders")).isEmpty();
    MoveProgress first = new MoveProgress(2, 0, 32, 500, 1_000, 1_250);
    store.saveProgress("orders", first);
    assertThat(store.progress("orders")).contains(first);
    MoveProgress later = new MoveProgress(5, 1, 32, 1_000_000_000_000L, 1_000, 9_000);
    store.saveProgress("orders", later);
    store.saveProgress("items", new MoveProgress(1, 3, 3, 0, 7, 8));
    assertThat(store.progress("orders")).as("replaces the last record").contains(later);
    assertThat(store.progress("items")).contains(new MoveProgress(1, 3, 3, 0, 7, 8));
    assertThat(store.load("orders")).as("progress is not a map").isEmpty();
    assertThat(ownStore().progress("orders")).as("another store over the same data").contains(later);
  }

  @Test
  void aRouterStartedWithAnOldMapLearnsTheNewOneWithinTheRefreshInterval() throws Exception {
    BucketMapStore store = store();
    BucketMap two = BucketMap.ofMod(6, 2, 1).withVersion(1);
    store.compareAndSet("orders", -1, two);
    AtomicReference<BucketMap> seen = new AtomicReference<>();
    try (BucketMapRouter router = BucketMapRouter.builder(store, "orders").routerId("app-1")
        .refreshInterval(Duration.ofMillis(100)).staleAfter(Duration.ofSeconds(30)).onNewMap(seen::set).build()) {
      router.start();
      assertThat(router.current()).isEqualTo(two);
      assertThat(seen.get()).isEqualTo(two);
      BucketMap four = BucketPlanner.plan(two, 4).next().withVersion(2);
      assertThat(store.compareAndSet("orders", 1, four)).isTrue();
      long deadline = System.nanoTime() + TestTime.seconds(10).toNanos();
      while (router.current().version() != 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(router.current()).isEqualTo(four);
      assertThat(seen.get()).isEqualTo(four);
      while (store.routers("orders").get(0).version() != 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(store.routers("orders")).extracting(RouterHeartbeat::routerId, RouterHeartbeat::version)
          .containsExactly(Tuple.tuple(router.routerId(), 2L));
      router.checkWritable();
    }
  }

  @Test
  void aRouterThatCannotReachTheStoreStopsWritesWithinItsBound() throws Exception {
    store().compareAndSet("orders", -1, BucketMap.ofMod(6, 2, 1).withVersion(1));
    ManualClock clock = new ManualClock(1_000_000);
    BucketMapStore own = ownStore();
    BucketMapRouter router = BucketMapRouter.builder(own, "orders").routerId("app-9")
        .refreshInterval(Duration.ofMillis(100)).staleAfter(Duration.ofMillis(500))
        .nanoTime(() -> clock.currentTimeMillis() * 1_000_000L).build();
    assertThat(router.refresh()).isTrue();
    router.checkWritable();
    cutOff(own); // the store is out of reach for this router
    clock.advance(300);
    assertThat(router.refresh()).isFalse();
    router.checkWritable(); // within the bound: still writing
    assertThat(router.current().version()).as("reads keep the last map").isEqualTo(1);
    clock.advance(201);
    assertThatThrownBy(router::checkWritable)
        .isInstanceOf(BucketMapStaleException.class)
        .hasMessageStartingWith("router " + router.routerId() + " refuses writes: bucket map 'orders' (version 1) was last refreshed"
            + " 501ms ago, more than stale-after 500ms; last error: " + loadFailure(own, "orders"))
        .satisfies(e -> assertThat(((BucketMapStaleException) e).staleMillis()).isEqualTo(501));
  }

  /**
   * Issue #29, scenario 4: a router whose host clock is two minutes behind (beyond a 30 s live window) is live all
   * the same, judged as a mover judges it: heartbeats carry the store's time, not the router host's.
   */
  @Test
  @SuppressWarnings("deprecation") // the caller's time, the ignored router clock: on purpose
  void aRouterWhoseClockIsBehindIsLiveByTheStoresClock() {
    store().compareAndSet("orders", -1, BucketMap.ofMod(6, 2, 1).withVersion(1));
    BucketMapRouter behind = BucketMapRouter.builder(store(), "orders").routerId("app-behind")
        .clock(() -> System.currentTimeMillis() - 120_000).build();
    assertThat(behind.refresh()).isTrue();
    long moversNow = System.currentTimeMillis(); // what the mover and the CLI compare heartbeats with
    assertThat(store().routers("orders")).singleElement().satisfies(r -> assertThat(moversNow - r.atMillis())
        .as("age of the heartbeat of a router whose clock is 120 s behind").isBetween(-5_000L, 30_000L));
    assertThat(store().liveRouters("orders", Duration.ofSeconds(30))).as("live by the store's own clock")
        .extracting(RouterHeartbeat::routerId).containsExactly(behind.routerId());
    long storeNow = store().nowMillis("orders");
    store().heartbeat("orders", "app-gone", 1, storeNow - 60_000); // silent for a minute, by the store's clock
    assertThat(store().liveRouters("orders", Duration.ofSeconds(30))).extracting(RouterHeartbeat::routerId)
        .containsExactly(behind.routerId());
    assertThat(store().liveRouters("orders", Duration.ofSeconds(90))).extracting(RouterHeartbeat::routerId)
        .containsExactly(behind.routerId(), "app-gone");
    assertThat(store().routers("orders")).hasSize(2);
  }

  /**
   * A router whose clock steps back an hour after its last refresh still fences its writes within stale-after
   * of losing the store: staleness is measured on a monotonic clock.
   */
  @Test
  @SuppressWarnings("deprecation") // the caller's time, the ignored router clock: on purpose
  void aRouterWhoseClockStepsBackStillFencesWithinItsBound() throws Exception {
    store().compareAndSet("orders", -1, BucketMap.ofMod(6, 2, 1).withVersion(1));
    java.util.concurrent.atomic.AtomicLong offset = new java.util.concurrent.atomic.AtomicLong();
    BucketMapStore own = ownStore();
    BucketMapRouter router = BucketMapRouter.builder(own, "orders").routerId("app-stepped")
        .refreshInterval(Duration.ofMillis(50)).staleAfter(Duration.ofMillis(300))
        .clock(() -> System.currentTimeMillis() + offset.get()).build();
    assertThat(router.refresh()).isTrue();
    cutOff(own);
    offset.set(-3_600_000); // an operator or NTP steps the wall clock back
    long deadline = System.nanoTime() + TestTime.seconds(10).toNanos();
    Throwable refused = null;
    while (refused == null && System.nanoTime() < deadline) {
      router.refresh();
      try {
        router.checkWritable();
        Thread.sleep(20);
      } catch (BucketMapStaleException e) {
        refused = e;
      }
    }
    assertThat(refused).as("writes fenced within 10 s (at the time scale) of losing the store").isInstanceOf(BucketMapStaleException.class);
  }

  @Test
  void aNeverLoadedRouterRefusesWrites() {
    BucketMapStore store = store();
    BucketMapRouter router = BucketMapRouter.builder(store, "nothing").routerId("app-3").build();
    assertThat(router.refresh()).isFalse();
    assertThatThrownBy(router::checkWritable).isInstanceOf(BucketMapStaleException.class)
        .hasMessageStartingWith("router " + router.routerId() + " refuses writes: bucket map 'nothing' was never loaded; last error:"
            + " no bucket map named 'nothing' in " + store);
    assertThatThrownBy(router::current).hasMessageStartingWith("bucket map 'nothing' has not been loaded");
    assertThatThrownBy(() -> BucketMapRouter.builder(store, "x").refreshInterval(Duration.ofSeconds(5)).build())
        .hasMessage("stale after (5000ms) must be longer than the refresh interval (5000ms), or every router"
            + " fences between refreshes");
  }
}
