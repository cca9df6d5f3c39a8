package io.geneid.core;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

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
