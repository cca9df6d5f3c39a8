package io.geneid.spring.boot;

import io.geneid.core.snowflake.LeasedGenerators;

import static io.geneid.spring.boot.StartupFailures.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.mybatis.GeneIdentifierGenerator;
import io.geneid.redis.TestRedis;
import io.geneid.core.testing.TestTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code gene-id.worker-assigner: redis | jdbc} against the real stores: Redis on 127.0.0.1:6379 (a key prefix of
 * this run), H2 through the application's DataSource, and MariaDB on 127.0.0.1:3306 (a database of this run) through
 * {@code gene-id.jdbc.url}. Each context leases from a pool of exactly one worker id with no acquire wait, so a
 * second context starting after the first closed proves that closing released the lease.
 */
class GeneIdLeaseTest {

  private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/";
  private static TestRedis redis;
  private static String mariaDb;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class,
          GeneIdMybatisPlusAutoConfiguration.class));

  @BeforeAll
  static void stores() throws SQLException {
    redis = new TestRedis("starter");
    mariaDb = "gid_starter_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    try (Connection c = mariaRoot(); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + mariaDb);
    }
  }

  @AfterAll
  static void dropStores() throws SQLException {
    redis.close();
    try (Connection c = mariaRoot(); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + mariaDb);
    }
  }

  private static Connection mariaRoot() throws SQLException {
    try {
      return DriverManager.getConnection(MARIADB + "test", "root", "");
    } catch (SQLException e) {
      throw new AssertionError("MariaDB must run on 127.0.0.1:3306 for these tests (see .ci/run): " + e, e);
    }
  }

  private static String unique(String what) {
    return what + "_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  /**
   * The lease TTL of the pools here, on real stores and the system clock: 2 s at the tests' time scale, so that a
   * busy machine's store calls (a third of it) and renewals keep the leases the tests hold.
   */
  private static final String TTL = TestTime.seconds(2).toMillis() + "ms";

  /** A pool of the single worker id {@code workerId}, {@link #TTL}, no waiting for a free id. */
  private static String[] onePool(String space, long workerId, String owner) {
    return new String[] {"gene-id.lease.space=" + space, "gene-id.lease.worker-id-min=" + workerId,
        "gene-id.lease.worker-id-max=" + workerId, "gene-id.lease.ttl=" + TTL, "gene-id.lease.acquire-timeout=0s",
        "gene-id.lease.owner=" + owner};
  }

  private ApplicationContextRunner redisRunner(String space, long workerId, String owner) {
    redis.agePool(space);
    return runner.withPropertyValues("gene-id.worker-assigner=redis", "gene-id.redis.uri=" + TestRedis.URI,
        "gene-id.redis.lease-key-prefix=" + redis.prefix).withPropertyValues(onePool(space, workerId, owner));
  }

  /** The generator bean: leased, the GeneIdGenerator and the MyBatis-Plus generator's; its ids carry its worker id. */
  private static LeasedGeneGenerator leasedBean(AssertableApplicationContext context, long workerId) {
    assertThat(context).hasNotFailed().hasSingleBean(LeasedGeneGenerator.class).hasSingleBean(GeneIdGenerator.class)
        .doesNotHaveBean(GeneSnowflakeGenerator.class);
    LeasedGeneGenerator generator = context.getBean(LeasedGeneGenerator.class);
    assertThat(context.getBean(GeneIdGenerator.class)).isSameAs(generator);
    assertThat(context.getBean(GeneIdentifierGenerator.class).generator()).isSameAs(generator);
    assertThat(generator.workerId()).isEqualTo(workerId);
    long id = generator.nextIdFor(4242L);
    assertThat(GeneIdLayout.defaults().decode(id).workerId()).isEqualTo(workerId);
    assertThat(GeneIdLayout.defaults().decode(id).gene()).isEqualTo(4242L % 64);
    return generator;
  }


  // ---------------------------------------------------------------- Redis

  @Test
  void redisLeaseIsTheBeanAndIsReleasedOnClose() {
    String space = unique("redis");
    String owner = unique("owner");
    AtomicReference<LeasedGeneGenerator> first = new AtomicReference<>();
    AtomicReference<GeneIdRegistry.Handle<LeasedGeneGenerator>> sharding = new AtomicReference<>();
    redisRunner(space, 9, owner).run(context -> {
      LeasedGeneGenerator generator = leasedBean(context, 9);
      first.set(generator);
      assertThat(redis.redis().hget(redis.workerKey(space, 9), "owner")).isEqualTo(owner);
      // JVM-shared: the same properties through WorkerIdAssigners (as a ShardingSphere key generator would pass
      // them) give a handle on this very instance
      Map<String, String> props = new TreeMap<>(Map.of("worker-assigner", "redis", "redis-uri", TestRedis.URI,
          "redis-key-prefix", redis.prefix, "space", space, "worker-id-min", "9", "worker-id-max", "9",
          "lease-ttl", TTL, "lease-acquire-timeout", "0ms", "lease-owner", owner));
      sharding.set(LeasedGenerators.sharedGenerator(props));
      assertThat(sharding.get().generator()).isSameAs(generator);
      assertThat(GeneIdRegistry.allShared()).contains(generator);
    });
    // #11 scenario 10: the context closed its own hold only; the other user (ShardingSphere) still issues
    assertThat(first.get().isIssuing()).isTrue();
    assertThat(sharding.get().nextId()).isPositive();
    assertThat(redis.redis().hget(redis.workerKey(space, 9), "owner")).isEqualTo(owner);
    sharding.get().close();
    // the last user let go: lease released (holder gone), no more ids, out of the registry
    assertThat(redis.redis().hexists(redis.workerKey(space, 9), "owner")).isFalse();
    assertThat(first.get().isIssuing()).isFalse();
    Assertions.assertThatThrownBy(first.get()::nextId).isInstanceOf(GeneIdException.class)
        .hasMessageContaining("is closed");
    assertThat(GeneIdRegistry.allShared()).doesNotContain(first.get());
    // the only worker id of the pool is free again at once (acquire-timeout 0)
    redisRunner(space, 9, owner).run(context -> assertThat(leasedBean(context, 9)).isNotSameAs(first.get()));
  }

  @Test
  void aSecondHolderOfTheOnlyWorkerIdIsRefusedWhileTheFirstRuns() {
    String space = unique("redis");
    redisRunner(space, 3, "first").run(first -> {
      leasedBean(first, 3);
      // another process (its own owner, hence its own configuration and lease) finds the pool exhausted
      redisRunner(space, 3, "second").run(second -> assertThat(second).hasFailed().getFailure()
          .hasRootCauseInstanceOf(io.geneid.core.lease.WorkerIdExhaustedException.class)
          .rootCause().hasMessageContaining("first"));
    });
  }

  @Test
  void lettuceIsTheOneSpringBootManages() {
    // gene-id-redis is built against the parent's Lettuce 6.8; applications get Spring Boot's, which runs on the
    // Netty Spring Boot forces (4.1 in Boot 3, 4.2 in Boot 4): the tests above ran on exactly these
    assertThat(io.lettuce.core.RedisClient.class.getPackage().getImplementationVersion())
        .startsWith(BootLine.isBoot4() ? "6.8." : "6.6.");
    assertThat(io.netty.util.Version.identify().get("netty-common").artifactVersion())
        .startsWith(BootLine.isBoot4() ? "4.2." : "4.1.");
  }

  @Test
  void badLeaseSettingsNameTheProperty() {
    String space = unique("redis");
    ApplicationContextRunner r = runner.withPropertyValues("gene-id.worker-assigner=redis",
        "gene-id.lease.space=" + space);
    r.run(failsWith("gene-id.redis.uri is required: a Redis URI such as redis://127.0.0.1:6379/0"));
    ApplicationContextRunner withUri = r.withPropertyValues("gene-id.redis.uri=" + TestRedis.URI);
    withUri.withPropertyValues("gene-id.lease.ttl=50ms")
        .run(failsWith("gene-id.lease.ttl must be in [100ms, 3600000ms] but was 50ms"));
    withUri.withPropertyValues("gene-id.lease.ttl=3s", "gene-id.lease.renew-interval=3s")
        .run(failsWith("gene-id.lease.renew-interval must be in [10ms, 3000ms) (below gene-id.lease.ttl) but was"
            + " 3000ms"));
    withUri.withPropertyValues("gene-id.lease.space=no spaces")
        .run(failsWith("gene-id.lease.space must be 1 to 64 characters of A-Z a-z 0-9 . _ - but was 'no spaces'"));
    withUri.withPropertyValues("gene-id.worker-id=3").run(failsWith("gene-id.worker-id must not be set with"
        + " gene-id.worker-assigner=redis: the worker id is leased from the store (remove gene-id.worker-id, or use"
        + " gene-id.worker-assigner=static)"));
    withUri.withPropertyValues("gene-id.clock=wall").run(failsWith("gene-id.clock=wall is only supported with"
        + " gene-id.worker-assigner=static; a leased generator uses the system clock and moves to a fresh worker id"
        + " when it steps back"));
    withUri.withPropertyValues("gene-id.gene-bits=17")
        .run(failsWith("gene-id.gene-bits must be in [0, 16] but was 17"));
    withUri.withPropertyValues("gene-id.lease.worker-id-min=300").run(failsWith(
        "gene-id.lease.worker-id-min must be in [0, 255] (the layout's worker ids; space '" + space + "') but was"
            + " 300"));
    withUri.withPropertyValues("gene-id.lease.worker-id-min=9", "gene-id.lease.worker-id-max=3").run(failsWith(
        "gene-id.lease.worker-id-max must be at least gene-id.lease.worker-id-min (9) but was 3"));
    r.withPropertyValues("gene-id.redis.uri=redis://127.0.0.1:6379/zero").run(failsWith("gene-id.redis.uri must be a"
        + " Redis URI such as redis://127.0.0.1:6379/0 or redis://:password@host:6379/0 but was"
        + " 'redis://127.0.0.1:6379/zero' (NumberFormatException; a password with reserved characters must be"
        + " percent-encoded)"));
  }

  @Test
  void aMissingStoreModuleNamesTheArtifact() {
    runner.withClassLoader(new FilteredClassLoader("io.geneid.redis"))
        .withPropertyValues("gene-id.worker-assigner=redis", "gene-id.redis.uri=" + TestRedis.URI)
        .run(failsWith("gene-id.worker-assigner=redis needs io.geneid:gene-id-redis on the class path: add the"
            + " dependency io.geneid:gene-id-redis"));
    runner.withClassLoader(new FilteredClassLoader("io.geneid.jdbc"))
        .withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=jdbc:h2:mem:x")
        .run(failsWith("gene-id.worker-assigner=jdbc needs io.geneid:gene-id-jdbc on the class path: add the"
            + " dependency io.geneid:gene-id-jdbc"));
  }

  @Test
  void noneCreatesNoGenerator() {
    runner.withPropertyValues("gene-id.worker-assigner=none").run(context -> assertThat(context).hasNotFailed()
        .doesNotHaveBean(GeneIdGenerator.class).doesNotHaveBean(GeneIdentifierGenerator.class));
  }

  // ---------------------------------------------------------------- JDBC

  private static String holder(Connection c, String table, String space, long workerId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT holder FROM " + table
        + " WHERE space_name = ? AND worker_id = ?")) {
      ps.setString(1, space);
      ps.setLong(2, workerId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  @Test
  void jdbcLeaseOnTheApplicationsH2DataSource() {
    String db = unique("gid_starter_h2");
    String url = "jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1";
    String space = unique("h2");
    ApplicationContextRunner r = runner.withConfiguration(AutoConfigurations.of(BootLine.dataSourceAutoConfiguration()))
        .withPropertyValues("spring.datasource.url=" + url, "gene-id.worker-assigner=jdbc",
            "gene-id.jdbc.create-tables=true", "gene-id.jdbc.lease-table=app_worker_lease")
        .withPropertyValues(onePool(space, 4, "h2-owner"));
    AtomicReference<LeasedGeneGenerator> first = new AtomicReference<>();
    r.run(context -> {
      LeasedGeneGenerator generator = leasedBean(context, 4);
      first.set(generator);
      try (Connection c = DriverManager.getConnection(url, "sa", "")) {
        assertThat(holder(c, "app_worker_lease", space, 4)).isEqualTo("h2-owner");
      }
      // this context's own generator (over its DataSource), not a JVM-wide one
      assertThat(GeneIdRegistry.allShared()).doesNotContain(generator);
    });
    assertThat(first.get().isIssuing()).isFalse();
    try (Connection c = DriverManager.getConnection(url, "sa", "")) {
      assertThat(holder(c, "app_worker_lease", space, 4)).isEmpty();
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    r.run(context -> leasedBean(context, 4));
  }

  @Test
  void jdbcLeaseOnMariaDbThroughItsUrl() throws SQLException {
    String url = MARIADB + mariaDb;
    String space = unique("maria");
    // 250: the static tests of this JVM build worker ids 100.. and 200.., and a worker id has one generator per JVM
    ApplicationContextRunner r = runner.withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=" + url,
        "gene-id.jdbc.username=root", "gene-id.jdbc.password=", "gene-id.jdbc.create-tables=true")
        .withPropertyValues(onePool(space, 250, "maria-owner"));
    AtomicReference<LeasedGeneGenerator> first = new AtomicReference<>();
    r.run(context -> {
      LeasedGeneGenerator generator = leasedBean(context, 250);
      first.set(generator);
      assertThat(GeneIdRegistry.allShared()).contains(generator); // JVM-wide: the same URL in ShardingSphere shares it
      try (Connection c = DriverManager.getConnection(url, "root", "")) {
        assertThat(holder(c, "gene_id_worker_lease", space, 250)).isEqualTo("maria-owner");
      }
    });
    assertThat(first.get().isIssuing()).isFalse();
    try (Connection c = DriverManager.getConnection(url, "root", "")) {
      assertThat(holder(c, "gene_id_worker_lease", space, 250)).isEmpty();
    }
    r.run(context -> leasedBean(context, 250));
  }

  @Test
  void jdbcNeedsAUrlOrADataSource() {
    runner.withPropertyValues("gene-id.worker-assigner=jdbc").run(failsWith("gene-id.worker-assigner=jdbc needs"
        + " gene-id.jdbc.url or one DataSource bean (found none, or several and none @Primary)"));
    runner.withPropertyValues("gene-id.worker-assigner=jdbc", "gene-id.jdbc.url=jdbc:h2:mem:x",
        "gene-id.jdbc.lease-table=no-dashes").run(failsWith("gene-id.jdbc.lease-table must be a plain SQL name"
            + " ([schema.]name of letters, digits and _, each part 1 to 63 characters, not starting with a digit) but"
            + " was 'no-dashes'"));
  }
}
