package io.geneid.spring.boot.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the {@code geneid} actuator endpoint ({@code management.endpoint.geneid.*}).
 *
 * @param shardingCount The number of shards (databases or tables, as the GENE_MOD sharding-count) the endpoint names
 *     an id's target index among when a request gives no shardingCount; in [1, 2^gene-bits]. Unset: no shard unless
 *     asked.
 * @param geneDivisor What the gene is divided by before the modulo (the GENE_MOD gene-divisor of a second level), in
 *     [1, 2^gene-bits] with sharding-count * gene-divisor at most 2^gene-bits.
 */
@ConfigurationProperties(prefix = GeneIdEndpointProperties.PREFIX)
public record GeneIdEndpointProperties(@Nullable Integer shardingCount, @DefaultValue("1") int geneDivisor) {

  /** The prefix of these properties. */
  public static final String PREFIX = "management.endpoint.geneid";
}
