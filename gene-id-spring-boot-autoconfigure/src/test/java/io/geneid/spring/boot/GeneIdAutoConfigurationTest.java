package io.geneid.spring.boot;

import static io.geneid.spring.boot.StartupFailures.failsWith;
import static io.geneid.spring.boot.StartupFailures.invalidProperty;
import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration;
import com.baomidou.mybatisplus.core.config.GlobalConfig;
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.segment.SegmentSettings;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.mybatis.GeneIdentifierGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.ibatis.session.SqlSessionFactory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The auto-configuration in isolation. Every test uses its own worker id: the generator is JVM-shared per
 * (layout, worker id), and two contexts asking for one worker id with different settings are (rightly) refused.
 */
class GeneIdAutoConfigurationTest {


  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class,
          GeneIdMybatisPlusAutoConfiguration.class));

  private static long worker() {
    return TestWorkerIds.next();
  }


  @Test
  void defaultsGiveTheSharedGeneratorAsBothTypes() {
    long worker = worker();
    runner.withPropertyValues("gene-id.worker-id=" + worker).run(context -> {
      assertThat(context).hasSingleBean(GeneSnowflakeGenerator.class).hasSingleBean(GeneIdGenerator.class);
      GeneSnowflakeGenerator generator = context.getBean(GeneSnowflakeGenerator.class);
      assertThat(context.getBean(GeneIdGenerator.class)).isSameAs(generator);
      assertThat(GeneIdRegistry.find(GeneIdLayout.defaults(), worker)).containsSame(generator);
      assertThat(GeneSnowflakeGenerator.builder().workerId(worker).build()).isSameAs(generator);
      assertThat(generator.layout()).isEqualTo(GeneIdLayout.defaults());
      assertThat(generator.workerId()).isEqualTo(worker);
      assertThat(generator.maxBorrowMillis()).isEqualTo(GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS);
      assertThat(generator.clockBackwardsPolicy()).isEqualTo(ClockBackwardsPolicy.DEFAULT);
      assertThat(generator.clock()).isEqualTo(GeneClock.system());
      assertThat(generator.layout().decode(generator.nextIdFor(4242L)).gene()).isEqualTo(4242L % 64);
    });
  }

  @Test
  void propertyDefaultsAreTheCoreDefaults() {
    GeneIdProperties p = new org.springframework.boot.context.properties.bind.Binder(
        new org.springframework.boot.context.properties.source.MapConfigurationPropertySource(Map.of()))
        .bindOrCreate(GeneIdProperties.PREFIX, GeneIdProperties.class);
    GeneIdLayout d = GeneIdLayout.defaults();
    assertThat(GeneIdProperties.DEFAULT_EPOCH).isEqualTo(d.epoch().toString());
    assertThat(p.epoch()).isEqualTo(d.epoch());
    assertThat(p.timestampBits()).isEqualTo(d.timestampBits());
    assertThat(p.workerBits()).isEqualTo(d.workerBits());
    assertThat(p.sequenceBits()).isEqualTo(d.sequenceBits());
    assertThat(p.geneBits()).isEqualTo(d.geneBits());
    assertThat(p.maxBorrowMillis()).isEqualTo(GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS);
    assertThat(p.clockBackwardsMaxWait()).isEqualTo(ClockBackwardsPolicy.DEFAULT.maxWait());
    SegmentSettings s = SegmentSettings.defaults();
    assertThat(List.of(p.segment().minStep(), p.segment().maxStep(), p.segment().segmentDuration(),
        p.segment().prefetchRatio(), p.segment().fetchTimeout(), p.segment().prefetchRetry(),
        p.segment().threadBlock()))
        .isEqualTo(List.of(s.minStep(), s.maxStep(), s.segmentDuration(), s.prefetchRatio(), s.fetchTimeout(),
            s.prefetchRetry(), s.threadBlock()));
  }

  @Test
  void everyPropertyIsBound() {
    long worker = 33; // this layout is used by no other test
    runner.withPropertyValues("gene-id.worker-id=" + worker, "gene-id.epoch=2024-06-01T00:00:00Z",
        "gene-id.timestamp-bits=42", "gene-id.worker-bits=6", "gene-id.sequence-bits=5", "gene-id.gene-bits=10",
        "gene-id.max-borrow-millis=25", "gene-id.clock-backwards-max-wait=250ms", "gene-id.clock=wall",
        "gene-id.worker-assigner=static").run(context -> {
          GeneSnowflakeGenerator generator = context.getBean(GeneSnowflakeGenerator.class);
          assertThat(generator.layout()).isEqualTo(new GeneIdLayout(Instant.parse("2024-06-01T00:00:00Z"), 42, 6,
              5, 10));
          assertThat(generator.workerId()).isEqualTo(worker);
          assertThat(generator.maxBorrowMillis()).isEqualTo(25);
          assertThat(generator.clockBackwardsPolicy().maxWait()).isEqualTo(Duration.ofMillis(250));
          assertThat(generator.clock()).isEqualTo(GeneClock.wall());
        });
  }

  @Test
  void geneBitsOutOfRangeNamesTheProperty() {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.gene-bits=17", "gene-id.timestamp-bits=30")
        .run(failsWith("gene-id.timestamp-bits must be in [35, 63] but was 30"));
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.gene-bits=17")
        .run(failsWith("gene-id.gene-bits must be in [0, 16] but was 17"));
  }

  @Test
  void widthsThatDoNotAddUpNameEveryProperty() {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.gene-bits=8")
        .run(failsWith("gene-id.timestamp-bits + gene-id.worker-bits + gene-id.sequence-bits + gene-id.gene-bits"
            + " must be 63 (the defaults are 41 + 8 + 8 + 6) but was 65 (41 + 8 + 8 + 8)"));
  }

  @Test
  void workerIdIsRequiredAndChecked() {
    runner.run(failsWith("gene-id.worker-id is required: a value in [0, 255]"));
    runner.withPropertyValues("gene-id.worker-id=256")
        .run(failsWith("gene-id.worker-id must be in [0, 255] but was 256"));
    runner.withPropertyValues("gene-id.worker-id=-1")
        .run(failsWith("gene-id.worker-id must be in [0, 255] but was -1"));
    runner.withPropertyValues("gene-id.worker-id=-2")
        .run(failsWith("gene-id.worker-id must be in [0, 255] but was -2"));
  }

  @Test
  void clockSettingsAreChecked() {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.max-borrow-millis=60001")
        .run(failsWith("gene-id.max-borrow-millis must be in [0, 60000] but was 60001"));
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.clock-backwards-max-wait=-1s")
        .run(failsWith("gene-id.clock-backwards-max-wait must be in [0ms, 3600000ms] but was -1000ms"));
  }

  /** A misspelt key stops the start-up, named with the closest valid key, as ShardingSphere's props do. */
  @Test
  void anUnknownKeyStopsTheStartUpNamingTheClosestValidKey() {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.jdbc.create-table=true",
        "gene-id.gene-bit=6").run(context -> {
          assertThat(context).hasFailed();
          FailureAnalysis analysis = new UnknownGeneIdPropertyFailureAnalyzer().analyze(context.getStartupFailure());
          assertThat(analysis).isNotNull();
          assertThat(analysis.getDescription())
              .startsWith("Unknown gene-id configuration:")
              .contains("gene-id.gene-bit (from \"gene-id.gene-bit\" from property source \"test\") is not a"
                  + " gene-id property; did you mean gene-id.gene-bits?")
              .contains("gene-id.jdbc.create-table (from \"gene-id.jdbc.create-table\" from property source"
                  + " \"test\") is not a gene-id property; did you mean gene-id.jdbc.create-tables?");
          assertThat(analysis.getAction()).contains("gene-id.worker-id");
        });
    // relaxed spellings of a valid key still bind
    runner.withPropertyValues("gene-id.workerId=" + worker(), "gene-id.GENE_BITS=6")
        .run(context -> assertThat(context).hasNotFailed());
  }

  /** #12 item 6: lease and store settings were silently ignored with the static assigner. */
  @Test
  void leaseSettingsWithTheStaticAssignerStopTheStartUp() {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.lease.ttl=10s")
        .run(failsWith("gene-id.lease.ttl is set but gene-id.worker-assigner=static does not read it: set"
            + " gene-id.worker-assigner=redis or jdbc to lease the worker id, or remove it"));
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.lease.space=orders",
        "gene-id.redis.uri=redis://127.0.0.1:6379").run(failsWith("gene-id.lease.space, gene-id.redis.uri are set but"
            + " gene-id.worker-assigner=static does not read them: set gene-id.worker-assigner=redis or jdbc to lease"
            + " the worker id, or remove them"));
  }

  @Test
  void epochIsChecked() {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.epoch=2999-01-01T00:00:00Z")
        .run(context -> assertThat(invalidProperty(context))
            .hasMessageStartingWith("gene-id.epoch must be in the past but was 2999-01-01T00:00:00Z"));
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.epoch=2000-01-01T00:00:00Z",
        "gene-id.timestamp-bits=35", "gene-id.worker-bits=10", "gene-id.sequence-bits=12")
        .run(context -> assertThat(invalidProperty(context))
            .hasMessageStartingWith("gene-id.timestamp-bits must be enough to reach today from the epoch (choose a"
                + " later epoch or more timestamp bits) but was 35 (from epoch 2000-01-01T00:00:00Z they ran out at"));
  }

  @Test
  void unknownWorkerAssignerIsABindingError() {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.worker-assigner=zookeeper")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("gene-id.worker-assigner")
            .hasStackTraceContaining("zookeeper"));
  }

  @Test
  void failureAnalyzerReportsTheProperty() throws java.io.IOException {
    runner.withPropertyValues("gene-id.worker-id=" + worker(), "gene-id.gene-bits=17").run(context -> {
      var analysis = new InvalidGeneIdPropertyFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis).isNotNull();
      assertThat(analysis.getDescription())
          .isEqualTo("Invalid gene-id configuration: gene-id.gene-bits must be in [0, 16] but was 17");
      assertThat(analysis.getAction()).startsWith("Fix the property in your application configuration.");
    });
    // registered in our META-INF/spring.factories (whichever position it has on the class path)
    var registered = new java.util.ArrayList<String>();
    for (var url : java.util.Collections.list(getClass().getClassLoader().getResources("META-INF/spring.factories"))) {
      var factories = new java.util.Properties();
      try (var in = url.openStream()) {
        factories.load(in);
      }
      registered.addAll(java.util.List.of(factories.getProperty("org.springframework.boot.diagnostics.FailureAnalyzer",
          "").split("\\s*,\\s*")));
    }
    assertThat(registered).contains(InvalidGeneIdPropertyFailureAnalyzer.class.getName(),
        UnknownGeneIdPropertyFailureAnalyzer.class.getName());
  }

  @Test
  void autoConfigurationsAreRegistered() {
    assertThat(org.springframework.boot.context.annotation.ImportCandidates.load(
        org.springframework.boot.autoconfigure.AutoConfiguration.class, getClass().getClassLoader()))
        .contains(GeneIdAutoConfiguration.class.getName(), GeneIdMybatisPlusAutoConfiguration.class.getName());
  }

  // ---------------------------------------------------------------- MyBatis-Plus

  @Test
  void myBatisPlusGetsTheGeneIdentifierGenerator() {
    runner.withPropertyValues("gene-id.worker-id=" + worker()).run(context -> {
      assertThat(context).hasSingleBean(IdentifierGenerator.class);
      GeneIdentifierGenerator ids = context.getBean(GeneIdentifierGenerator.class);
      assertThat(ids.generator()).isSameAs(context.getBean(GeneIdGenerator.class));
    });
  }

  @Test
  void withoutMyBatisPlusOnlyTheGeneratorIsCreated() {
    runner.withClassLoader(new FilteredClassLoader(IdentifierGenerator.class))
        .withPropertyValues("gene-id.worker-id=" + worker()).run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(GeneSnowflakeGenerator.class)
              .doesNotHaveBean(GeneIdentifierGenerator.class);
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnIdentifierGenerator {
    @Bean
    IdentifierGenerator myIdentifierGenerator() {
      return entity -> 42L;
    }
  }

  /** The whole MyBatis-Plus Boot starter on an embedded H2: it must find exactly one IdentifierGenerator. */
  private ApplicationContextRunner withMybatisPlus() {
    return runner.withConfiguration(AutoConfigurations.of(BootLine.dataSourceAutoConfiguration(),
            MybatisPlusAutoConfiguration.class))
        .withPropertyValues("spring.datasource.url=jdbc:h2:mem:gid_starter_" + Long.toHexString(
            ThreadLocalRandom.current().nextLong()) + ";DB_CLOSE_DELAY=-1", "gene-id.worker-id=" + worker());
  }

  private static IdentifierGenerator mybatisPlusIdGenerator(AssertableApplicationContext context) {
    GlobalConfig config = GlobalConfigUtils.getGlobalConfig(context.getBean(SqlSessionFactory.class)
        .getConfiguration());
    return config.getIdentifierGenerator();
  }

  @Test
  void myBatisPlusStarterUsesOurs() {
    withMybatisPlus().run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(mybatisPlusIdGenerator(context)).isSameAs(context.getBean(GeneIdentifierGenerator.class));
    });
  }

  @Test
  void ownIdentifierGeneratorMakesOursBackOffWithoutNoUniqueBean() {
    withMybatisPlus().withUserConfiguration(OwnIdentifierGenerator.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(IdentifierGenerator.class)
          .doesNotHaveBean(GeneIdentifierGenerator.class).hasSingleBean(GeneSnowflakeGenerator.class);
      assertThat(mybatisPlusIdGenerator(context)).isSameAs(context.getBean("myIdentifierGenerator"));
      assertThat(mybatisPlusIdGenerator(context).nextId(null)).isEqualTo(42L);
    });
  }

  @Test
  void twoIdentifierGeneratorsWouldFailInMybatisPlus() {
    // the failure our back-off avoids: MyBatis-Plus's starter with two IdentifierGenerator beans
    withMybatisPlus().withUserConfiguration(OwnIdentifierGenerator.class)
        .withBean("second", IdentifierGenerator.class, () -> entity -> 7L)
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasRootCauseInstanceOf(NoUniqueBeanDefinitionException.class));
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnGenerator {
    static final long WORKER = worker();

    @Bean
    GeneIdGenerator myGenerator() {
      return GeneSnowflakeGenerator.builder().workerId(WORKER).maxBorrowMillis(3).buildUnshared();
    }
  }

  @Test
  void ownGeneratorMakesOursBackOffAndIsUsedByMybatisPlus() {
    runner.withUserConfiguration(OwnGenerator.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(GeneIdGenerator.class);
      GeneIdGenerator own = context.getBean("myGenerator", GeneIdGenerator.class);
      assertThat(context.getBean(GeneIdentifierGenerator.class).generator()).isSameAs(own);
    });
  }

  @Test
  void ownGeneratorNeedsNoWorkerIdProperty() {
    // the properties are the static generator's: with the application's own generator nothing requires them
    runner.withUserConfiguration(OwnGenerator.class).run(context -> assertThat(context).hasNotFailed());
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoGenerators {
    static final long A = worker();
    static final long B = worker();

    @Bean
    GeneIdGenerator first() {
      return GeneSnowflakeGenerator.builder().workerId(A).buildUnshared();
    }

    @Bean
    GeneIdGenerator second() {
      return GeneSnowflakeGenerator.builder().workerId(B).buildUnshared();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoGeneratorsOnePrimary {
    static final long A = worker();
    static final long B = worker();

    @Bean
    @Primary
    GeneIdGenerator first() {
      return GeneSnowflakeGenerator.builder().workerId(A).buildUnshared();
    }

    @Bean
    GeneIdGenerator second() {
      return GeneSnowflakeGenerator.builder().workerId(B).buildUnshared();
    }
  }

  @Test
  void twoGeneratorsNeedAPrimary() {
    runner.withUserConfiguration(TwoGenerators.class).run(context -> assertThat(context).hasFailed().getFailure()
        .rootCause().isInstanceOf(IllegalStateException.class)
        .hasMessage("the MyBatis-Plus IdentifierGenerator of gene-id needs one GeneIdGenerator but found [first,"
            + " second]: mark one @Primary or define your own IdentifierGenerator bean"));
    runner.withUserConfiguration(TwoGeneratorsOnePrimary.class).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(GeneIdentifierGenerator.class).generator()).isSameAs(context.getBean("first"));
    });
  }
}
