package io.geneid.spring.boot;

import io.geneid.core.snowflake.ClockBackwardsPolicy;
import io.geneid.core.lease.LeasedGeneGenerator;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.jdbc.JdbcSegmentStore;
import io.geneid.jdbc.JdbcWorkerIdAssigner;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/** Everything that touches gene-id-jdbc classes; loaded only when gene-id-jdbc is on the class path. */
final class JdbcSupport {

  private JdbcSupport() {}

  /** A leased generator over the application's DataSource (the settings of {@code gene-id.lease/jdbc}). */
  static LeasedGeneGenerator leasedGenerator(GeneIdProperties properties, DataSource dataSource) {
    Map<String, String> props = properties.leaseProperties(false);
    WorkerIdAssigners.LeaseSettings s = WorkerIdAssigners.leaseSettings(props);
    JdbcWorkerIdAssigner assigner = JdbcWorkerIdAssigner.builder()
        .dataSource(dataSource)
        .table(WorkerIdAssigners.string(props, "jdbc-table", JdbcWorkerIdAssigner.DEFAULT_TABLE))
        .createTable(properties.getJdbc().isCreateTables())
        .space(s.space())
        .workerIds(s.minWorkerId(), s.maxWorkerId())
        .ttl(s.ttl())
        .acquireTimeout(s.acquireTimeout())
        .owner(s.owner())
        .build();
    LeasedGeneGenerator.Builder b = LeasedGeneGenerator.builder()
        .assigner(assigner)
        .layout(properties.layout())
        .maxBorrowMillis(properties.getMaxBorrowMillis())
        .clockBackwardsPolicy(ClockBackwardsPolicy.waitUpTo(properties.getClockBackwardsMaxWait()));
    if (props.containsKey(WorkerIdAssigners.LEASE_RENEW_INTERVAL)) {
      b.renewInterval(WorkerIdAssigners.duration(props, WorkerIdAssigners.LEASE_RENEW_INTERVAL, Duration.ZERO));
    }
    return b.build();
  }

  /** The segment store over {@code dataSource}, its table created first if asked to. */
  static SegmentStore segmentStore(GeneIdProperties.Jdbc jdbc, DataSource dataSource) {
    JdbcSegmentStore store = JdbcSegmentStore.builder(dataSource).table(jdbc.getSegmentTable()).build();
    if (jdbc.isCreateTables()) {
      store.createTable();
    }
    return store;
  }
}
