package io.geneid.benchmarks;

import io.geneid.core.GeneRouting;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketPlanner;
import io.geneid.shardingsphere.GeneBucketShardingAlgorithm;
import io.geneid.shardingsphere.GeneModShardingAlgorithm;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.shardingsphere.infra.datanode.DataNodeInfo;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The routing cost of {@code GENE_BUCKET} against {@code GENE_MOD} (issue 13), both over 4 targets with G = 6: the
 * gene-to-index step alone ({@code modIndex}: {@link GeneRouting#index}; {@code bucketIndex}: an array look-up in a
 * {@link BucketMap} grown from 2 to 4 by the planner) and the whole ShardingSphere call for one {@code id = ?}
 * ({@code modDoSharding}, {@code bucketDoSharding}: the gene of the value, the index, the target by its suffix).
 * The ids cycle through 1024 values so every gene is routed. Not part of {@code run.sh}'s suite: run it with
 * {@code java -cp ... org.openjdk.jmh.Main BucketRoutingBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BucketRoutingBenchmark {

  private static final List<String> TARGETS = List.of("ds_0", "ds_1", "ds_2", "ds_3");
  private static final DataNodeInfo NODE = new DataNodeInfo("ds_", 1, '0');

  GeneRouting routing;
  BucketMap map;
  GeneModShardingAlgorithm mod;
  GeneBucketShardingAlgorithm bucket;
  long[] ids;
  List<PreciseShardingValue<Comparable<?>>> values;
  int next;

  @Setup
  public void setUp() {
    routing = new GeneRouting(4, 1, 6);
    map = BucketPlanner.plan(BucketMap.ofMod(6, 2, 1), 4).next();
    Properties modProps = new Properties();
    modProps.setProperty("sharding-count", "4");
    mod = new GeneModShardingAlgorithm();
    mod.init(modProps);
    Properties bucketProps = new Properties();
    bucketProps.setProperty("bucket-map", "0=0-15; 1=16-31; 2=32-47; 3=48-63");
    bucket = new GeneBucketShardingAlgorithm();
    bucket.init(bucketProps);
    ids = new long[1024];
    values = new java.util.ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      ids[i] = ((long) (i * 7919 + 1) << 6) | (i & 63);
      values.add(new PreciseShardingValue<>("t_order", "id", NODE, ids[i]));
    }
  }

  private int nextSlot() {
    return next = (next + 1) & 1023;
  }

  @Benchmark
  public int modIndex() {
    return routing.index(ids[nextSlot()] & 63);
  }

  @Benchmark
  public int bucketIndex() {
    return map.target((int) (ids[nextSlot()] & 63));
  }

  @Benchmark
  public String modDoSharding() {
    return mod.doSharding(TARGETS, values.get(nextSlot()));
  }

  @Benchmark
  public String bucketDoSharding() {
    return bucket.doSharding(TARGETS, values.get(nextSlot()));
  }
}
