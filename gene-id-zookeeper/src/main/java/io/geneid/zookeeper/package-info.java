/** Worker-id leases in ZooKeeper through Apache Curator: {@link io.geneid.zookeeper.ZookeeperWorkerIdAssigner}. */
@NullMarked
package io.geneid.zookeeper;

import org.jspecify.annotations.NullMarked;
