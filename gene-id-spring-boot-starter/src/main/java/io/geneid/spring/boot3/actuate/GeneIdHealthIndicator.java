package io.geneid.spring.boot3.actuate;

import io.geneid.core.GeneIdGenerator;
import io.geneid.spring.boot.actuate.GeneIdHealth;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/** The {@code geneid} health indicator of Spring Boot 3: reports {@link GeneIdHealth}. */
public class GeneIdHealthIndicator implements HealthIndicator {

  private final GeneIdHealth health;

  /**
   * A health indicator over these generators.
   *
   * @param generators by bean name
   * @param leaseRemainingThreshold DOWN below this much lease time left; {@code null} for a third of each TTL
   * @throws IllegalArgumentException if the threshold is not positive or not below the TTL of a leased generator
   */
  public GeneIdHealthIndicator(Map<String, ? extends GeneIdGenerator> generators,
      @Nullable Duration leaseRemainingThreshold) {
    this.health = new GeneIdHealth(generators, leaseRemainingThreshold);
  }

  @Override
  public Health health() {
    GeneIdHealth.Report report = health.check();
    return Health.status(report.up() ? Status.UP : Status.DOWN).withDetails(report.details()).build();
  }
}
