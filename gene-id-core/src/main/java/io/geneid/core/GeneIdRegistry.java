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

  // ---------------------------------------------------------------- claims

  /**
   * The worker ids claimed in this JVM, by every class loader: the map lives in the system properties (a JDK object
   * that every class loader sees), keyed by {@code <epoch ms>/<worker id>}, valued by a description of the claimant.
   */
  @SuppressWarnings("unchecked")
  private static final ConcurrentMap<String, String> CLAIMS = (ConcurrentMap<String, String>) System.getProperties()
      .computeIfAbsent("io.geneid.core.claims", k -> new ConcurrentHashMap<String, String>());

  /**
   * One generator's hold on a worker id in this JVM; {@link #close()} gives it up. Two generators with one worker id
   * and epoch in one JVM would issue the same ids, so a second claim is refused.
   */
  static final class Claim implements AutoCloseable {
    private final String key;
    private final String claimant;
    private boolean closed;

    private Claim(String key, String claimant) {
      this.key = key;
      this.claimant = claimant;
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        CLAIMS.remove(key, claimant);
      }
    }
  }

  /**
   * Claims {@code workerId} of {@code layout}'s epoch for {@code claimant} (a description naming the generator and
   * where it comes from).
   *
   * @throws IllegalStateException naming both claimants if another generator of this JVM holds the worker id
   */
  static Claim claim(GeneIdLayout layout, long workerId, String claimant) {
    String key = layout.epoch().toEpochMilli() + "/" + workerId;
    String unique = claimant + " #" + Long.toHexString(System.identityHashCode(new Object()))
        + Long.toHexString(System.nanoTime());
    String held = CLAIMS.putIfAbsent(key, unique);
    if (held != null) {
      throw new IllegalStateException("worker id " + workerId + " (epoch " + layout.epoch() + ") is already used in "
          + "this JVM by " + held + "; a second generator, " + claimant + ", would issue the same ids. Share one "
          + "generator (GeneSnowflakeGenerator.builder()...build() shares per layout and worker id) or give each its "
          + "own worker id");
    }
    return new Claim(key, unique);
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
