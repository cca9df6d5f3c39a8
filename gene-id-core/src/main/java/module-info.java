/**
 * gene-id-core: 64-bit ids whose low bits carry a gene, with no runtime dependency. Exports the API packages;
 * {@code io.geneid.core.internal} is exported only to gene-id's own modules.
 */
module io.geneid.core {
  requires static org.jspecify;
  requires java.management;

  exports io.geneid.core;
  exports io.geneid.core.bucket;
  exports io.geneid.core.lease;
  exports io.geneid.core.segment;
  exports io.geneid.core.settings;
  exports io.geneid.core.snowflake;
  exports io.geneid.core.internal to
      io.geneid.redis,
      io.geneid.jdbc,
      io.geneid.zookeeper,
      io.geneid.etcd,
      io.geneid.shardingsphere,
      io.geneid.spring.boot.starter,
      io.geneid.spring.boot.autoconfigure,
      io.geneid.cli,
      io.geneid.kotlin,
      io.geneid.context.propagation,
      io.geneid.benchmarks,
      io.geneid.server,
      io.geneid.client;

  uses io.geneid.core.lease.WorkerIdAssignerProvider;
  uses io.geneid.core.segment.SegmentStoreProvider;
  uses io.geneid.core.bucket.BucketMapStoreProvider;

  provides io.geneid.core.lease.WorkerIdAssignerProvider with io.geneid.core.lease.StaticWorkerIdAssignerProvider;
}
