/**
 * Worker ids leased from a store, so processes that come and go never share one: the store SPI
 * ({@link io.geneid.core.lease.WorkerIdAssigner}, {@link io.geneid.core.lease.WorkerLease},
 * {@link io.geneid.core.lease.WorkerIdAssignerProvider}), the generator that holds a lease and fences itself when it
 * may have lost it ({@link io.geneid.core.snowflake.LeasedGeneGenerator}), the static assigner for fixed ids and
 * StatefulSet ordinals ({@link io.geneid.core.lease.StaticWorkerIdAssigner}), and the factory from properties
 * ({@link io.geneid.core.lease.WorkerIdAssigners}). The Redis and JDBC stores live in {@code gene-id-redis} and
 * {@code gene-id-jdbc}. The lease protocol the stores share: {@link io.geneid.core.lease.LeaseLoop} (the acquire
 * loop), {@link io.geneid.core.lease.LeasePlanner} (its decisions, pure) and {@link io.geneid.core.lease.KeyValueLeases}
 * over a {@link io.geneid.core.lease.LeaseKeyValueStore} (ZooKeeper, etcd).
 *
 * <p>Every type here is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package io.geneid.core.lease;

import org.jspecify.annotations.NullMarked;
