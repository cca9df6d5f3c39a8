package io.geneid.spring.boot.sharding;

import io.geneid.spring.boot.TestWorkerIds;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.spring.boot.BootLine;
import io.geneid.spring.boot.GeneIdAutoConfiguration;
import io.geneid.spring.boot.GeneIdShardingCheckAutoConfiguration;
import io.geneid.spring.boot.InvalidGeneIdPropertyException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter checks ShardingSphere data sources at start-up: no call from the application is needed. */
class GeneIdShardingCheckTest {


  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BootLine.dataSourceAutoConfiguration(), GeneIdAutoConfiguration.class,
          GeneIdShardingCheckAutoConfiguration.class))
      .withPropertyValues("spring.datasource.driver-class-name=org.apache.shardingsphere.driver.ShardingSphereDriver");

  @Test
  void aDiagonalConfigurationStopsTheStartUp() {
    runner.withPropertyValues("gene-id.worker-id=" + TestWorkerIds.next(),
        "spring.datasource.url=jdbc:shardingsphere:classpath:gene-id-sharding-diagonal.yaml").run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).isInstanceOf(InvalidGeneIdPropertyException.class)
              .hasMessageStartingWith("the ShardingSphere data source 'dataSource' has gene sharding mistakes (set"
                  + " gene-id.sharding-check=false to start anyway):\n  - t_order: no gene ever routes to"
                  + " [ds_0.t_order_1, ds_1.t_order_0]");
        });
  }

  /** The data source refuses a key generator whose gene bits its algorithm does not read; the starter says the same. */
  @Test
  void aKeyGeneratorWithOtherGeneBitsStopsTheStartUpWithTheDataSourcesOwnLines() {
    runner.withPropertyValues("gene-id.worker-id=" + TestWorkerIds.next(),
        "spring.datasource.url=jdbc:shardingsphere:classpath:gene-id-sharding-gene-bits.yaml").run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).isInstanceOf(InvalidGeneIdPropertyException.class)
              .hasMessage("the ShardingSphere data source 'dataSource' has gene sharding mistakes (set"
                  + " gene-id.sharding-check=false to start anyway):\n  - t_order: key generator 'ids' issues ids"
                  + " with gene-bits=5 but GENE_MOD_AUTO[sharding-count=4, gene-bits=6] reads gene-bits=6; set the"
                  + " same gene-bits on both");
        });
  }

  @Test
  void theCheckCanBeTurnedOffAndASoundConfigurationPasses() {
    runner.withPropertyValues("gene-id.worker-id=" + TestWorkerIds.next(), "gene-id.sharding-check=false",
        "spring.datasource.url=jdbc:shardingsphere:classpath:gene-id-sharding-diagonal.yaml")
        .run(context -> assertThat(context).hasNotFailed());
    runner.withPropertyValues("gene-id.worker-id=" + TestWorkerIds.next(),
        "spring.datasource.url=jdbc:shardingsphere:classpath:gene-id-sharding.yaml")
        .run(context -> assertThat(context).hasNotFailed());
  }
}
