package io.geneid.spring.boot;

import io.geneid.core.snowflake.LeasedGenerators;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.jdbc.JdbcSegmentStore;
import io.geneid.jdbc.JdbcWorkerIdAssigner;
import io.geneid.core.settings.StoreKeys;
import io.geneid.core.settings.SettingsReader;
import javax.sql.DataSource;

/**
 * Everything that touches gene-id-jdbc classes; loaded only when gene-id-jdbc is on the class path. These stores
 * take the application's {@link DataSource} bean, which no store provider can receive through properties.
 */
final class JdbcSupport {

  /** The lease table when {@code gene-id.jdbc.lease-table} is not set (a constant: reading it loads no class). */
  static final String DEFAULT_LEASE_TABLE = JdbcWorkerIdAssigner.DEFAULT_TABLE;

  private JdbcSupport() {}

  /** A leased generator over the application's DataSource (the settings of {@code gene-id.lease/jdbc}). */
  static LeasedGeneGenerator leasedGenerator(GeneIdProperties properties, DataSource dataSource) {
    SettingsReader props = properties.settings(false);
    JdbcWorkerIdAssigner assigner = JdbcWorkerIdAssigner.builder()
        .dataSource(dataSource)
        .table(props.string(StoreKeys.JDBC_TABLE, JdbcWorkerIdAssigner.DEFAULT_TABLE))
        .createTable(properties.jdbc().createTables())
        .leaseSettings(WorkerIdAssigners.leaseSettings(props))
        .build();
    return LeasedGenerators.generator(props, assigner);
  }

  /** The segment store over {@code dataSource}; its table created before the first claim if asked to. */
  static SegmentStore segmentStore(GeneIdProperties.Jdbc jdbc, DataSource dataSource) {
    return JdbcSegmentStore.builder().dataSource(dataSource).table(jdbc.segmentTable())
        .createTable(jdbc.createTables()).build();
  }
}
