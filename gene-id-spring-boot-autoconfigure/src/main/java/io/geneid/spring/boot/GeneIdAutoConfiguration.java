package io.geneid.spring.boot;

import io.geneid.core.GeneIdGenerator;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Creates the {@link GeneSnowflakeGenerator} of the {@code gene-id.*} properties (also the application's
 * {@link GeneIdGenerator}). It is the JVM-shared instance of {@link GeneSnowflakeGenerator.Builder#build()}, so
 * ShardingSphere's {@code GENE_SNOWFLAKE} key generator with the same layout and worker id uses the very same
 * generator.
 *
 * <p>With {@code gene-id.worker-assigner: redis} or {@code jdbc} the generator is a {@code LeasedGeneGenerator}
 * instead ({@link GeneIdLeaseConfiguration}); with {@code none} there is no generator. With
 * {@code gene-id.segment.store} set, a {@link GeneSegmentGenerators} bean holds one segment generator per tag
 * ({@link GeneIdSegmentConfiguration}). Each backs off when the application defines its own bean of that type.
 */
@AutoConfiguration(afterName = {"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"} /* Boot 4 */)
@EnableConfigurationProperties(GeneIdProperties.class)
@Import({GeneIdLeaseConfiguration.class, GeneIdSegmentConfiguration.class})
public class GeneIdAutoConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(GeneIdAutoConfiguration.class);

  /**
   * The JVM-shared generator for {@code gene-id.worker-id} and the configured layout.
   *
   * @throws InvalidGeneIdPropertyException naming a {@code gene-id.*} property that is missing or out of range
   */
  @Bean
  @ConditionalOnMissingBean(GeneIdGenerator.class)
  @ConditionalOnProperty(prefix = GeneIdProperties.PREFIX, name = "worker-assigner", havingValue = "static",
      matchIfMissing = true)
  public GeneSnowflakeGenerator geneSnowflakeGenerator(GeneIdProperties properties) {
    List<String> unused = properties.settingsUnusedWithoutLease();
    if (!unused.isEmpty()) {
      throw new InvalidGeneIdPropertyException(String.join(", ", unused) + (unused.size() == 1 ? " is" : " are")
          + " set but " + GeneIdProperties.PREFIX + ".worker-assigner=static does not read "
          + (unused.size() == 1 ? "it" : "them") + ": set " + GeneIdProperties.PREFIX
          + ".worker-assigner=redis or jdbc to lease the worker id, or remove "
          + (unused.size() == 1 ? "it" : "them"));
    }
    GeneSnowflakeGenerator generator = properties.sharedGenerator();
    LOG.info("gene-id: {}", generator);
    return generator;
  }
}
