package io.geneid.core.bucket;

import io.geneid.core.GeneIdException;
import io.geneid.core.internal.Checks;
import io.geneid.core.GeneClock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A router's view of a stored {@link BucketMap}: refreshes it from a {@link BucketMapStore} every
 * {@code refreshInterval}, records a heartbeat with the version it routes with, and fences its writes when it has
 * not refreshed for {@code staleAfter} ({@link #checkWritable()} then throws), as a lease holder does: a mover may
 * have frozen or switched a bucket since.
 *
 * <p>No wall clock of this host is used: a heartbeat carries the store's own time
 * ({@link BucketMapStore#heartbeat(String, String, long)}), and staleness is the time since the last successful
 * refresh on {@link System#nanoTime()}, which no clock step or skew moves.
 *
 * <pre>{@code
 * BucketMapRouter router = BucketMapRouter.builder(store, "orders").routerId("app-1").build();
 * router.start();                     // first refresh now, then every refresh interval, on a daemon thread
 * int target = router.current().target(gene);
 * router.checkWritable();             // before a write
 * }</pre>
 */
public final class BucketMapRouter implements AutoCloseable {

  private final BucketMapStore store;
  private final String name;
  private final String routerId;
  private final String instance;
  private final Duration refreshInterval;
  private final Duration staleAfter;
  private final LongSupplier nanoTime;
  private final Consumer<BucketMap> listener;
  private volatile @Nullable BucketMap map;
  private volatile long refreshedAtNanos;
  private volatile @Nullable Throwable lastError;
  private @Nullable ScheduledExecutorService timer;
  /** Statements routed and not yet run, by the thread that routed them: {version, routed at (nanos)}. */
  private final java.util.concurrent.ConcurrentHashMap<Thread, long[]> inFlight =
      new java.util.concurrent.ConcurrentHashMap<>();
  /** The started routers of this JVM, which {@link #statementRan()} tells. */
  private static final java.util.Set<BucketMapRouter> STARTED = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /**
   * A statement routed this long ago and never reported run (its connection never came, its thread died) no longer
   * holds the heartbeat back.
   */
  static final Duration IN_FLIGHT_BOUND = Duration.ofSeconds(60);

  private BucketMapRouter(Builder b) {
    this.store = b.store;
    this.name = b.name;
    this.instance = randomInstance();
    this.routerId = withInstance(b.routerId, instance);
    this.refreshInterval = b.refreshInterval;
    this.staleAfter = b.staleAfter;
    this.nanoTime = b.nanoTime;
    this.listener = b.listener;
  }

  /** A builder for the map stored under {@code name}. */
  public static Builder builder(BucketMapStore store, String name) {
    return new Builder(store, name);
  }

  /**
   * Loads the map now and records a heartbeat.
   *
   * @return whether it succeeded; a failure is kept for {@link #checkWritable()}'s message
   */
  public boolean refresh() {
    try {
      BucketMap loaded = store.load(name).orElseThrow(() -> new GeneIdException("no bucket map named '" + name
          + "' in " + store));
      long started = nanoTime.getAsLong(); // the load's start: staleness counts from when the map was read
      BucketMap old = map;
      if (old == null || old.version() != loaded.version()) {
        if (old != null && loaded.version() < old.version()) {
          throw new GeneIdException("bucket map '" + name + "' went back from version " + old.version() + " to "
              + loaded.version() + " in " + store + ": keeping version " + old.version());
        }
        listener.accept(loaded); // routing uses the new map before the heartbeat says so
        map = loaded;
      }
      store.heartbeat(name, routerId, Math.min(loaded.version(), oldestInFlight()), instance);
      refreshedAtNanos = started;
      lastError = null;
      return true;
    } catch (RuntimeException e) {
      lastError = e;
      return false;
    }
  }

  /**
   * Records that the calling thread is routing a statement now, with the version this router has now (or a newer
   * one): until {@link #statementRan()} on this thread, heartbeats report at most that version, so a mover waiting
   * for the routers to see a switch also waits for the statements routed before it (a read that waits for a pooled
   * connection must find its rows where it was routed). The sharding algorithm calls it before it reads the map; an
   * earlier mark of the thread (a batch) is kept.
   */
  public void routing() {
    BucketMap m = map;
    if (m != null) {
      inFlight.putIfAbsent(Thread.currentThread(), new long[] {m.version(), nanoTime.getAsLong()});
    }
  }

  /**
   * The calling thread's routed statements have run (or failed): called by the integration's execution hook once a
   * statement has reached its databases, for every started router of the JVM.
   */
  public static void statementRan() {
    Thread me = Thread.currentThread();
    for (BucketMapRouter r : STARTED) {
      r.inFlight.remove(me);
    }
  }

  /** The oldest version of a statement still in flight, {@code Long.MAX_VALUE} with none. */
  long oldestInFlight() {
    long oldest = Long.MAX_VALUE;
    long now = nanoTime.getAsLong();
    for (java.util.Iterator<java.util.Map.Entry<Thread, long[]>> it = inFlight.entrySet().iterator(); it.hasNext(); ) {
      java.util.Map.Entry<Thread, long[]> e = it.next();
      if (!e.getKey().isAlive() || now - e.getValue()[1] > IN_FLIGHT_BOUND.toNanos()) {
        it.remove();
      } else {
        oldest = Math.min(oldest, e.getValue()[0]);
      }
    }
    return oldest;
  }

  /** Refreshes now and then every refresh interval on a daemon thread, until {@link #close()}. */
  public synchronized void start() {
    if (timer != null) {
      return;
    }
    refresh();
    ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "gene-id-bucket-map-" + name);
      thread.setDaemon(true);
      return thread;
    });
    long ms = refreshInterval.toMillis();
    t.scheduleWithFixedDelay(this::refresh, ms, ms, TimeUnit.MILLISECONDS);
    timer = t;
    STARTED.add(this);
  }

  /**
   * The map to route with.
   *
   * @throws GeneIdException if no refresh has succeeded yet, with the last error
   */
  public BucketMap current() {
    BucketMap m = map;
    if (m == null) {
      throw new GeneIdException("bucket map '" + name + "' has not been loaded from " + store
          + (lastError == null ? "" : ": " + lastError.getMessage()), lastError);
    }
    return m;
  }

  /**
   * Throws if writes must stop: no refresh for {@code staleAfter} (or none yet).
   *
   * @throws BucketMapStaleException naming the map, its version, how long since the last refresh, and the last error
   */
  public void checkWritable() {
    BucketMap m = map;
    long stale = m == null ? Long.MAX_VALUE : (nanoTime.getAsLong() - refreshedAtNanos) / 1_000_000L;
    if (m == null || stale > staleAfter.toMillis()) {
      Throwable e = lastError;
      throw new BucketMapStaleException("router " + routerId + " refuses writes: bucket map '" + name + "'"
          + (m == null ? " was never loaded" : " (version " + m.version() + ") was last refreshed " + stale
          + "ms ago, more than stale-after " + staleAfter.toMillis() + "ms")
          + (e == null ? "" : "; last error: " + e.getMessage()) + ". Retry when the map store answers",
          m == null ? -1 : m.version(), stale, e);
    }
  }

  /**
   * The router id its heartbeats carry: the given id (or a random one) followed by {@code #} and this router
   * object's random {@link #instance()}, so that two routers given one id (two data sources of a JVM with other
   * refresh settings, containers running as pid 1 on one host network) never share a heartbeat.
   */
  public String routerId() {
    return routerId;
  }

  /** This router object's random token (12 hex digits), the end of its {@link #routerId()} and in its heartbeats. */
  public String instance() {
    return instance;
  }

  private static String randomInstance() {
    return String.format("%012x", new java.security.SecureRandom().nextLong() & 0xFFFF_FFFF_FFFFL);
  }

  /** {@code <given>#<instance>}, the given part cut at its end to fit 128 characters. */
  static String withInstance(String given, String instance) {
    int room = 128 - 1 - instance.length();
    return (given.length() <= room ? given : given.substring(0, room)) + "#" + instance;
  }

  /** Stops the refreshes. */
  @Override
  public synchronized void close() {
    STARTED.remove(this);
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
  }

  @Override
  public String toString() {
    BucketMap m = map;
    return "BucketMapRouter[" + name + ", router " + routerId + ", version " + (m == null ? "none" : m.version())
        + ", refresh " + refreshInterval.toMillis() + "ms, stale after " + staleAfter.toMillis() + "ms]";
  }

  /** Settings of a {@link BucketMapRouter}; only the store and the name are required. */
  public static final class Builder {
    private final BucketMapStore store;
    private final String name;
    private String routerId = "router";
    private Duration refreshInterval = Duration.ofSeconds(1);
    private Duration staleAfter = Duration.ofSeconds(5);
    private LongSupplier nanoTime = System::nanoTime;
    private Consumer<BucketMap> listener = m -> { };

    private Builder(BucketMapStore store, String name) {
      this.store = Objects.requireNonNull(store, "store");
      if (name.isEmpty() || name.length() > 128) {
        throw new IllegalArgumentException("bucket map name must have 1 to 128 characters but was '" + name + "'");
      }
      this.name = name;
    }

    /**
     * This router's id in heartbeats (1 to 128 characters), to which the router adds {@code #<random instance>}
     * ({@link BucketMapRouter#routerId()}; a longer id is cut to fit 128 characters); default {@code router}.
     */
    public Builder routerId(String id) {
      if (id.isEmpty() || id.length() > 128) {
        throw new IllegalArgumentException("router id must have 1 to 128 characters but was '" + id + "'");
      }
      this.routerId = id;
      return this;
    }

    /** How often to refresh, in [10ms, 1h]; default 1 s. */
    public Builder refreshInterval(Duration interval) {
      this.refreshInterval = Checks.duration("refresh interval", interval, Duration.ofMillis(10), Duration.ofHours(1));
      return this;
    }

    /** After how long without a refresh writes stop, in [10ms, 1h]; default 5 s. Must exceed the interval. */
    public Builder staleAfter(Duration after) {
      this.staleAfter = Checks.duration("stale after", after, Duration.ofMillis(10), Duration.ofHours(1));
      return this;
    }

    /**
     * Not used: heartbeats carry the map store's time and staleness is measured on {@link System#nanoTime()}.
     *
     * @deprecated a host clock compared with another host's made a router whose clock was behind look dead to the
     *     mover (issue #29); nothing in the router reads a wall clock any more
     */
    @Deprecated
    public Builder clock(GeneClock c) {
      Objects.requireNonNull(c, "clock");
      return this;
    }

    /** The monotonic clock staleness is measured on, in nanoseconds; default {@link System#nanoTime()} (tests). */
    Builder nanoTime(LongSupplier nanos) {
      this.nanoTime = Objects.requireNonNull(nanos, "nanoTime");
      return this;
    }

    /** Called with each new version loaded (e.g. {@code GeneBucketShardingAlgorithm::useMap}). */
    public Builder onNewMap(Consumer<BucketMap> l) {
      this.listener = Objects.requireNonNull(l, "listener");
      return this;
    }

    /**
     * The router, not yet started.
     *
     * @throws IllegalArgumentException if stale-after is not longer than the refresh interval
     */
    public BucketMapRouter build() {
      if (staleAfter.compareTo(refreshInterval) <= 0) {
        throw new IllegalArgumentException("stale after (" + staleAfter.toMillis() + "ms) must be longer than the"
            + " refresh interval (" + refreshInterval.toMillis() + "ms), or every router fences between refreshes");
      }
      return new BucketMapRouter(this);
    }
  }
}
