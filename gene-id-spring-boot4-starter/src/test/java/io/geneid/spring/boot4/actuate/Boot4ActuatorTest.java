package io.geneid.spring.boot4.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.spring.boot.GeneIdAutoConfiguration;
import io.geneid.spring.boot.actuate.GeneIdActuatorAutoConfiguration;
import io.geneid.spring.boot.actuate.GeneIdEndpoint;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The parts Spring Boot 4 moved: the {@code geneid} health indicator on Boot 4's health API, beside the endpoint and
 * the auto-configuration list the shared tests of gene-id-spring-boot-autoconfigure (which run here too) do not reach.
 */
class Boot4ActuatorTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class, GeneIdActuatorAutoConfiguration.class,
          GeneIdHealthAutoConfiguration.class, EndpointAutoConfiguration.class,
          HealthContributorAutoConfiguration.class))
      .withPropertyValues("gene-id.worker-id=" + (100 + ThreadLocalRandom.current().nextInt(150)),
          "management.endpoints.web.exposure.include=health,geneid");

  @Test
  @SuppressWarnings("unchecked")
  void healthIsReportedThroughBoot4sHealthApi() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(GeneIdHealthIndicator.class).hasSingleBean(GeneIdEndpoint.class);
      Health health = context.getBean(GeneIdHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      Map<String, Object> d = (Map<String, Object>) health.getDetails().get("geneSnowflakeGenerator");
      assertThat(d).containsEntry("kind", "static").containsEntry("status", "UP");
    });
  }

  @Test
  void healthCanBeSwitchedOff() {
    runner.withPropertyValues("management.health.geneid.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(GeneIdHealthIndicator.class));
  }

  @Test
  void aThresholdAtTheTtlIsRefusedNamingTheProperty() {
    runner.withPropertyValues("management.health.geneid.lease-remaining-threshold=0s")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("management.health.geneid.lease-remaining-threshold must be positive"));
  }

  @Test
  void theAutoConfigurationListsNameBoot4sHealthConfiguration() throws Exception {
    // this starter's list and the shared one of gene-id-spring-boot-autoconfigure, as Spring Boot reads them
    StringBuilder lists = new StringBuilder();
    for (var url : java.util.Collections.list(getClass().getClassLoader().getResources(
        "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports"))) {
      try (var in = url.openStream()) {
        lists.append(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).append('\n');
      }
    }
    assertThat(lists.toString()).contains(GeneIdHealthAutoConfiguration.class.getName(),
            io.geneid.spring.boot4.json.GeneIdJacksonAutoConfiguration.class.getName(),
            GeneIdAutoConfiguration.class.getName(), GeneIdActuatorAutoConfiguration.class.getName())
        .doesNotContain("io.geneid.spring.boot3.actuate.GeneIdHealthAutoConfiguration",
            "io.geneid.spring.boot3.json.GeneIdJacksonAutoConfiguration");
  }
}
