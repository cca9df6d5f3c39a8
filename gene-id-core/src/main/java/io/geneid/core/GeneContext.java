package io.geneid.core;

import io.geneid.core.internal.GeneScopes;
import io.geneid.core.internal.ParentKeys;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A thread-local scope that carries the parent key to code that cannot pass it, such as ShardingSphere's key
 * generator, which sees column names but no row values. While a scope is open on a thread,
 * {@link GeneSnowflakeGenerator#nextId()} on that thread issues ids with the gene of the scope's parent key.
 *
 * <pre>{@code
 * try (var scope = GeneContext.inherit(orderId)) {
 *   insertItem.executeUpdate();            // the generated item id carries orderId's gene
 * }
 * long id = GeneContext.call(orderId, generator::nextId);
 * }</pre>
 *
 * <p>For a multi-row {@code INSERT ... VALUES (...), (...)} or a JDBC batch whose rows have different parents,
 * {@link #inheritEach(List)} hands out one parent key per generated id, in order; asking for more ids than keys,
 * or closing the scope with keys left over, is an error that names both counts.
 *
 * <p>Scopes nest: closing one restores the scope that was open before it. Scopes must be closed on the thread that
 * opened them, innermost first.
 *
 * <h2>Threads</h2>
 * A scope belongs to the thread that opened it: a task handed to another thread does not see it, and a scope left
 * on a pooled thread would give the next tasks of that thread its gene. So:
 * <ul>
 *   <li>To carry the scope to other threads use {@link #wrap(Runnable)}, {@link #wrap(Callable)},
 *       {@link #wrap(ExecutorService)} or {@link #wrapExecutor(Executor)}: the task runs with the gene the caller had when
 *       it was wrapped (or submitted), and the worker thread's own state is restored when it ends, whatever scopes
 *       the task opened and did not close. Kotlin coroutines use {@code withGene} of {@code gene-id-kotlin};
 *       Reactor, Spring's task executors and {@code @Async} use {@code gene-id-context-propagation}.
 *   <li>{@link Scope#close()} always ends its scope. Closed on another thread than the one that opened it (a
 *       coroutine that resumed elsewhere), it also ends on the opening thread, and throws naming both threads.
 *       Closed out of order, it ends and throws; the scopes inside it stay open until they are closed.
 * </ul>
 * Outside every scope, {@code nextId()} costs one thread-local read more than an id with an explicit gene (none
 * until a scope is first opened in the JVM).
 */
public final class GeneContext {

  private static final ThreadLocal<@Nullable Scope> CURRENT = new ThreadLocal<>();
  /**
   * Set before the first scope is put on any thread's {@link #CURRENT}; until then {@code nextId()} does not read the
   * thread-local. Not volatile: a thread reads a scope of its own only after it has set this itself.
   */
  private static boolean used;

  static {
    ParentKeys.install(new ParentKeys.Access() {
      @Override
      public @Nullable Object peek() {
        if (!used) {
          return null; // no scope was ever opened in this JVM: not even a thread-local read
        }
        Scope scope = CURRENT.get();
        if (scope == null) {
          return null; // outside every scope: one thread-local read
        }
        scope = openOf(scope);
        return scope == null ? null : scope.peekKey();
      }

      @Override
      public void take() {
        Scope scope = CURRENT.get();
        if (scope != null && (scope = openOf(scope)) != null) {
          scope.taken(1);
        }
      }

      @Override
      public Object peek(int index) {
        Scope scope = CURRENT.get();
        if (scope != null) {
          scope = openOf(scope);
        }
        if (scope == null) {
          throw new IllegalStateException("no GeneContext scope is open on this thread");
        }
        return scope.peekKey(index);
      }

      @Override
      public void take(int n) {
        Scope scope = CURRENT.get();
        if (scope != null && (scope = openOf(scope)) != null) {
          scope.taken(n);
        }
      }
    });
    GeneScopes.install(new GeneScopes.Access() {
      @Override
      public @Nullable Object current() {
        return current0();
      }

      @Override
      public @Nullable Object install(@Nullable Object state) {
        return install0((Scope) state);
      }

      @Override
      public Object carrying(Object parentKey) {
        checkKey(parentKey, -1);
        return Scope.carrying(parentKey);
      }

      @Override
      public @Nullable Object carried(@Nullable Object state) {
        return carried0((Scope) state);
      }

      @Override
      public Object parentKey(Object state) {
        Object key = ((Scope) state).key;
        if (key == null) {
          throw new IllegalArgumentException("a per-row scope has no single parent key");
        }
        return key;
      }
    });
  }

  private GeneContext() {}

  /**
   * Opens a scope in which every id generated by {@code nextId()} on this thread carries the gene of
   * {@code parentKey} (a whole number, a String or a UUID; see {@link GeneIdLayout#geneOfKey(Object)}).
   */
  public static Scope inherit(Object parentKey) {
    checkKey(parentKey, -1);
    return open(new Scope(parentKey, null, Thread.currentThread()));
  }

  /**
   * Opens a scope that hands out one parent key per generated id, in list order: for the rows of a multi-row
   * insert or a batch. The list is copied. Such a scope stays on its thread: {@code wrap} refuses to carry it.
   */
  public static Scope inheritEach(List<?> parentKeys) {
    if (parentKeys.isEmpty()) {
      throw new IllegalArgumentException("parentKeys must not be empty");
    }
    for (int i = 0; i < parentKeys.size(); i++) {
      checkKey(parentKeys.get(i), i);
    }
    return open(new Scope(null, List.copyOf(parentKeys), Thread.currentThread()));
  }

  /** Runs {@code action} inside {@code inherit(parentKey)} and returns its result. */
  public static <T> T call(Object parentKey, Supplier<T> action) {
    try (Scope ignored = inherit(parentKey)) {
      return action.get();
    }
  }

  /** Runs {@code action} inside {@code inherit(parentKey)}. */
  public static void run(Object parentKey, Runnable action) {
    try (Scope ignored = inherit(parentKey)) {
      action.run();
    }
  }

  /** Whether a scope is open on this thread. */
  public static boolean isActive() {
    return current0() != null;
  }

  // ---------------------------------------------------------------- across threads

  /**
   * {@code task}, carrying the gene of this thread's scope to the thread that runs it: there it runs in a scope of
   * the same parent key (or in none, if this thread has none), and the thread's own state is restored afterwards,
   * discarding any scope the task left open. The scope is read now; closing it later does not affect the task.
   *
   * @throws IllegalStateException if this thread's scope is a per-row scope ({@link #inheritEach(List)})
   */
  public static Runnable wrap(Runnable task) {
    Scope carried = carried0(current0());
    return () -> {
      Scope previous = install0(carried);
      try {
        task.run();
      } finally {
        install0(previous);
      }
    };
  }

  /**
   * {@code task}, carrying the gene of this thread's scope to the thread that calls it; see {@link #wrap(Runnable)}.
   *
   * @throws IllegalStateException if this thread's scope is a per-row scope ({@link #inheritEach(List)})
   */
  public static <T> Callable<T> wrap(Callable<T> task) {
    Scope carried = carried0(current0());
    return () -> {
      Scope previous = install0(carried);
      try {
        return task.call();
      } finally {
        install0(previous);
      }
    };
  }

  /**
   * An executor that runs every task with the gene the submitting thread has when it calls {@code execute}
   * ({@link #wrap(Runnable)} on each task). Not an overload of {@code wrap}: {@link Executor} is a functional
   * interface, so {@code wrap(Executor)} would make {@code wrap(this::save)} ambiguous for any method {@code save}
   * with an overload of one parameter (context-propagation's {@code ContextSnapshot.wrapExecutor} is named so for
   * the same reason).
   */
  public static Executor wrapExecutor(Executor executor) {
    return task -> executor.execute(wrap(task));
  }

  /**
   * An executor service that runs every task with the gene the submitting thread has when it submits it
   * ({@link #wrap(Runnable)} or {@link #wrap(Callable)} on each task, also for {@code invokeAll} and
   * {@code invokeAny}); shutting it down shuts {@code executor} down.
   */
  public static ExecutorService wrap(ExecutorService executor) {
    return new GeneCarryingExecutorService(executor);
  }

  // ---------------------------------------------------------------- the thread's state

  /** This thread's innermost open scope; drops the closed ones on top of it (ended from another thread). */
  private static @Nullable Scope current0() {
    Scope scope = CURRENT.get();
    return scope == null ? null : openOf(scope);
  }

  /** The first open scope from {@code scope} outwards; makes it this thread's scope if it is not already. */
  private static @Nullable Scope openOf(Scope scope) {
    if (!scope.closed) {
      return scope;
    }
    Scope open = firstOpen(scope);
    set(open);
    return open;
  }

  private static @Nullable Scope firstOpen(@Nullable Scope scope) {
    while (scope != null && scope.closed) {
      scope = scope.outer;
    }
    return scope;
  }

  private static @Nullable Scope install0(@Nullable Scope state) {
    Scope previous = current0();
    set(state);
    return previous;
  }

  private static void set(@Nullable Scope scope) {
    if (scope == null) {
      CURRENT.remove();
    } else {
      used = true;
      CURRENT.set(scope);
    }
  }

  private static @Nullable Scope carried0(@Nullable Scope state) {
    if (state == null || state.carried) {
      return state;
    }
    if (state.key == null) {
      throw new IllegalStateException("a per-row GeneContext scope (inheritEach) stays on the thread that opened it:"
          + " its keys are taken in order by one statement; open a scope per task instead");
    }
    return Scope.carrying(state.key);
  }

  private static Scope open(Scope scope) {
    scope.outer = current0();
    used = true;
    CURRENT.set(scope);
    return scope;
  }

  private static void checkKey(@Nullable Object key, int index) {
    if (key == null) {
      throw new IllegalArgumentException(index < 0 ? "parentKey must not be null"
          : "parentKeys[" + index + "] must not be null");
    }
  }

  /** An open scope; close it (try-with-resources) to restore the scope that was open before. */
  public static final class Scope implements AutoCloseable {
    private final @Nullable Object key;
    private final @Nullable List<?> keys;
    /** The thread that opened the scope; for a carried scope, the thread that made it (it is never closed). */
    private final Thread owner;
    /** The owner's name when the scope was opened (kotlinx's debug mode renames threads as coroutines come and go). */
    private final String ownerName;
    /** Installed on other threads by {@code wrap} and the modules that carry scopes; immutable, never closed. */
    private final boolean carried;
    private @Nullable Scope outer;
    private int used;
    /** Set by {@link #close()} on any thread; the owner drops a closed scope when it next reads its state. */
    private volatile boolean closed;

    private Scope(@Nullable Object key, @Nullable List<?> keys, Thread owner) {
      this(key, keys, owner, false);
    }

    private Scope(@Nullable Object key, @Nullable List<?> keys, Thread owner, boolean carried) {
      this.key = key;
      this.keys = keys;
      this.owner = owner;
      this.ownerName = owner.getName();
      this.carried = carried;
    }

    static Scope carrying(Object key) {
      return new Scope(key, null, Thread.currentThread(), true);
    }

    /**
     * The parent key for the next generated id, without taking it: a caller that may retry (a leased generator
     * moving to another worker id) takes it with {@code taken(1)} once its id is made, so a failed call takes none.
     */
    Object peekKey() {
      return peekKey(0);
    }

    /** The parent key of the id {@code offset} places after the next one, without taking it. */
    Object peekKey(int offset) {
      if (keys == null) {
        return java.util.Objects.requireNonNull(key);
      }
      if (used + offset >= keys.size()) {
        throw new IllegalStateException("GeneContext scope holds " + keys.size()
            + " parent keys but id number " + (used + offset + 1) + " was requested");
      }
      return keys.get(used + offset);
    }

    /** Takes the {@code n} keys {@link #peekKey(int)} returned. */
    void taken(int n) {
      if (keys != null) {
        used += n;
      }
    }

    /**
     * Ends the scope and restores the outer one. It ends whatever the thread or the order: a scope is never left
     * behind on a thread.
     *
     * @throws IllegalStateException if called on another thread than the one that opened the scope (it has ended
     *     there too), out of order (the scopes inside it stay open until closed), after the thread's state was set
     *     aside by {@code wrap} or a coroutine resuming (ids made since did not carry this scope's gene), or if a
     *     per-row scope still holds parent keys no id was generated for (the statement had fewer rows than keys)
     */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      Thread here = Thread.currentThread();
      if (here != owner) {
        throw new IllegalStateException("GeneContext scope opened on " + ownerName + " was closed on "
            + here.getName() + ": a scope belongs to the thread that opened it, and has now ended there too;"
            + " carry a gene to other threads with GeneContext.wrap, withGene (Kotlin) or"
            + " gene-id-context-propagation");
      }
      Scope current = CURRENT.get();
      if (current == this) {
        set(firstOpen(outer));
      } else if (encloses(current)) {
        throw new IllegalStateException("GeneContext scopes must be closed innermost first");
      } else {
        throw new IllegalStateException("GeneContext scope was no longer open on " + here.getName()
            + " when closed: the thread's state was set aside while it was open (a task or coroutine resumed on"
            + " this thread), so ids made since did not carry its gene; use GeneContext.wrap or withGene (Kotlin)"
            + " rather than holding a scope across a suspension");
      }
      if (keys != null && used != keys.size()) {
        throw new IllegalStateException("GeneContext scope holds " + keys.size() + " parent keys but "
            + used + " ids were generated");
      }
    }

    /** Whether this scope is an outer scope of {@code scope}. */
    private boolean encloses(@Nullable Scope scope) {
      for (Scope s = scope; s != null; s = s.outer) {
        if (s == this) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return keys == null ? "GeneContext.Scope[" + key + "]" : "GeneContext.Scope" + keys;
    }
  }
}
