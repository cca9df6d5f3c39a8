package io.geneid.core.snowflake;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.lease.WorkerIdAssigners;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What this JVM shares between the objects that need ids, and the claims that keep two generators off one worker id.
 *
 * <h2>Claims: one generator per worker id</h2>
 * Two generators with the same worker id and epoch in one JVM issue the same ids (the timestamp, worker and sequence
 * fields line up whatever the other widths are). So every production path that builds an id engine first
 * <b>claims</b> its (epoch, worker id) here:
 * <ul>
 *   <li>{@link GeneSnowflakeGenerator.Builder#build()}: the shared instance of its (layout, worker id), below, holds
 *       its claim for the JVM's life;</li>
 *   <li>a {@link LeasedGeneGenerator}: one claim per worker id it leases, given up when it gives the worker id up
 *       (its high-water mark is then kept with the claim, and a fixed-worker-id generator built later in this JVM
 *       starts after it; a later leased one relies on its own lease's mark).</li>
 * </ul>
 * A second claim of a held (epoch, worker id) is refused with an {@link IllegalStateException} that names both
 * claimants. Only {@link GeneSnowflakeGenerator.Builder#buildUnshared()} takes no claim (it is for tests).
 *
 * <p>The claims live in a map kept in {@link System#getProperties()}, a JDK object that every class loader of the JVM
 * sees: two copies of gene-id loaded by two class loaders (two web applications in one servlet container, a plugin
 * loader) still refuse each other. What is not shared across class loaders are the instances below: a second class
 * loader gets a refusal, never a second generator for a held worker id.
 *
 * <h2>Shared instances</h2>
 * <ul>
 *   <li>{@link GeneSnowflakeGenerator.Builder#build()} returns the one instance per (layout, worker id)
 *       ({@link #find}, {@link #all}): ShardingSphere's key generator, the MyBatis-Plus generator and a Spring bean
 *       with the same settings all use it. It is never closed.</li>
 *   <li>{@link #acquire(String, Supplier)} hands out counted {@link Handle}s on one generator per configuration key
 *       (used by {@link WorkerIdAssigners#sharedGenerator(java.util.Map)} for leased generators): the generator is
 *       created by the first caller, outside any map lock, and closed when the last handle is closed, or by the one
 *       JVM shutdown hook of this registry, whichever comes first.</li>
 * </ul>
 */
public final class GeneIdRegistry {

  private static final System.Logger LOG = System.getLogger(GeneIdRegistry.class.getName());

  private record Key(GeneIdLayout layout, long workerId) {}

  private static final ConcurrentMap<Key, GeneSnowflakeGenerator> GENERATORS = new ConcurrentHashMap<>();

  private GeneIdRegistry() {}

  /** The shared generator for this layout and worker id, if one was built. */
  public static Optional<GeneSnowflakeGenerator> find(GeneIdLayout layout, long workerId) {
    return Optional.ofNullable(GENERATORS.get(new Key(layout, workerId)));
  }

  /** Every shared generator of this JVM. */
  public static List<GeneSnowflakeGenerator> all() {
    return List.copyOf(GENERATORS.values());
  }

  // ---------------------------------------------------------------- generators shared by configuration

  /** One generator shared under a configuration key, with the count of its open handles. */
  private static final class Entry {
    final String key;
    /** Completed by the one caller that creates the generator, outside any lock; waited for by the others. */
    final CompletableFuture<GeneIdGenerator> created = new CompletableFuture<>();
    /** Completed once the generator is closed and the entry removed: a new one may then be created. */
    final CompletableFuture<Void> gone = new CompletableFuture<>();
    /** Open handles; guarded by {@code this}. */
    int users;
    /** No new handle may be taken; guarded by {@code this}. */
    boolean closing;

    Entry(String key) {
      this.key = key;
    }

    @Nullable GeneIdGenerator generatorNow() {
      return created.isDone() && !created.isCompletedExceptionally() ? created.getNow(null) : null;
    }
  }

  private static final ConcurrentMap<String, Entry> SHARED = new ConcurrentHashMap<>();
  private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

  /**
   * One user's hold on a generator shared by configuration key. It issues ids from that generator until it is
   * closed; closing it gives up this user's hold only. The generator itself is closed when its last handle is
   * closed (or at JVM shutdown). Thread-safe; {@link #close()} is idempotent.
   *
   * @param <G> the type of the shared generator
   */
  public static final class Handle<G extends GeneIdGenerator> implements GeneIdGenerator, AutoCloseable {
    private final Entry entry;
    private final G generator;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean open = true;

    private Handle(Entry entry, G generator) {
      this.entry = entry;
      this.generator = generator;
    }

    /**
     * The shared generator itself, for what the {@link GeneIdGenerator} interface does not offer (its worker id,
     * stats, lease). Do not close it: that would close it for every other user too; close this handle.
     */
    public G generator() {
      return generator;
    }

    /** The configuration key the generator is shared under. */
    public String key() {
      return entry.key;
    }

    /** Whether this handle is still open (the generator may still have been closed by its last user). */
    public boolean isOpen() {
      return open;
    }

    private G live() {
      if (!open) {
        throw new GeneIdException("this handle on the shared generator " + generator + " is closed: it issues no "
            + "ids (other handles on the same generator still do)");
      }
      return generator;
    }

    @Override
    public long nextId() {
      return live().nextId();
    }

    @Override
    public long nextId(long gene) {
      return live().nextId(gene);
    }

    @Override
    public long nextIdFor(long parentKey) {
      return live().nextIdFor(parentKey);
    }

    @Override
    public long nextIdFor(String parentKey) {
      return live().nextIdFor(parentKey);
    }

    @Override
    public long nextIdForKey(Object parentKey) {
      return live().nextIdForKey(parentKey);
    }

    @Override
    public long[] nextIds(int n) {
      return live().nextIds(n);
    }

    @Override
    public long[] nextIdsFor(long parentKey, int n) {
      return live().nextIdsFor(parentKey, n);
    }

    @Override
    public long getGene(long id) {
      return generator.getGene(id);
    }

    @Override
    public int geneBits() {
      return generator.geneBits();
    }

    /**
     * Gives up this user's hold. The last handle of a generator closes the generator (for a leased one: records its
     * mark and releases its lease). Idempotent; returns when the generator is closed, if this was the last handle.
     */
    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        open = false;
        release(entry);
      }
    }

    @Override
    public String toString() {
      return "GeneIdRegistry.Handle[" + (open ? "open" : "closed") + ", " + generator + "]";
    }
  }

  /**
   * A new handle on the JVM-wide generator for a configuration key, created by {@code factory} on first use. Callers
   * with equal keys share one generator; each closes its own handle, and the last close closes the generator.
   *
   * <p>The factory runs in the calling thread, outside every lock and map operation: a factory that blocks for
   * seconds (acquiring a lease from a store) delays only the callers asking for the same key, who wait for its
   * result (or its exception) instead of creating a second generator. A key whose generator is being closed is
   * created anew only once that close has finished, so the old and the new generator never hold a worker id at once.
   *
   * @param key a canonical form of the configuration (equal configurations, equal keys)
   * @throws RuntimeException whatever the factory threw, to every caller that waited for it
   */
  @SuppressWarnings("unchecked")
  public static <G extends GeneIdGenerator> Handle<G> acquire(String key, Supplier<? extends G> factory) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(factory, "factory");
    for (;;) {
      Entry fresh = new Entry(key);
      Entry entry = SHARED.putIfAbsent(key, fresh);
      if (entry == null) {
        entry = fresh;
        synchronized (entry) {
          entry.users = 1; // the creator's handle
        }
        G generator;
        try {
          generator = Objects.requireNonNull(factory.get(), "the factory of " + key + " returned null");
        } catch (RuntimeException | Error e) {
          synchronized (entry) {
            entry.closing = true;
          }
          SHARED.remove(key, entry);
          entry.created.completeExceptionally(e);
          entry.gone.complete(null);
          throw e;
        }
        installShutdownHook();
        entry.created.complete(generator);
        return new Handle<>(entry, generator);
      }
      GeneIdGenerator generator = await(entry.created);
      synchronized (entry) {
        if (!entry.closing) {
          entry.users++;
          return new Handle<>(entry, (G) generator);
        }
      }
      awaitQuietly(entry.gone); // the last user is closing it: create a new one after that
    }
  }

  /**
   * The JVM-wide generator for a configuration key, created by {@code factory} on first use, held for the JVM's
   * life (closed by the shutdown hook). Like {@link #acquire(String, Supplier)} with a handle that is never closed.
   *
   * @param key a canonical form of the configuration (equal configurations, equal keys)
   */
  public static <G extends GeneIdGenerator> G shared(String key, Supplier<? extends G> factory) {
    Handle<G> handle = acquire(key, factory);
    return handle.generator();
  }

  /** The generator shared under a configuration key, if one was created and not closed since. */
  public static Optional<GeneIdGenerator> findShared(String key) {
    Entry e = SHARED.get(key);
    if (e == null) {
      return Optional.empty();
    }
    synchronized (e) {
      return e.closing ? Optional.empty() : Optional.ofNullable(e.generatorNow());
    }
  }

  /** Every generator shared by configuration in this JVM (created and not closed). */
  public static List<GeneIdGenerator> allShared() {
    List<GeneIdGenerator> all = new ArrayList<>();
    for (Entry e : SHARED.values()) {
      synchronized (e) {
        GeneIdGenerator g = e.generatorNow();
        if (!e.closing && g != null) {
          all.add(g);
        }
      }
    }
    return List.copyOf(all);
  }

  /** How many open handles the generator shared under {@code key} has (0 if there is none). */
  public static int users(String key) {
    Entry e = SHARED.get(key);
    if (e == null) {
      return 0;
    }
    synchronized (e) {
      return e.closing ? 0 : e.users;
    }
  }

  /**
   * Forgets {@code generator} under {@code key} because it was closed directly, not through its handles (its open
   * handles now fail like the generator). Called by {@link LeasedGeneGenerator#close()}.
   */
  static void removeShared(String key, GeneIdGenerator generator) {
    Entry e = SHARED.get(key);
    if (e == null || e.generatorNow() != generator) {
      return;
    }
    synchronized (e) {
      e.closing = true;
    }
    SHARED.remove(key, e);
    e.gone.complete(null);
  }

  private static void release(Entry entry) {
    synchronized (entry) {
      if (entry.closing || --entry.users > 0) {
        return;
      }
      entry.closing = true;
    }
    try {
      closeGenerator(entry);
    } finally {
      SHARED.remove(entry.key, entry);
      entry.gone.complete(null);
    }
  }

  private static void closeGenerator(Entry entry) {
    GeneIdGenerator g = entry.generatorNow();
    if (g instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.log(Level.WARNING, "closing the shared generator " + g + " failed: " + e, e);
      }
    }
  }

  /** One hook for every generator shared by configuration, installed with the first of them. */
  private static void installShutdownHook() {
    if (HOOK_INSTALLED.compareAndSet(false, true)) {
      Runtime.getRuntime().addShutdownHook(new Thread(GeneIdRegistry::closeAllShared, "gene-id-shared-close"));
    }
  }

  /** Closes every generator shared by configuration, whatever its handle count: the JVM is going down. */
  static void closeAllShared() {
    for (Entry e : List.copyOf(SHARED.values())) {
      synchronized (e) {
        if (e.closing) {
          continue;
        }
        e.closing = true;
      }
      try {
        closeGenerator(e);
      } finally {
        SHARED.remove(e.key, e);
        e.gone.complete(null);
      }
    }
  }

  private static GeneIdGenerator await(CompletableFuture<GeneIdGenerator> created) {
    boolean interrupted = false;
    try {
      for (;;) {
        try {
          return created.get();
        } catch (InterruptedException e) {
          interrupted = true; // the creator is bounded by its own timeouts; keep the interrupt for the caller
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException r) {
            throw r;
          }
          if (cause instanceof Error err) {
            throw err;
          }
          throw new CompletionException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void awaitQuietly(CompletableFuture<Void> gone) {
    try {
      gone.join();
    } catch (CompletionException e) {
      // completed normally only; nothing to report
    }
  }

  static GeneSnowflakeGenerator getOrCreate(GeneSnowflakeGenerator.Builder builder) {
    // building claims the worker id and allocates the gene words: no blocking work inside computeIfAbsent
    GeneSnowflakeGenerator generator = GENERATORS.computeIfAbsent(new Key(builder.layout, builder.workerId),
        k -> builder.buildClaimed("GeneSnowflakeGenerator.builder().build() [" + builder.describe()
            + ", shared for the JVM's life]", true));
    if (!generator.sameSettings(builder)) {
      throw new IllegalStateException("a GeneSnowflakeGenerator for worker id " + builder.workerId + " and "
          + builder.layout + " already exists in this JVM as " + generator + "; a second one with maxBorrowMillis="
          + builder.maxBorrowMillis + ", clock=" + builder.clock + ", " + builder.clockBackwardsPolicy
          + " would issue duplicate ids. Build it with the same settings to share it.");
    }
    if (builder.highWaterMark != null) {
      generator.advancePast(builder.highWaterMark.toEpochMilli());
    }
    return generator;
  }
}
