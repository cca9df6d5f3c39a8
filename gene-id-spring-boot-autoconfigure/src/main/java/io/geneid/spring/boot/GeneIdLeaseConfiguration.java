package io.geneid.spring.boot;

import io.geneid.core.snowflake.LeasedGenerators;

import io.geneid.core.settings.SettingsReader;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.spring.boot.GeneIdProperties.ClockSource;
import io.geneid.spring.boot.GeneIdProperties.WorkerAssigner;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * The {@link LeasedGeneGenerator} of {@code gene-id.worker-assigner: redis | jdbc | zookeeper | etcd}, imported by
 * {@link GeneIdAutoConfiguration}. When the context closes it gives up what it holds: its own generator is closed
 * (lease released, high-water mark recorded); its handle on a JVM-shared one is closed, and the shared generator is
 * closed only if no other user (a ShardingSphere key generator, another context) still holds it.
 */
@Configuration(proxyBeanMethods = false)
class GeneIdLeaseConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(GeneIdLeaseConfiguration.class);

  static final String REDIS_PROBE = "io.geneid.redis.RedisWorkerIdAssigner";
  static final String JDBC_PROBE = "io.geneid.jdbc.JdbcWorkerIdAssigner";
  static final String ZOOKEEPER_PROBE = "io.geneid.zookeeper.ZookeeperWorkerIdAssigner";
  static final String ETCD_PROBE = "io.geneid.etcd.EtcdWorkerIdAssigner";
  private static final String SHARDINGSPHERE_CONNECTION =
      "org.apache.shardingsphere.driver.jdbc.core.connection.ShardingSphereConnection";

  /**
   * What this context holds of its leased generator, closed with the context: a counted handle on the JVM-wide
   * generator of {@link WorkerIdAssigners#sharedGenerator(Map)} (closing it gives up this context's hold only), or
   * this context's own generator (closing it releases the lease). Not a {@link GeneIdGenerator}, so the generator
   * below stays the only bean of that type.
   */
  static final class LeaseHold implements AutoCloseable {
    private final LeasedGeneGenerator generator;
    private final AutoCloseable closer;

    LeaseHold(LeasedGeneGenerator generator, AutoCloseable closer) {
      this.generator = generator;
      this.closer = closer;
    }

    LeasedGeneGenerator generator() {
      return generator;
    }

    @Override
    public void close() throws Exception {
      closer.close();
    }

    @Override
    public String toString() {
      return "LeaseHold[" + closer + "]";
    }
  }

  /**
   * Obtains the leased generator: for redis, and for jdbc with {@code gene-id.jdbc.url}, a handle on the JVM-wide
   * instance of {@link WorkerIdAssigners#sharedGenerator(SettingsReader)} for {@link GeneIdProperties#settings(boolean)};
   * for jdbc over the application's DataSource this context's own generator. Declared before
   * {@link #leasedGeneGenerator}, whose missing-bean condition would otherwise see the generator and skip this one.
   *
   * @throws InvalidGeneIdPropertyException naming the property that is missing, out of range or inconsistent, or the
   *     artifact to add
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(GeneIdGenerator.class)
  @Conditional(OnLeasedWorkerAssigner.class)
  LeaseHold geneIdLeaseHold(GeneIdProperties properties, ObjectProvider<DataSource> dataSources,
      ResourceLoader resources) {
    WorkerAssigner type = properties.workerAssigner();
    String what = GeneIdProperties.PREFIX + ".worker-assigner=" + type.name().toLowerCase(Locale.ROOT);
    ClassLoader loader = resources.getClassLoader();
    switch (type) {
      case REDIS -> requireModule(what, "gene-id-redis", REDIS_PROBE, loader);
      case JDBC -> requireModule(what, "gene-id-jdbc", JDBC_PROBE, loader);
      case ZOOKEEPER -> requireModule(what, "gene-id-zookeeper", ZOOKEEPER_PROBE, loader);
      default -> requireModule(what, "gene-id-etcd", ETCD_PROBE, loader);
    }
    if (properties.workerId() != null) {
      throw new InvalidGeneIdPropertyException(GeneIdProperties.PREFIX + ".worker-id must not be set with " + what
          + ": the worker id is leased from the store (remove " + GeneIdProperties.PREFIX + ".worker-id, or use "
          + GeneIdProperties.PREFIX + ".worker-assigner=static)");
    }
    if (properties.clock() == ClockSource.WALL) {
      throw new InvalidGeneIdPropertyException(GeneIdProperties.PREFIX + ".clock=wall is only supported with "
          + GeneIdProperties.PREFIX + ".worker-assigner=static; a leased generator uses the system clock and moves"
          + " to a fresh worker id when it steps back");
    }
    properties.layout(); // layout mistakes are reported as in static mode
    checkRenewInterval(properties.lease());
    LeaseHold hold;
    try {
      if (type == WorkerAssigner.JDBC && properties.jdbc().url() == null) {
        DataSource dataSource = applicationDataSource(dataSources, loader, what);
        LeasedGeneGenerator own = GeneIdProperties.named(() -> JdbcSupport.leasedGenerator(properties, dataSource));
        hold = new LeaseHold(own, own);
      } else {
        SettingsReader props = properties.settings(true);
        GeneIdRegistry.Handle<LeasedGeneGenerator> handle =
            GeneIdProperties.named(() -> LeasedGenerators.sharedGenerator(props));
        hold = new LeaseHold(handle.generator(), handle);
      }
    } catch (GeneIdException e) {
      GeneIdStoreException report = GeneIdStoreException.ofLease(properties, e);
      throw report != null ? report : e;
    }
    LeasedGeneGenerator generator = hold.generator();
    LOG.debug("gene-id: leased generator {}", generator); // the lease itself is logged once, by the generator
    return hold;
  }

  /**
   * The leased generator of this context, as a bean: {@link LeaseHold#generator()}. It has no destroy method of its
   * own: the {@link LeaseHold} bean closes what this context holds, and a JVM-shared generator stays open for its
   * other users.
   */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean(GeneIdGenerator.class)
  @Conditional(OnLeasedWorkerAssigner.class)
  LeasedGeneGenerator leasedGeneGenerator(LeaseHold geneIdLeaseHold) {
    return geneIdLeaseHold.generator();
  }

  /** Checked here, before a store connection is opened that a failing generator would not close. */
  private static void checkRenewInterval(GeneIdProperties.Lease lease) {
    java.time.Duration renew = lease.renewInterval();
    if (renew == null) {
      return;
    }
    java.time.Duration ttl = lease.ttl() != null ? lease.ttl() : WorkerIdAssigners.DEFAULT_TTL;
    if (renew.compareTo(ttl) >= 0 || renew.toMillis() < 10) {
      throw new InvalidGeneIdPropertyException(GeneIdProperties.PREFIX + ".lease.renew-interval must be in [10ms, "
          + ttl.toMillis() + "ms) (below " + GeneIdProperties.PREFIX + ".lease.ttl) but was " + renew.toMillis()
          + "ms");
    }
  }

  /**
   * Fails unless {@code probe} (a class of {@code artifact}) is on the class path.
   *
   * @throws InvalidGeneIdPropertyException naming the setting that needs it and the dependency to add
   */
  static void requireModule(String what, String artifact, String probe, @Nullable ClassLoader loader) {
    if (!ClassUtils.isPresent(probe, loader)) {
      throw new InvalidGeneIdPropertyException(what + " needs io.geneid:" + artifact + " on the class path: add the"
          + " dependency io.geneid:" + artifact);
    }
  }

  /**
   * The application's one DataSource, checked not to be ShardingSphere's (lease and segment tables must not be
   * routed by it).
   *
   * @throws InvalidGeneIdPropertyException if there is none, several without a primary, or ShardingSphere's
   */
  static DataSource applicationDataSource(ObjectProvider<DataSource> dataSources, @Nullable ClassLoader loader,
      String what) {
    DataSource dataSource = dataSources.getIfUnique();
    if (dataSource == null) {
      throw new InvalidGeneIdPropertyException(what + " needs " + GeneIdProperties.PREFIX + ".jdbc.url or one"
          + " DataSource bean (found none, or several and none @Primary)");
    }
    if (ClassUtils.isPresent(SHARDINGSPHERE_CONNECTION, loader)) {
      boolean sharded;
      try (Connection c = dataSource.getConnection()) {
        sharded = c.isWrapperFor(ClassUtils.forName(SHARDINGSPHERE_CONNECTION, loader));
      } catch (SQLException | ClassNotFoundException e) {
        throw new IllegalStateException(what + ": cannot open a connection of the application's DataSource: " + e,
            e);
      }
      if (sharded) {
        throw new InvalidGeneIdPropertyException(what + " cannot keep its table behind the application's"
            + " ShardingSphere DataSource: set " + GeneIdProperties.PREFIX + ".jdbc.url (and username, password) to"
            + " a plain database");
      }
    }
    return dataSource;
  }

  /** Matches {@code gene-id.worker-assigner} redis, jdbc, zookeeper or etcd. */
  static final class OnLeasedWorkerAssigner extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      WorkerAssigner assigner;
      try {
        assigner = Binder.get(context.getEnvironment())
            .bind(GeneIdProperties.PREFIX + ".worker-assigner", WorkerAssigner.class).orElse(WorkerAssigner.STATIC);
      } catch (BindException e) {
        return ConditionOutcome.noMatch("gene-id.worker-assigner does not bind: " + e.getMessage());
      }
      return assigner != WorkerAssigner.STATIC && assigner != WorkerAssigner.NONE
          ? ConditionOutcome.match("gene-id.worker-assigner is " + assigner)
          : ConditionOutcome.noMatch("gene-id.worker-assigner is " + assigner);
    }
  }
}
