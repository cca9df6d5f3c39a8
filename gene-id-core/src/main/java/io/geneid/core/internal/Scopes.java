package io.geneid.core.internal;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not API: the scope stack behind {@code io.geneid.core.GeneContext}, one per thread, where every generator can read
 * it. The generators read and take the innermost scope's parent keys ({@link #peek()}, {@link #take()}); the modules
 * that move a scope between threads (the coroutine element of {@code gene-id-kotlin}, the accessor of
 * {@code gene-id-context-propagation}) read and set a thread's state ({@link #current()}, {@link #install}) as an
 * opaque object, {@code null} being "no scope". Users open and close scopes through {@code io.geneid.core.GeneContext} only.
 */
public final class Scopes {

  private static final ThreadLocal<@Nullable Frame> CURRENT = new ThreadLocal<>();
  /**
   * Set before the first frame is put on any thread's {@link #CURRENT}; until then {@link #peek()} does not read the
   * thread-local. Not volatile: a thread reads a frame of its own only after it has set this itself.
   */
  private static boolean used;

  private Scopes() {}

  // ---------------------------------------------------------------- opening and closing

  /** Opens a scope of one parent key on this thread. */
  public static Frame open(Object parentKey) {
    return push(new Frame(Objects.requireNonNull(parentKey), null, Thread.currentThread(), false));
  }

  /** Opens a scope that hands out {@code parentKeys} (not empty, no null) one per id, in order, on this thread. */
  public static Frame openEach(List<?> parentKeys) {
    return push(new Frame(null, List.copyOf(parentKeys), Thread.currentThread(), false));
  }

  /** Whether a scope is open on this thread. */
  public static boolean isActive() {
    return current() != null;
  }

  // ---------------------------------------------------------------- the generators' reads

  /** The parent key the next id made on this thread takes, without taking it; null outside every scope. */
  public static @Nullable Object peek() {
    if (!used) {
      return null; // no scope was ever opened in this JVM: not even a thread-local read
    }
    Frame frame = CURRENT.get();
    if (frame == null) {
      return null; // outside every scope: one thread-local read
    }
    frame = openOf(frame);
    return frame == null ? null : frame.peekKey(0);
  }

  /** Takes the key {@link #peek()} returned (a per-row scope moves to its next key). */
  public static void take() {
    take(1);
  }

  /**
   * The key of the id {@code index} places after the next one of this thread (index 0 is {@link #peek()}), inside a
   * scope.
   *
   * @throws IllegalStateException outside every scope, or if a per-row scope holds fewer keys, naming both counts
   */
  public static Object peek(int index) {
    Frame frame = frame();
    if (frame == null) {
      throw new IllegalStateException("no GeneContext scope is open on this thread");
    }
    return frame.peekKey(index);
  }

  /** Takes {@code n} keys (inside a scope; nothing outside one). */
  public static void take(int n) {
    Frame frame = frame();
    if (frame != null) {
      frame.taken(n);
    }
  }

  /** {@link #peek()} and, if it was not null, {@link #take()}. */
  public static @Nullable Object next() {
    Object key = peek();
    if (key != null) {
      take();
    }
    return key;
  }

  // ---------------------------------------------------------------- states across threads

  /** This thread's state: its innermost open scope, exactly, to be given back to {@link #install} later. */
  public static @Nullable Object current() {
    return frame();
  }

  /** Makes {@code state} this thread's state, exactly, and returns the one it replaces. */
  public static @Nullable Object install(@Nullable Object state) {
    Object previous = current();
    set((Frame) state);
    return previous;
  }

  /** A state carrying {@code parentKey}, that any number of threads may install at once. */
  public static Object carrying(Object parentKey) {
    return new Frame(Objects.requireNonNull(parentKey, "parentKey"), null, Thread.currentThread(), true);
  }

  /**
   * The state to install on another thread for {@code state}, a state of this or another thread: a carried copy with
   * the same parent key, or null for null.
   *
   * @throws IllegalStateException for a per-row scope, which stays on its thread
   */
  public static @Nullable Object carried(@Nullable Object state) {
    Frame frame = (Frame) state;
    if (frame == null || frame.carried) {
      return frame;
    }
    if (frame.key == null) {
      throw new IllegalStateException("a per-row GeneContext scope (inheritEach) stays on the thread that opened it:"
          + " its keys are taken in order by one statement; open a scope per task instead");
    }
    return carrying(frame.key);
  }

  /**
   * The parent key of a single-key state.
   *
   * @throws IllegalArgumentException for a per-row scope
   */
  public static Object parentKey(Object state) {
    Object key = ((Frame) state).key;
    if (key == null) {
      throw new IllegalArgumentException("a per-row scope has no single parent key");
    }
    return key;
  }

  // ---------------------------------------------------------------- the stack

  private static Frame push(Frame frame) {
    frame.outer = frame();
    used = true;
    CURRENT.set(frame);
    return frame;
  }

  /** This thread's innermost open frame; drops the closed ones on top of it (ended from another thread). */
  private static @Nullable Frame frame() {
    Frame frame = CURRENT.get();
    return frame == null ? null : openOf(frame);
  }

  /** The first open frame from {@code frame} outwards; makes it this thread's frame if it is not already. */
  private static @Nullable Frame openOf(Frame frame) {
    if (!frame.closed) {
      return frame;
    }
    Frame open = firstOpen(frame);
    set(open);
    return open;
  }

  private static @Nullable Frame firstOpen(@Nullable Frame frame) {
    while (frame != null && frame.closed) {
      frame = frame.outer;
    }
    return frame;
  }

  private static void set(@Nullable Frame frame) {
    if (frame == null) {
      CURRENT.remove();
    } else {
      used = true;
      CURRENT.set(frame);
    }
  }

  /** One scope on a thread's stack; {@link #close()} ends it. */
  public static final class Frame {
    private final @Nullable Object key;
    private final @Nullable List<?> keys;
    /** The thread that opened the scope; for a carried scope, the thread that made it (it is never closed). */
    private final Thread owner;
    /** The owner's name when the scope was opened (kotlinx's debug mode renames threads as coroutines come and go). */
    private final String ownerName;
    /** Installed on other threads by {@code wrap} and the modules that carry scopes; immutable, never closed. */
    private final boolean carried;
    private @Nullable Frame outer;
    private int used;
    /** Set by {@link #close()} on any thread; the owner drops a closed frame when it next reads its state. */
    private volatile boolean closed;

    private Frame(@Nullable Object key, @Nullable List<?> keys, Thread owner, boolean carried) {
      this.key = key;
      this.keys = keys;
      this.owner = owner;
      this.ownerName = owner.getName();
      this.carried = carried;
    }

    /** The parent key of the id {@code offset} places after the next one, without taking it. */
    private Object peekKey(int offset) {
      if (keys == null) {
        return Objects.requireNonNull(key);
      }
      if (used + offset >= keys.size()) {
        throw new IllegalStateException("GeneContext scope holds " + keys.size()
            + " parent keys but id number " + (used + offset + 1) + " was requested");
      }
      return keys.get(used + offset);
    }

    private void taken(int n) {
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
     *     aside (ids made since did not carry this scope's gene), or if a per-row scope still holds parent keys no
     *     id was generated for
     */
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
      Frame current = CURRENT.get();
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

    /** Whether this frame is an outer frame of {@code frame}. */
    private boolean encloses(@Nullable Frame frame) {
      for (Frame f = frame; f != null; f = f.outer) {
        if (f == this) {
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
