package io.geneid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.geneid.mybatis.GeneIdentifierGenerator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * #30 item 1: the ids of quick start 1 come from {@code gene-id.*} through MyBatis-Plus, not from a ShardingSphere key
 * generator; their gene bits are compared with every gene algorithm of the ShardingSphere data source
 * (gene-id-sharding.yaml: {@code GENE_MOD_AUTO} with the default gene-bits 6).
 */
class GeneBitsAgainstShardingTest {


  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BootLine.dataSourceAutoConfiguration(), GeneIdAutoConfiguration.class,
          GeneIdMybatisPlusAutoConfiguration.class, GeneIdShardingCheckAutoConfiguration.class))
      .withPropertyValues("spring.datasource.driver-class-name=org.apache.shardingsphere.driver.ShardingSphereDriver",
          "spring.datasource.url=jdbc:shardingsphere:classpath:gene-id-sharding.yaml");

  @Test
  void myBatisPlusIdsWithOtherGeneBitsStopTheStartUpNamingBothValues() {
    runner.withPropertyValues("gene-id.worker-id=" + TestWorkerIds.next(), "gene-id.gene-bits=4",
        "gene-id.timestamp-bits=43").run(context -> {
          FailureAnalysis analysis = new InvalidGeneIdPropertyFailureAnalyzer()
              .analyze(StartupFailures.invalidProperty(context));
          assertThat(analysis.getDescription()).isEqualTo("Invalid gene-id configuration: gene-id issues ids with"
              + " gene-bits=4 but the ShardingSphere data source 'dataSource'"
              + " (jdbc:shardingsphere:classpath:gene-id-sharding.yaml) routes them with gene-bits=6, so a row would"
              + " not land where the gene of its id leads:\n"
              + "  - gene-bits=4: gene-id.gene-bits (from \"gene-id.gene-bits\" from property source \"test\"; the ids"
              + " of bean 'geneSnowflakeGenerator')\n"
              + "  - gene-bits=6: algorithm 'gene_auto' GENE_MOD_AUTO[sharding-count=4, gene-bits=6] of tables"
              + " [t_order, t_order_item], its default (its props set no gene-bits)");
          assertThat(analysis.getAction()).isEqualTo("Make the two agree before any id is written (ids keep the gene"
              + " bits they were made with): set gene-id.gene-bits: 6 (and gene-id.timestamp-bits, worker-bits,"
              + " sequence-bits so that the four add up to 63), or set gene-bits: 4 in the props of algorithm"
              + " 'gene_auto' of the ShardingSphere data source 'dataSource'"
              + " (jdbc:shardingsphere:classpath:gene-id-sharding.yaml). gene-id.sharding-check=false starts anyway.");
        });
  }

  @Test
  void matchingGeneBitsLogTheCheckOnceAtInfo() {
    Logger logger = (Logger) LoggerFactory.getLogger(GeneIdShardingCheckAutoConfiguration.class);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    logger.addAppender(events);
    try {
      runner.withPropertyValues("gene-id.worker-id=" + TestWorkerIds.next()).run(context -> {
        assertThat(context).hasNotFailed().hasSingleBean(GeneIdentifierGenerator.class);
        List<String> info = events.list.stream().filter(e -> e.getLevel() == Level.INFO)
            .map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(info).containsExactly("gene-id: gene sharding of the ShardingSphere data source 'dataSource'"
            + " (jdbc:shardingsphere:classpath:gene-id-sharding.yaml) checked: every gene reaches a node, every node"
            + " is reached, and its gene algorithms [gene_auto] read the gene-bits=6 of gene-id.gene-bits (its"
            + " default; the ids of bean 'geneSnowflakeGenerator')");
      });
    } finally {
      logger.detachAppender(events);
    }
  }
}
