package io.geneid.spring.boot;

import io.geneid.core.GeneIdGenerator;
import io.geneid.shardingsphere.GeneShardingCheck;
import io.geneid.shardingsphere.GeneShardingCheck.GeneAlgorithm;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Runs {@link GeneShardingCheck} on every ShardingSphere-JDBC {@link DataSource} bean once the context is built, so
 * a gene sharding mistake ShardingSphere's own start-up lets through stops the application before the first row is
 * written: {@code gene-bits} that differ between the key generator and {@code GENE_MOD}, a {@code sharding-count}
 * that leaves configured nodes unreachable (the "diagonal"), target names without an {@code _<index>} suffix. It
 * also compares the gene bits of this context's own ids (the generators built from {@code gene-id.*}, which
 * MyBatis-Plus uses, and any {@code GeneIdGenerator} bean of the application's) with every {@code GENE_MOD},
 * {@code GENE_MOD_AUTO} and {@code GENE_BUCKET} algorithm: no key generator of the rule describes those ids. A
 * passing check is logged once per data source at INFO. On when gene-id-shardingsphere is on the class path;
 * {@code gene-id.sharding-check=false} turns it off.
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
  private static final String GENE_BITS = GeneIdProperties.PREFIX + ".gene-bits";
  /** The generator beans the starter builds from {@code gene-id.*}; any other generator bean is the application's. */
  private static final List<String> STARTER_BEANS =
      List.of("geneSnowflakeGenerator", "leasedGeneGenerator", "geneSegmentGenerators");

  /** Checks the ShardingSphere data sources after every singleton is created. */
  @Bean
  static SmartInitializingSingleton geneIdShardingCheck(ListableBeanFactory beans, Environment environment) {
    return () -> {
      List<IdSource> ids = idSources(beans, environment);
      for (Map.Entry<String, DataSource> e : beans.getBeansOfType(DataSource.class).entrySet()) {
        if (isShardingSphere(e.getValue())) {
          List<String> problems = GeneShardingCheck.problems(e.getValue());
          if (!problems.isEmpty()) {
            throw new InvalidGeneIdPropertyException("the ShardingSphere data source '" + e.getKey()
                + "' has gene sharding mistakes (set gene-id.sharding-check=false to start anyway):\n  - "
                + String.join("\n  - ", problems));
          }
          List<GeneAlgorithm> algorithms = GeneShardingCheck.geneAlgorithms(e.getValue());
          String dataSource = describe(e.getKey(), e.getValue());
          checkGeneBits(dataSource, ids, algorithms);
          LOG.info("gene-id: gene sharding of {} checked: every gene reaches a node, every node is reached{}",
              dataSource, ids.isEmpty() || algorithms.isEmpty() ? ""
                  : ", and its gene algorithms " + algorithms.stream().map(GeneAlgorithm::name).toList()
                      + " read the gene-bits=" + ids.get(0).geneBits() + " of " + ids.stream()
                          .map(IdSource::what).collect(Collectors.joining(" and ")));
        }
      }
    };
  }

  /**
   * Where the ids of this context come from and the gene bits they carry: the generators the starter built from
   * {@code gene-id.*} (one source: {@code gene-id.gene-bits}), and each {@code GeneIdGenerator} bean of the
   * application's own.
   */
  record IdSource(int geneBits, String what, @Nullable String bean) {}

  private static List<IdSource> idSources(ListableBeanFactory beans, Environment environment) {
    List<IdSource> sources = new ArrayList<>();
    List<String> starterBeans = new ArrayList<>();
    for (Map.Entry<String, GeneIdGenerator> e : beans.getBeansOfType(GeneIdGenerator.class).entrySet()) {
      if (STARTER_BEANS.contains(e.getKey())) {
        starterBeans.add(e.getKey());
      } else {
        sources.add(new IdSource(e.getValue().geneBits(), "bean '" + e.getKey() + "' (the application's own "
            + e.getValue().getClass().getSimpleName() + ")", e.getKey()));
      }
    }
    starterBeans.addAll(List.of(beans.getBeanNamesForType(GeneSegmentGenerators.class)));
    GeneIdProperties properties = beans.getBeanProvider(GeneIdProperties.class).getIfAvailable();
    if (!starterBeans.isEmpty() && properties != null) {
      sources.add(0, new IdSource(properties.geneBits(), GENE_BITS + " (" + origin(environment, GENE_BITS)
          + "; the ids of bean" + (starterBeans.size() == 1 ? " '" : "s '") + String.join("', '", starterBeans)
          + "')", null));
    }
    return sources;
  }

  /**
   * Stops the start-up when the ids of this context carry other gene bits than a gene algorithm of the data source
   * reads: the algorithm would take the wrong bits for the gene, and a child would not follow its parent.
   *
   * @throws InvalidGeneIdPropertyException naming both values, where each is set, and what to change
   */
  static void checkGeneBits(String dataSource, List<IdSource> ids, List<GeneAlgorithm> algorithms) {
    List<IdSource> wrongIds = new ArrayList<>();
    List<GeneAlgorithm> wrongAlgorithms = new ArrayList<>();
    for (IdSource id : ids) {
      for (GeneAlgorithm algorithm : algorithms) {
        if (algorithm.geneBits() != id.geneBits()) {
          addOnce(wrongIds, id);
          addOnce(wrongAlgorithms, algorithm);
        }
      }
    }
    if (wrongIds.isEmpty()) {
      return;
    }
    StringBuilder message = new StringBuilder("gene-id issues ids with ").append(bits(wrongIds, IdSource::geneBits))
        .append(" but ").append(dataSource).append(" routes them with ")
        .append(bits(wrongAlgorithms, GeneAlgorithm::geneBits))
        .append(", so a row would not land where the gene of its id leads:");
    wrongIds.forEach(id -> message.append("\n  - gene-bits=").append(id.geneBits()).append(": ").append(id.what()));
    wrongAlgorithms.forEach(a -> message.append("\n  - gene-bits=").append(a.geneBits()).append(": algorithm '")
        .append(a.name()).append("' ").append(a.algorithm()).append(" of tables ").append(a.tables())
        .append(a.geneBitsSet() ? ", set by its property gene-bits" : ", its default (its props set no gene-bits)"));
    int routed = wrongAlgorithms.get(0).geneBits();
    int issued = wrongIds.get(0).geneBits();
    String names = wrongAlgorithms.stream().map(a -> "'" + a.name() + "'").collect(Collectors.joining(", "));
    StringBuilder action = new StringBuilder("Make the two agree before any id is written (ids keep the gene bits they"
        + " were made with): ");
    if (wrongIds.stream().anyMatch(id -> id.bean() == null)) {
      action.append("set ").append(GENE_BITS).append(": ").append(routed).append(" (and ")
          .append(GeneIdProperties.PREFIX).append(".timestamp-bits, worker-bits, sequence-bits so that the four add"
              + " up to 63)");
    } else {
      action.append("build ").append(wrongIds.stream().map(id -> "bean '" + id.bean() + "'")
          .collect(Collectors.joining(", "))).append(" with gene bits ").append(routed);
    }
    action.append(", or set gene-bits: ").append(issued).append(" in the props of algorithm")
        .append(wrongAlgorithms.size() == 1 ? " " : "s ").append(names).append(" of ").append(dataSource)
        .append(". ").append(GeneIdProperties.PREFIX).append(".sharding-check=false starts anyway.");
    throw new InvalidGeneIdPropertyException(message.toString(), action.toString());
  }

  private static <T> void addOnce(List<T> list, T item) {
    if (!list.contains(item)) {
      list.add(item);
    }
  }

  private static <T> String bits(List<T> items, ToIntFunction<T> geneBits) {
    return "gene-bits=" + items.stream().map(i -> String.valueOf(geneBits.applyAsInt(i))).distinct()
        .collect(Collectors.joining(" and "));
  }

  /** Where a property's value comes from (a file, line and column when Spring knows them), or that it is the default. */
  static String origin(Environment environment, String property) {
    ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      ConfigurationProperty found = source.getConfigurationProperty(name);
      if (found != null) {
        Origin origin = found.getOrigin();
        return "from " + (origin != null ? origin : source.getUnderlyingSource());
      }
    }
    return "its default";
  }

  /** The data source bean's name and, when it has one, its JDBC URL (which names ShardingSphere's YAML file). */
  private static String describe(String bean, DataSource dataSource) {
    String url = jdbcUrl(dataSource);
    return "the ShardingSphere data source '" + bean + "'" + (url == null ? "" : " (" + url + ")");
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
