package io.geneid.spring.boot.actuate;

import io.geneid.spring.boot.TestWorkerIds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.testing.TestTime;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.geneid.core.testing.Await;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.StaticWorkerIdAssigner;
import io.geneid.micrometer.GeneIdMetrics;
import io.geneid.spring.boot.GeneIdAutoConfiguration;
import io.geneid.spring.boot3.actuate.GeneIdHealthAutoConfiguration;
import io.geneid.spring.boot3.actuate.GeneIdHealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The geneid endpoint, health indicator and meters, through the auto-configuration. Each test uses its own worker id
 * (generators are JVM-shared per layout and worker id).
 */
class GeneIdActuatorAutoConfigurationTest {

  private static final String EXPOSE = "management.endpoints.web.exposure.include=health,geneid";

  @TempDir Path dir;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class, GeneIdActuatorAutoConfiguration.class,
          GeneIdHealthAutoConfiguration.class, EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class));

  private static String worker() {
    return "gene-id.worker-id=" + TestWorkerIds.next();
  }

  // ---------------------------------------------------------------- endpoint

  @Test
  void theEndpointExistsOnlyWhenExposedAndActuatorIsPresent() {
    runner.withPropertyValues(worker(), EXPOSE).run(context -> assertThat(context).hasSingleBean(GeneIdEndpoint.class));
    runner.withPropertyValues(worker()).run(context -> assertThat(context).doesNotHaveBean(GeneIdEndpoint.class));
    runner.withPropertyValues(worker(), EXPOSE, "management.endpoint.geneid.access=NONE")
        .run(context -> assertThat(context).doesNotHaveBean(GeneIdEndpoint.class));
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class,
            GeneIdActuatorAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader(Endpoint.class, HealthIndicator.class,
            io.micrometer.core.instrument.MeterRegistry.class))
        .withPropertyValues(worker(), EXPOSE)
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(GeneSnowflakeGenerator.class);
          assertThat(context).doesNotHaveBean(GeneIdEndpoint.class).doesNotHaveBean(GeneIdHealthIndicator.class)
              .doesNotHaveBean(MeterBinder.class);
        });
  }

  @Test
  void theEndpointDecodesWithTheGeneratorsLayoutAndNamesTheShard() {
    runner.withPropertyValues(worker(), EXPOSE, "gene-id.gene-bits=4", "gene-id.sequence-bits=10",
        "management.endpoint.geneid.sharding-count=4").run(context -> {
          GeneSnowflakeGenerator generator = context.getBean(GeneSnowflakeGenerator.class);
          GeneIdEndpoint endpoint = context.getBean(GeneIdEndpoint.class);
          assertThat(endpoint.layout()).isEqualTo(generator.layout());
          long id = generator.nextId(13);
          var parts = generator.layout().decode(id);
          assertThat(endpoint.decode(Long.toString(id), null, null).getBody())
              .isEqualTo(new GeneIdEndpoint.DecodedId(Long.toString(id), parts.timestamp().toString(),
                  generator.workerId(), parts.sequence(), 13, "T41-W8-S10-G4 from 2025-01-01T00:00:00Z", 4, 1, 1L));
          assertThat(decoded(endpoint, id, 8, null).shard()).isEqualTo(5); // the query parameter wins
          assertThat(decoded(endpoint, id, 16, null).shardingCount()).isEqualTo(16);
          // a second level: (gene / divisor) % count, as GENE_MOD computes it
          assertThat(decoded(endpoint, id, 2, 4).shard()).isEqualTo(1); // (13 / 4) % 2
        });
  }

  private static GeneIdEndpoint.DecodedId decoded(GeneIdEndpoint endpoint, long id, @Nullable Integer count,
      @Nullable Integer divisor) {
    WebEndpointResponse<Object> response = endpoint.decode(Long.toString(id), count, divisor);
    assertThat(response.getStatus()).isEqualTo(200);
    return (GeneIdEndpoint.DecodedId) response.getBody();
  }

  /** Actuator writes the body of a WebEndpointResponse as it is: the reason reaches the client in the 400's body. */
  @Test
  void badInputIsA400WhoseBodyNamesTheValue() throws Exception {
    GeneIdEndpoint endpoint = new GeneIdEndpoint(GeneIdLayout.defaults(), null);
    assertThat(badRequest(endpoint, "12ab", null, null))
        .isEqualTo("id must be a whole number in [0, 9223372036854775807] but was '12ab'");
    assertThat(badRequest(endpoint, "9223372036854775808", null, null))
        .isEqualTo("id must be a whole number in [0, 9223372036854775807] but was '9223372036854775808'");
    assertThat(badRequest(endpoint, "-5", null, null)).isEqualTo("id must be in [0, 9223372036854775807] but was -5");
    assertThat(badRequest(endpoint, "5", 65, null))
        .isEqualTo("shardingCount must be in [1, 64] but was 65: with gene-bits 6 ids carry 64 genes");
    assertThat(badRequest(endpoint, "5", 0, null))
        .isEqualTo("shardingCount must be in [1, 64] but was 0: with gene-bits 6 ids carry 64 genes");
    assertThat(badRequest(endpoint, "5", 8, 16)).isEqualTo("shardingCount * geneDivisor must be at most"
        + " 2^gene-bits = 64 but was 8 * 16 = 128: indexes above 3 would never be used");
    assertThat(endpoint.decode("5", null, null).getBody()).isInstanceOfSatisfying(GeneIdEndpoint.DecodedId.class,
        d -> assertThat(d.shard()).isNull());
    runner.withPropertyValues(worker(), EXPOSE, "management.endpoint.geneid.sharding-count=65")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessage("management.endpoint.geneid.sharding-count must be in [1, 64] but was 65: with gene-bits 6 "
                + "ids carry 64 genes"));
  }

  private static String badRequest(GeneIdEndpoint endpoint, String id, @Nullable Integer count,
      @Nullable Integer divisor) throws Exception {
    WebEndpointResponse<Object> response = endpoint.decode(id, count, divisor);
    assertThat(response.getStatus()).isEqualTo(400);
    String json = new ObjectMapper().writeValueAsString(response.getBody());
    assertThat(json).startsWith("{\"status\":400,\"error\":\"Bad Request\",\"message\":");
    return ((GeneIdEndpoint.Error) response.getBody()).message();
  }

  /** The JSON the endpoint answers with (Actuator writes the returned record with Jackson). */
  @Test
  void theDecodedIdReadsAsJson() throws Exception {
    GeneIdLayout layout = GeneIdLayout.defaults();
    long id = layout.encode(new io.geneid.core.GeneIdParts(Instant.parse("2026-03-14T09:26:53.589Z"), 3, 2, 45));
    GeneIdEndpoint endpoint = new GeneIdEndpoint(layout, 4);
    String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(endpoint.decode(
        Long.toString(id), null, null).getBody());
    System.out.println("GET /actuator/geneid/" + id + "\n" + json);
    assertThat(json).isEqualToIgnoringWhitespace("{\"id\":\"" + id + "\",\"timestamp\":\"2026-03-14T09:26:53.589Z\","
        + "\"worker\":3,\"sequence\":2,\"gene\":45,\"layout\":\"T41-W8-S8-G6 from 2025-01-01T00:00:00Z\","
        + "\"shardingCount\":4,\"geneDivisor\":1,\"shard\":1}");
  }

  // ---------------------------------------------------------------- health

  @Test
  void aStaticGeneratorIsUpWithDetails() {
    String worker = worker();
    runner.withPropertyValues(worker).run(context -> {
      GeneSnowflakeGenerator generator = context.getBean(GeneSnowflakeGenerator.class);
      generator.nextId();
      Health health = context.getBean(GeneIdHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      @SuppressWarnings("unchecked")
      Map<String, Object> d = (Map<String, Object>) health.getDetails().get("geneSnowflakeGenerator");
      assertThat(d).containsEntry("kind", "static").containsEntry("workerId", generator.workerId())
          .containsEntry("status", "UP").containsEntry("layout", "T41-W8-S8-G6 from 2025-01-01T00:00:00Z")
          .containsEntry("idsIssued", 1L);
      System.out.println("GET /actuator/health/geneid, static worker id:\n"
          + new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(health));
      assertThat(context).getBeanNames(GeneIdHealthIndicator.class).containsExactly("geneidHealthIndicator");
    });
    runner.withPropertyValues(worker(), "management.health.geneid.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(GeneIdHealthIndicator.class));
  }

  /**
   * The TTL of {@link StaticLease}: 600 ms at the tests' time scale. Its lease runs on the system clock, renewed every
   * third of it, and must stay UP on a busy machine; the thresholds below are measured against it.
   */
  static final Duration LEASE_TTL = TestTime.ofMillis(600);

  /** A leased generator bean from a static assigner with its mark file in a temp directory. */
  @Configuration(proxyBeanMethods = false)
  static class StaticLease {
    @Bean(destroyMethod = "close")
    LeasedGeneGenerator leasedGenerator(org.springframework.core.env.Environment env) {
      return LeasedGeneGenerator.builder().assigner(StaticWorkerIdAssigner.builder().space("orders")
          .workerId(Long.parseLong(env.getRequiredProperty("test.worker")))
          .markFile(Path.of(env.getRequiredProperty("test.mark"))).ttl(LEASE_TTL).build()).build();
    }
  }

  @Test
  void aLeaseWithLessTimeLeftThanTheThresholdIsDown() {
    ApplicationContextRunner leased = runner.withUserConfiguration(StaticLease.class)
        .withPropertyValues("test.worker=" + TestWorkerIds.next(), "test.mark=" + dir.resolve("w.mark"));
    leased.run(context -> {
      assertThat(context).doesNotHaveBean(GeneSnowflakeGenerator.class);
      Health health = context.getBean(GeneIdHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(details(health, "leasedGenerator")).containsEntry("kind", "leased").containsEntry("space", "orders")
          .containsEntry("issuing", true).containsEntry("leaseTtl", LEASE_TTL.toMillis() + " ms")
          .containsKey("leaseRemaining")
          .doesNotContainKey("lastRenewalError");
    });
    // renewals every third of the TTL keep 95 % to 62 % of it left (570..370 ms of 600): a threshold 10 ms below the
    // TTL sees the lease about to lapse all the time
    long threshold = LEASE_TTL.toMillis() - 10;
    leased.withPropertyValues("management.health.geneid.lease-remaining-threshold=" + threshold + "ms").run(context -> {
      Health health = context.getBean(GeneIdHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat((String) details(health, "leasedGenerator").get("reason"))
          .startsWith("the worker-id lease lapses in ").endsWith(" ms (below " + threshold + " ms) unless a renewal"
              + " succeeds");
    });
    leased.withPropertyValues("management.health.geneid.lease-remaining-threshold=" + LEASE_TTL.toMillis() + "ms")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessage("management.health.geneid.lease-remaining-threshold must be below the lease TTL (" + LEASE_TTL
                + ") of generator 'leasedGenerator' but was " + LEASE_TTL + ": health would always be DOWN"));
  }

  // ---------------------------------------------------------------- metrics

  /** #12 item 12: a generator that is a bean and in the registry was bound twice (Micrometer warned each start). */
  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void generatorBeansAreMeteredOnceWhenThereIsAMeterRegistry(CapturedOutput output) {
    String worker = worker();
    runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
        .withPropertyValues(worker).run(context -> {
          GeneSnowflakeGenerator generator = context.getBean(GeneSnowflakeGenerator.class);
          generator.nextId();
          generator.nextId();
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.get(GeneIdMetrics.IDS_ISSUED).tag("worker.id", Long.toString(generator.workerId()))
              .functionCounter().count()).isEqualTo(2);
        });
    assertThat(output).doesNotContain("has been already registered");
    runner.withPropertyValues(worker()).run(context -> assertThat(context).doesNotHaveBean(MeterBinder.class));
  }

  @Test
  void aLeasedGeneratorBeanGetsLeaseMeters() {
    runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
        .withUserConfiguration(StaticLease.class)
        .withPropertyValues("test.worker=" + TestWorkerIds.next(), "test.mark=" + dir.resolve("m.mark"))
        .run(context -> {
          LeasedGeneGenerator generator = context.getBean(LeasedGeneGenerator.class);
          generator.nextId();
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.get(GeneIdMetrics.WORKER_ID).tag("space", "orders").gauge().value())
              .isEqualTo(generator.workerId());
          assertThat(registry.get(GeneIdMetrics.IDS_ISSUED).tag("space", "orders").functionCounter().count())
              .isEqualTo(1);
          assertThat(registry.get(GeneIdMetrics.LEASE_REMAINING).tag("space", "orders").timeGauge()
              .value(java.util.concurrent.TimeUnit.MILLISECONDS)).isPositive();
        });
  }

  // ---------------------------------------------------------------- helpers

  @SuppressWarnings("unchecked")
  private static Map<String, Object> details(Health health, String bean) {
    return (Map<String, Object>) health.getDetails().get(bean);
  }
}
