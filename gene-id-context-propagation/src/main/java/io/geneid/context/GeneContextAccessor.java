package io.geneid.context;

import io.geneid.core.GeneContext;
import io.geneid.core.internal.Scopes;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;

/**
 * The {@link GeneContext} scope as a context-propagation {@link ThreadLocalAccessor}. It is registered with
 * {@link ContextRegistry#getInstance()} through {@code META-INF/services} as soon as this module is on the class
 * path, so every library that propagates context through that registry carries the parent's gene:
 * <ul>
 *   <li>Reactor with {@code Hooks.enableAutomaticContextPropagation()}: a scope open when a chain is subscribed
 *       ({@code block()}, or {@code contextCapture()} before {@code subscribe()}) is in force on every scheduler the
 *       chain hops to. A reactive chain can also name its parent without a scope:
 *       {@code .contextWrite(Context.of(GeneContextAccessor.KEY, orderId))}.
 *   <li>Spring's {@code ContextPropagatingTaskDecorator} on a {@code ThreadPoolTaskExecutor} (Spring Boot applies a
 *       {@code TaskDecorator} bean to the executor it configures): {@code @Async} methods and submitted tasks run with
 *       the submitter's gene.
 * </ul>
 * Captured on one thread, a scope is installed on another as a copy with the same parent key, and a thread without
 * a scope is carried as "no scope" (so a root id spreads on the worker too); when the task or operator ends, the
 * thread gets back exactly the state it had, dropping any scope left open in between. A per-row
 * scope ({@code GeneContext.inheritEach}) belongs to one statement and is refused when set on another thread.
 */
public final class GeneContextAccessor implements ThreadLocalAccessor<Object> {

  /**
   * The key of the gene in a context (a Reactor {@code Context}): write a parent key under it; a captured context
   * holds an opaque value under it (a scope, or "no scope").
   */
  public static final String KEY = "io.geneid.core.GeneContext";

  /**
   * The value of a thread without a scope. "No parent" is a state to carry like any other: a root id submitted from
   * a thread without a scope must spread on the worker too, not take a scope some earlier task left there. With
   * null, context-propagation would leave the key out of a snapshot and not touch the worker's scope at all
   * (unless the snapshot factory was built with {@code clearMissing(true)}).
   */
  private static final Object NO_SCOPE = new Object() {
    @Override
    public String toString() {
      return "GeneContext[no scope]";
    }
  };

  /** Called by {@link java.util.ServiceLoader}; register it by hand only in a {@link ContextRegistry} of your own. */
  public GeneContextAccessor() {}

  @Override
  public Object key() {
    return KEY;
  }

  /** This thread's scope, exactly as it is (to be restored), or a value meaning "no scope"; never null. */
  @Override
  public Object getValue() {
    Object state = Scopes.current();
    return state == null ? NO_SCOPE : state;
  }

  /**
   * Puts the gene of {@code value} on this thread: a scope captured by {@link #getValue()} on any thread, or a parent
   * key (a whole number, a String or a UUID) written into a context under {@link #KEY}.
   *
   * @throws IllegalStateException for a per-row scope, which stays on its thread (a parent key of another type
   *     fails, as with {@code GeneContext.inherit}, when an id is made)
   */
  @Override
  public void setValue(Object value) {
    if (value == NO_SCOPE) {
      Scopes.install(null);
    } else {
      Scopes.install(value instanceof Scopes.Frame ? Scopes.carried(value) : Scopes.carrying(value));
    }
  }

  /** No scope on this thread: the value of the context is absent. */
  @Override
  public void setValue() {
    Scopes.install(null);
  }

  /** Gives this thread back exactly the state {@link #getValue()} read. */
  @Override
  public void restore(Object previousValue) {
    Scopes.install(previousValue == NO_SCOPE ? null : previousValue);
  }

  /** Gives this thread back "no scope". */
  @Override
  public void restore() {
    Scopes.install(null);
  }

  @Override
  public String toString() {
    return "GeneContextAccessor[" + KEY + "]";
  }
}
