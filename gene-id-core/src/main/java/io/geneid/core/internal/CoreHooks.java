package io.geneid.core.internal;

import io.geneid.core.GeneIdGenerator;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Not API: the two things the leased generator ({@code io.geneid.core.lease}) does to the snowflake generator it
 * wraps and to the registry that users must not do. They live in {@code io.geneid.core.snowflake}, package-private;
 * that package installs them here when it is first loaded.
 */
public final class CoreHooks {

  /** The hooks; implemented by {@code io.geneid.core.snowflake}. */
  public interface Hooks {
    /** No id of {@code generator} may carry a timestamp above {@code unixMillis} (its lease's recorded mark). */
    void ceiling(GeneSnowflakeGenerator generator, long unixMillis);

    /** Forgets {@code generator} shared under {@code key}: it was closed directly, not through its handles. */
    void forgetShared(String key, GeneIdGenerator generator);

    /** {@code count} ids of {@code gene} from {@code generator} into {@code into[from ..]}, in runs of its sequence. */
    void issueRun(GeneSnowflakeGenerator generator, int gene, long[] into, int from, int count);
  }

  private static volatile @Nullable Hooks hooks;

  private CoreHooks() {}

  /** Called once, by {@code io.geneid.core.snowflake}. */
  public static void install(Hooks installed) {
    if (hooks != null) {
      throw new IllegalStateException("the core hooks are installed already");
    }
    hooks = installed;
  }

  /** The hooks, loading {@code io.geneid.core.snowflake} first if needed. */
  public static Hooks get() {
    Hooks h = hooks;
    if (h == null) {
      try {
        Class.forName(GeneSnowflakeGenerator.class.getName(), true, CoreHooks.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      h = hooks;
      if (h == null) {
        throw new IllegalStateException("GeneSnowflakeGenerator did not install the core hooks");
      }
    }
    return h;
  }
}
