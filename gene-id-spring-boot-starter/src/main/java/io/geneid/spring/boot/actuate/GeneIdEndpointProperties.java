package io.geneid.spring.boot.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the {@code geneid} actuator endpoint ({@code management.endpoint.geneid.*}). */
@ConfigurationProperties(prefix = GeneIdEndpointProperties.PREFIX)
public class GeneIdEndpointProperties {

  /** The prefix of these properties. */
  public static final String PREFIX = "management.endpoint.geneid";

  /**
   * The number of shards (databases or tables, as the GENE_MOD sharding-count) the endpoint names an id's target
   * index among when a request gives no shardingCount; in [1, 2^gene-bits]. Unset: no shard unless asked.
   */
  private @Nullable Integer shardingCount;

  /**
   * What the gene is divided by before the modulo (the GENE_MOD gene-divisor of a second level), in [1, 2^gene-bits]
   * with sharding-count * gene-divisor at most 2^gene-bits.
   */
  private int geneDivisor = 1;

  public int getGeneDivisor() {
    return geneDivisor;
  }

  public void setGeneDivisor(int geneDivisor) {
    this.geneDivisor = geneDivisor;
  }

  public @Nullable Integer getShardingCount() {
    return shardingCount;
  }

  public void setShardingCount(@Nullable Integer shardingCount) {
    this.shardingCount = shardingCount;
  }
}
