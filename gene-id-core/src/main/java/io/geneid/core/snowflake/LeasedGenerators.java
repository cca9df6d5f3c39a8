package io.geneid.core.snowflake;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.lease.StaticWorkerIdAssigner;
import io.geneid.core.lease.StaticWorkerIdAssignerProvider;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssignerProvider;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Leased generators from kebab-case properties: the one entry point for ShardingSphere props, Spring Boot properties
 * and plain maps. The keys are those of {@link WorkerIdAssigners} (the assigner and its lease) and of the generator
 * ({@link WorkerIdAssigners#GENERATOR_KEYS}: the layout, {@code max-borrow-millis}, {@code clock-backwards-max-wait}).
 */
public final class LeasedGenerators {

  private LeasedGenerators() {}

  /**
   * A new handle on the JVM-wide leased generator for these properties, for ShardingSphere, MyBatis-Plus, Spring
   * and the application to share one generator, hence one lease, per configuration.
   *
   * <h4>Reference counting</h4>
   * Every call returns a new {@link GeneIdRegistry.Handle}: the first one (for properties that are equal, whatever
   * their order) creates the generator and acquires its lease; later ones share that generator and only count one
   * more user. Each user closes its own handle when it is done (a Spring bean's destroy method, a ShardingSphere
   * rule that is closed): that gives up its hold only, and the other users keep issuing. Closing the last handle
   * closes the generator (mark recorded, lease released); a call after that creates a new one. Handles that are
   * never closed are closed by the registry's single JVM shutdown hook. Closing the generator itself
   * ({@code handle.generator().close()}) closes it for every user: close the handle instead.
   *
   * <p>The lease is acquired in the calling thread outside every map lock: a slow store delays only the callers
   * asking for the same properties. Like every leased generator, the one behind the handle claims each worker id it
   * leases in this JVM ({@link GeneIdRegistry}): a generator built for the same worker id and epoch another way is
   * refused with a message naming both.
   *
   * @throws IllegalArgumentException for an unknown key or a bad value, naming it
   * @throws IllegalStateException if another generator of this JVM holds the worker id (a static one)
   * @throws WorkerIdExhaustedException if no worker id is free
   */
  public static GeneIdRegistry.Handle<LeasedGeneGenerator> sharedGenerator(Map<String, ?> props) {
    return sharedGenerator(SettingsReader.of(props));
  }

  /**
   * {@link #sharedGenerator(Map)} from a reader, whose messages name each key as its caller's user wrote it.
   *
   * @throws IllegalArgumentException for an unknown key or a bad value, naming it
   * @throws IllegalStateException if another generator of this JVM holds the worker id (a static one)
   * @throws WorkerIdExhaustedException if no worker id is free
   */
  public static GeneIdRegistry.Handle<LeasedGeneGenerator> sharedGenerator(SettingsReader props) {
    WorkerIdAssignerProvider provider = WorkerIdAssigners.checkedProvider(props, WorkerIdAssigners.GENERATOR_KEYS);
    String key = WorkerIdAssigners.canonicalKey(provider.type(), props);
    return GeneIdRegistry.acquire(key, () -> {
      LeasedGeneGenerator generator = build(provider, props);
      generator.registeredAs(key);
      return generator;
    });
  }

  /** A new leased generator for these properties, owned (and to be closed) by the caller. */
  public static LeasedGeneGenerator generator(Map<String, ?> props) {
    SettingsReader settings = SettingsReader.of(props);
    return build(WorkerIdAssigners.checkedProvider(settings, WorkerIdAssigners.GENERATOR_KEYS), settings);
  }

  /** {@link #check(SettingsReader)} of a map whose messages name keys as they are. */
  public static GeneIdLayout check(Map<String, ?> props) {
    return check(SettingsReader.of(props));
  }

  /**
   * Checks properties as {@link #sharedGenerator(Map)} reads them, without creating an assigner, reaching a store or
   * acquiring a lease: the {@code worker-assigner} type is on the class path, every key is known, the layout, the
   * generator settings and the lease settings are valid, and the provider accepts its own keys
   * ({@link WorkerIdAssignerProvider#check(SettingsReader)}). For start-up checks of objects that acquire their
   * lease later.
   *
   * @return the layout the generator will use
   * @throws IllegalArgumentException for an unknown key or a bad value, naming it
   */
  public static GeneIdLayout check(SettingsReader props) {
    WorkerIdAssignerProvider provider = WorkerIdAssigners.checkedProvider(props, WorkerIdAssigners.GENERATOR_KEYS);
    GeneIdLayout layout = GeneIdLayout.from(props);
    generatorSettings(props);
    Duration ttl;
    if (provider instanceof StaticWorkerIdAssignerProvider) {
      ttl = props.duration(WorkerIdAssigners.LEASE_TTL, WorkerIdAssigners.MIN_TTL, WorkerIdAssigners.MAX_TTL, StaticWorkerIdAssigner.DEFAULT_TTL);
    } else {
      WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
      props.checked(() -> WorkerIdAssigners.poolRange(s.space(), s.minWorkerId(), s.maxWorkerId(),
          layout.maxWorkerId()));
      ttl = s.ttl();
    }
    renewInterval(props, ttl);
    provider.check(props);
    return layout;
  }

  /** {@code lease-renew-interval} in [10ms, ttl), or {@code null} when absent. */
  private static @Nullable Duration renewInterval(SettingsReader props, Duration ttl) {
    if (!props.has(WorkerIdAssigners.LEASE_RENEW_INTERVAL)) {
      return null;
    }
    Duration renew = props.duration(WorkerIdAssigners.LEASE_RENEW_INTERVAL, Duration.ZERO);
    if (renew.compareTo(ttl) >= 0 || renew.toMillis() < 10) {
      throw props.named(new InvalidSettingException(WorkerIdAssigners.LEASE_RENEW_INTERVAL, renew.toMillis() + "ms",
          "in [10ms, " + ttl.toMillis() + "ms) (below {" + WorkerIdAssigners.LEASE_TTL + "})"));
    }
    return renew;
  }

  /** A generator builder with the layout, {@code max-borrow-millis} and {@code clock-backwards-max-wait}. */
  private static LeasedGeneGenerator.Builder generatorSettings(SettingsReader props) {
    return LeasedGeneGenerator.builder()
        .layout(GeneIdLayout.from(props))
        .maxBorrowMillis(SnowflakeSettings.maxBorrowMillis(props))
        .clockBackwardsPolicy(SnowflakeSettings.clockBackwardsPolicy(props));
  }

  private static LeasedGeneGenerator build(WorkerIdAssignerProvider provider, SettingsReader props) {
    return generator(props, provider.create(props));
  }

  /**
   * A new leased generator over {@code assigner} (built by the caller, for a store it reaches another way, such as
   * an application's DataSource) with the generator settings of {@code props}: the layout, {@code max-borrow-millis},
   * {@code clock-backwards-max-wait} and {@code lease-renew-interval}. The generator takes the assigner over: it
   * closes it when it is closed, or at once if it cannot be built.
   *
   * @throws IllegalArgumentException for a bad value, naming it
   */
  public static LeasedGeneGenerator generator(SettingsReader props, WorkerIdAssigner assigner) {
    try {
      LeasedGeneGenerator.Builder b = generatorSettings(props);
      Duration renew = renewInterval(props, assigner.ttl());
      if (renew != null) {
        b.renewInterval(renew);
      }
      return b.assigner(assigner).ownAssigner().build();
    } catch (RuntimeException e) {
      assigner.close(); // a bad setting or a failed first acquire: do not leak the store connection
      throw e;
    }
  }

}
