package io.geneid.spring.boot;

import io.geneid.shardingsphere.GeneShardingCheck;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Runs {@link GeneShardingCheck} on every ShardingSphere-JDBC {@link DataSource} bean once the context is built, so
 * a gene sharding mistake ShardingSphere's own start-up lets through stops the application before the first row is
 * written: {@code gene-bits} that differ between the key generator and {@code GENE_MOD}, a {@code sharding-count}
 * that leaves configured nodes unreachable (the "diagonal"), target names without an {@code _<index>} suffix. On
 * when gene-id-shardingsphere is on the class path; {@code gene-id.sharding-check=false} turns it off.
 *
 * <p>A data source counts as ShardingSphere's when it is one ({@code ShardingSphereDataSource}) or when its JDBC URL
 * (a pool's {@code getJdbcUrl()} or {@code getUrl()}) starts with {@code jdbc:shardingsphere:}; other data sources
 * are not touched (no connection is opened to them).
 */
@AutoConfiguration(after = GeneIdAutoConfiguration.class,
    afterName = {"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"} /* Boot 4 */)
@ConditionalOnClass(name = {"io.geneid.shardingsphere.GeneShardingCheck",
    "org.apache.shardingsphere.driver.jdbc.core.datasource.ShardingSphereDataSource"})
@ConditionalOnProperty(prefix = GeneIdProperties.PREFIX, name = "sharding-check", havingValue = "true",
    matchIfMissing = true)
public class GeneIdShardingCheckAutoConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(GeneIdShardingCheckAutoConfiguration.class);

  /** Checks the ShardingSphere data sources after every singleton is created. */
  @Bean
  static SmartInitializingSingleton geneIdShardingCheck(ListableBeanFactory beans) {
    return () -> {
      for (Map.Entry<String, DataSource> e : beans.getBeansOfType(DataSource.class).entrySet()) {
        if (isShardingSphere(e.getValue())) {
          List<String> problems = GeneShardingCheck.problems(e.getValue());
          if (!problems.isEmpty()) {
            throw new InvalidGeneIdPropertyException("the ShardingSphere data source '" + e.getKey()
                + "' has gene sharding mistakes (set gene-id.sharding-check=false to start anyway):\n  - "
                + String.join("\n  - ", problems));
          }
          LOG.debug("gene sharding of data source '{}' checked: every gene reaches a node, every node is reached",
              e.getKey());
        }
      }
    };
  }

  static boolean isShardingSphere(DataSource dataSource) {
    if (dataSource.getClass().getName().startsWith("org.apache.shardingsphere.")) {
      return true;
    }
    String url = jdbcUrl(dataSource);
    return url != null && url.startsWith("jdbc:shardingsphere:");
  }

  private static @Nullable String jdbcUrl(DataSource dataSource) {
    for (String getter : new String[] {"getJdbcUrl", "getUrl"}) {
      try {
        Method m = dataSource.getClass().getMethod(getter);
        Object url = m.invoke(dataSource);
        if (url instanceof String) {
          return (String) url;
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // not this pool's getter
      }
    }
    return null;
  }
}
