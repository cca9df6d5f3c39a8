package io.geneid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * #30 item 2, over the application's own DataSource (H2, no {@code gene-id.jdbc.url}): the report of a missing lease
 * table names {@code spring.datasource.url}, where the table was looked for, and the fix.
 */
class ApplicationDataSourceStoreReportTest {

  @Test
  void aLeaseTableMissingFromTheApplicationsDatabase() {
    String db = "gid_report_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BootLine.dataSourceAutoConfiguration(), GeneIdAutoConfiguration.class))
        .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1",
            "gene-id.worker-assigner=jdbc", "gene-id.lease.ttl=1s", "gene-id.lease.acquire-timeout=0s")
        .run(context -> {
          assertThat(context).hasFailed();
          FailureAnalysis report = new GeneIdStoreFailureAnalyzer().analyze(context.getStartupFailure());
          assertThat(report).as("a report for %s", context.getStartupFailure()).isNotNull();
          assertThat(report.getDescription()).startsWith("The worker-id lease store has no table"
              + " gene_id_worker_lease (gene-id.jdbc.lease-table) in the application's DataSource,"
              + " spring.datasource.url, as gene-id.jdbc.url is not set:\n  the worker-id lease store, database h2:mem:"
              + db + " (table gene_id_worker_lease), failed on acquire for space 'default': Table \"GENE_ID_WORKER_LEASE\""
              + " not found");
          assertThat(report.getAction()).isEqualTo("Set gene-id.jdbc.create-tables: true to have gene-id create it"
              + " at start-up, or create it once with the DDL in docs/leases.md (or JdbcWorkerIdAssigner.ddl(table))."
              + " If it exists under another name or schema, set gene-id.jdbc.lease-table.");
        });
  }
}
