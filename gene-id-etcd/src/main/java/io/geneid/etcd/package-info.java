/** Worker-id leases in etcd through jetcd: {@link io.geneid.etcd.EtcdWorkerIdAssigner}. */
@NullMarked
package io.geneid.etcd;

import org.jspecify.annotations.NullMarked;
