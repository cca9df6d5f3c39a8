package io.geneid.redis;

import io.geneid.core.lease.AbstractWorkerIdAssignerContractTest;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.testing.TestTime;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import io.lettuce.core.ClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The worker-id lease contract on a Redis Cluster of the tests' own (six nodes, three masters; one per JVM,
 * {@link SharedCluster}). Each pool lives in the slot of its {@code {space}} hash tag, so {@link #storePort()} is the
 * master that owns the slot of the pool the test prepared last; the outage test cuts that master off behind a proxy
 * that the assigner's client reaches in its place (Lettuce's address mapping), as a cluster client would otherwise go
 * around a proxy to the node itself. The master itself stays up, so the shared cluster is as the next class expects.
 */
@ExtendWith(SharedCluster.class)
class RedisClusterWorkerIdAssignerContractTest extends AbstractWorkerIdAssignerContractTest {

  private static final String PREFIX = "gid_cluster_lease";
  private static PrivateCluster cluster;
  private String lastSpace = "";

  @BeforeAll
  static void sharedCluster(PrivateCluster shared) { // one cluster for every class of this JVM
    cluster = shared;
  }

  private static String meta(String space) {
    return TestRedis.leaseKey(PREFIX, space, "meta");
  }

  @Override
  protected WorkerIdAssigner assigner(String space, long min, long max, Duration ttl, Duration acquireTimeout,
      String owner, int port) {
    RedisWorkerIdAssigner.Builder b = RedisWorkerIdAssigner.builder().keyPrefix(PREFIX).space(space)
        .workerIds(min, max).ttl(ttl).acquireTimeout(acquireTimeout).owner(owner);
    if (cluster.ports().contains(port)) {
      return b.redisUri(cluster.uri()).build();
    }
    // through a proxy on 'port' in place of the master of the pool's slot
    int master = cluster.masterPortOf(meta(space));
    ClientResources resources = DefaultClientResources.builder()
        .reconnectDelay(RedisConnections.RECONNECT_DELAY)
        .socketAddressResolver(MappingSocketAddressResolver.create((HostAndPort hp) -> hp.getPort() == master
            ? HostAndPort.of("127.0.0.1", port) : hp))
        .build();
    List<RedisURI> seeds = new ArrayList<>();
    for (int p : cluster.ports()) {
      seeds.add(RedisURI.create("redis://127.0.0.1:" + p));
    }
    RedisClusterClient client = RedisClusterClient.create(resources, seeds);
    client.setOptions(ClusterClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enablePeriodicRefresh(Duration.ofSeconds(1))
            .enableAllAdaptiveRefreshTriggers().build())
        .build());
    StatefulRedisClusterConnection<String, String> connection = client.connect();
    track(() -> { // closed after the assigner the caller tracks next
      connection.close();
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      resources.shutdown();
    });
    return b.clusterConnection(connection).commandTimeout(TestTime.ofMillis(300)).build(); // at the contract's scale
  }

  @Override
  protected int storePort() {
    return cluster.masterPortOf(meta(lastSpace));
  }

  @Override
  protected void takeOver(String space, long workerId) {
    cluster.redis().hset(TestRedis.leaseKey(PREFIX, space, "w:" + workerId), "token", "999999999");
  }

  @Override
  protected void prepare(String space) {
    lastSpace = space;
    // as TestRedis.agePool, on the master of the pool's slot: its run_id, an hour-old generation
    String runId = cluster.processes().info(cluster.masterPortOf(meta(space)), "server", "run_id");
    cluster.redis().hset(meta(space), Map.of("born", Long.toString(System.currentTimeMillis() - 3_600_000), "gen",
        "aged" + ThreadLocalRandom.current().nextInt(1 << 30), "runid", String.valueOf(runId)));
  }

  @Override
  protected void cleanup(String space) {
    int master = cluster.masterPortOf(meta(space));
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(cluster.processes().redis(master),
        ScanArgs.Builder.matches(TestRedis.leaseKey(PREFIX, space, "*")).limit(500)).forEachRemaining(keys::add);
    if (!keys.isEmpty()) {
      cluster.redis().del(keys.toArray(String[]::new));
    }
  }
}
