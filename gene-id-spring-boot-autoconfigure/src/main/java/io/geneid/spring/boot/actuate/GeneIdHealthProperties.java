package io.geneid.spring.boot.actuate;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code geneid} health indicator ({@code management.health.geneid.*}).
 *
 * @param leaseRemainingThreshold Health is DOWN when a leased generator has less time than this left before it
 *     fences itself (renewals are failing). Positive and below the lease TTL. Unset: a third of each generator's
 *     lease TTL.
 */
@ConfigurationProperties(prefix = GeneIdHealthProperties.PREFIX)
public record GeneIdHealthProperties(@Nullable Duration leaseRemainingThreshold) {

  /** The prefix of these properties. */
  public static final String PREFIX = "management.health.geneid";
}
