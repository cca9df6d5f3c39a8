package io.geneid.spring.boot.actuate;

import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.micrometer.GeneIdMetrics;
import io.geneid.spring.boot.GeneIdAutoConfiguration;
import io.geneid.spring.boot.GeneIdProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.LinkedHashSet;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Operations support, each part on only when the application has what it needs:
 *
 * <ul>
 *   <li><b>Metrics</b> (Micrometer on the class path and a {@link MeterRegistry} bean): a {@link MeterBinder} that
 *       binds {@link GeneIdMetrics} for every {@link GeneIdGenerator} bean and every generator in
 *       {@link io.geneid.core.snowflake.GeneIdRegistry} (those ShardingSphere made from its YAML);
 *   <li><b>the {@code geneid} endpoint</b> (Spring Boot Actuator, endpoint exposed): {@link GeneIdEndpoint};
 * </ul>
 *
 * <p>The health indicator has an auto-configuration of its own in each starter ({@code GeneIdHealthAutoConfiguration}):
 * Spring Boot 4 moved the health API, and this class (in gene-id-spring-boot-autoconfigure) is shared by the Boot 3
 * and Boot 4 starters.
 */
@AutoConfiguration(after = GeneIdAutoConfiguration.class, afterName = {
    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
public class GeneIdActuatorAutoConfiguration {

  /** Micrometer meters for the generators. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
  static class MetricsConfiguration {

    /** Binds every generator bean, and every generator of the JVM registry, when a registry is set up. */
    @Bean
    @ConditionalOnMissingBean(name = "geneIdMeterBinder")
    MeterBinder geneIdMeterBinder(ObjectProvider<GeneIdGenerator> generators) {
      return registry -> {
        // a generator bean that is also in the registry is bound once
        GeneIdMetrics.ofGenerators(generators.orderedStream().toList()).and(GeneIdMetrics.registered())
            .bindTo(registry);
      };
    }
  }

  /** The {@code geneid} endpoint. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Endpoint.class)
  @EnableConfigurationProperties(GeneIdEndpointProperties.class)
  static class EndpointConfiguration {

    /**
     * Decodes with the layout of the generator beans (when they share one), else that of {@code gene-id.*}.
     *
     * @throws IllegalArgumentException for a {@code management.endpoint.geneid.sharding-count} out of range
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    GeneIdEndpoint geneIdEndpoint(ObjectProvider<GeneIdGenerator> generators,
        ObjectProvider<GeneIdProperties> properties, GeneIdEndpointProperties endpoint) {
      Set<GeneIdLayout> layouts = new LinkedHashSet<>();
      generators.orderedStream().forEach(g -> {
        if (g instanceof GeneSnowflakeGenerator s) {
          layouts.add(s.layout());
        } else if (g instanceof LeasedGeneGenerator l) {
          layouts.add(l.layout());
        }
      });
      GeneIdProperties configured = properties.getIfAvailable();
      GeneIdLayout layout;
      if (layouts.size() == 1) {
        layout = layouts.iterator().next();
      } else if (configured != null) {
        layout = configured.layout();
      } else {
        layout = GeneIdLayout.defaults();
      }
      return new GeneIdEndpoint(layout, endpoint.shardingCount(), endpoint.geneDivisor());
    }
  }
}
