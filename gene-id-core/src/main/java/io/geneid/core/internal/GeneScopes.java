package io.geneid.core.internal;

import io.geneid.core.GeneContext;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not API: how gene-id's modules that move a {@link GeneContext} scope between threads (the coroutine element of
 * {@code gene-id-kotlin}, the accessor of {@code gene-id-context-propagation}) read and set a thread's scope state.
 * States are opaque objects; {@code null} is "no scope". {@link GeneContext} installs the access when it is first
 * loaded; users carry scopes with {@link GeneContext#wrap(Runnable)} and those modules.
 */
public final class GeneScopes {

  /** The access; implemented by {@link GeneContext}. */
  public interface Access {
    /** This thread's state: its innermost open scope, exactly, to be given back to {@link #install} later. */
    @Nullable Object current();

    /** Makes {@code state} this thread's state, exactly, and returns the one it replaces. */
    @Nullable Object install(@Nullable Object state);

    /** A state carrying {@code parentKey}, that any number of threads may install at once. */
    Object carrying(Object parentKey);

    /**
     * The state to install on another thread for {@code state}, a state of this or another thread: a carried
     * copy with the same parent key, or null for null.
     *
     * @throws IllegalStateException for a per-row scope ({@code inheritEach}), which stays on its thread
     */
    @Nullable Object carried(@Nullable Object state);

    /** The parent key of a single-key state. */
    Object parentKey(Object state);
  }

  private static volatile @Nullable Access installed;

  private GeneScopes() {}

  /** Called once, by {@link GeneContext}. */
  public static void install(Access access) {
    if (installed != null) {
      throw new IllegalStateException("the scope access is installed already");
    }
    installed = access;
  }

  /** The access, loading {@link GeneContext} (which installs it) first if needed. */
  public static Access get() {
    return Holder.ACCESS;
  }

  private static final class Holder {
    static final Access ACCESS;

    static {
      try {
        Class.forName(GeneContext.class.getName(), true, GeneScopes.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      ACCESS = Objects.requireNonNull(installed, "GeneContext did not install the scope access");
    }
  }
}
