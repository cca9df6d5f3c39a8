package io.geneid.core.internal;

import io.geneid.core.GeneContext;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not API: how the generators of {@code io.geneid.core.snowflake}, {@code .lease} and {@code .segment} read the parent
 * key of this thread's innermost {@link GeneContext} scope. {@link GeneContext} installs the access when it is first
 * loaded; users open and close scopes through {@link GeneContext} only.
 */
public final class ParentKeys {

  /** The access; implemented by {@link GeneContext}. */
  public interface Access {
    /** The parent key the next id made on this thread takes, without taking it; null outside every scope. */
    @Nullable Object peek();

    /** Takes the key {@link #peek()} returned (a per-row scope moves to its next key). */
    void take();

    /** The key of the id {@code index} places after the next one (index 0 is {@link #peek()}); never null. */
    Object peek(int index);

    /** Takes {@code n} keys. */
    void take(int n);
  }

  private static volatile @Nullable Access installed;

  private ParentKeys() {}

  /** Called once, by {@link GeneContext}. */
  public static void install(Access access) {
    if (installed != null) {
      throw new IllegalStateException("the parent-key access is installed already");
    }
    installed = access;
  }

  /** The parent key the next id made on this thread takes, without taking it; null outside every scope. */
  public static @Nullable Object peek() {
    return Holder.ACCESS.peek();
  }

  /** Takes the key {@link #peek()} returned. */
  public static void take() {
    Holder.ACCESS.take();
  }

  /**
   * The key of the id {@code index} places after the next one of this thread, inside a scope ({@link #peek()} not
   * null).
   *
   * @throws IllegalStateException if a per-row scope holds fewer keys, naming both counts
   */
  public static Object peek(int index) {
    return Holder.ACCESS.peek(index);
  }

  /** Takes {@code n} keys (inside a scope). */
  public static void take(int n) {
    Holder.ACCESS.take(n);
  }

  /** {@link #peek()} and, if it was not null, {@link #take()}. */
  public static @Nullable Object next() {
    Access access = Holder.ACCESS;
    Object key = access.peek();
    if (key != null) {
      access.take();
    }
    return key;
  }

  /** Loads {@link GeneContext} (which installs the access) before the first read, whichever class loads first. */
  private static final class Holder {
    static final Access ACCESS;

    static {
      try {
        Class.forName(GeneContext.class.getName(), true, ParentKeys.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      ACCESS = Objects.requireNonNull(installed, "GeneContext did not install the parent-key access");
    }
  }
}
