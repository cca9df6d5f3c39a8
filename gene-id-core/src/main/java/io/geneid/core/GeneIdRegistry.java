package io.geneid.core;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The JVM-wide generators, one per (layout, worker id). {@link GeneSnowflakeGenerator.Builder#build()} goes through
 * here, so objects created by a DI container, by {@link java.util.ServiceLoader} (ShardingSphere) or by the
 * application all share one instance and cannot issue the same id twice.
 */
public final class GeneIdRegistry {

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

  private static final ConcurrentMap<String, GeneIdGenerator> SHARED = new ConcurrentHashMap<>();

  /**
   * The JVM-wide generator for a configuration key, created by {@code factory} on first use. Used for generators
   * whose worker id is leased ({@link WorkerIdAssigners#sharedGenerator(java.util.Map)}): ShardingSphere, MyBatis-Plus
   * and Spring asking with the same configuration all get one instance, hence one lease.
   *
   * @param key a canonical form of the configuration (equal configurations, equal keys)
   */
  public static GeneIdGenerator shared(String key, Supplier<? extends GeneIdGenerator> factory) {
    return SHARED.computeIfAbsent(key, k -> factory.get());
  }

  /** The generator shared under a configuration key, if one was created and not closed since. */
  public static Optional<GeneIdGenerator> findShared(String key) {
    return Optional.ofNullable(SHARED.get(key));
  }

  /** Every generator shared by configuration in this JVM. */
  public static List<GeneIdGenerator> allShared() {
    return List.copyOf(SHARED.values());
  }

  static void removeShared(String key, GeneIdGenerator generator) {
    SHARED.remove(key, generator);
  }

  static GeneSnowflakeGenerator getOrCreate(GeneSnowflakeGenerator.Builder builder) {
    GeneSnowflakeGenerator generator = GENERATORS.computeIfAbsent(new Key(builder.layout, builder.workerId),
        k -> builder.buildUnshared());
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
