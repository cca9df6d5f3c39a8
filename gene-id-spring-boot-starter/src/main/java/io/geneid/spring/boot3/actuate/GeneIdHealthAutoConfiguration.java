package io.geneid.spring.boot3.actuate;

import io.geneid.core.GeneIdGenerator;
import io.geneid.spring.boot.GeneIdAutoConfiguration;
import io.geneid.spring.boot.actuate.GeneIdHealthProperties;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code geneid} health indicator (Spring Boot 3's Actuator, a generator bean,
 * {@code management.health.geneid.enabled} not false): {@link GeneIdHealthIndicator} over every generator bean.
 */
@AutoConfiguration(after = GeneIdAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("geneid")
@ConditionalOnBean(GeneIdGenerator.class)
@EnableConfigurationProperties(GeneIdHealthProperties.class)
public class GeneIdHealthAutoConfiguration {

  /**
   * Over every generator bean, by bean name.
   *
   * @throws IllegalArgumentException for a {@code management.health.geneid.lease-remaining-threshold} that is not
   *     positive or not below a lease TTL
   */
  @Bean
  @ConditionalOnMissingBean(name = "geneidHealthIndicator")
  GeneIdHealthIndicator geneidHealthIndicator(ListableBeanFactory beans, GeneIdHealthProperties health) {
    Map<String, GeneIdGenerator> generators = beans.getBeansOfType(GeneIdGenerator.class);
    return new GeneIdHealthIndicator(generators, health.leaseRemainingThreshold());
  }
}
