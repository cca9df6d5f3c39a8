package io.geneid.benchmarks;

import cn.hutool.core.lang.Snowflake;
import com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator;
import com.github.yitter.contract.IdGeneratorOptions;
import com.github.yitter.idgen.DefaultIdGenerator;
import java.util.Collection;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.snowflake.SnowflakeKeyGenerateAlgorithm;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Snowflake generators a ShardingSphere or MyBatis-Plus user would otherwise pick, each with the settings a
 * user gets by default, one instance shared by all benchmark threads, called through the entry point the framework
 * calls.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PeerBenchmark {

  /** ShardingSphere 5.5.2 {@code SNOWFLAKE}: 41-bit time, 10-bit worker, 12-bit sequence. */
  @State(Scope.Benchmark)
  public static class ShardingSphere {
    SnowflakeKeyGenerateAlgorithm algorithm;
    AlgorithmSQLContext context;

    @Setup(Level.Trial)
    public void setUp() {
      algorithm = new SnowflakeKeyGenerateAlgorithm();
      algorithm.init(new Properties());
      context = new AlgorithmSQLContext("bench", "bench", "t_order", "order_id");
    }
  }

  /** MyBatis-Plus 3.5.16 {@code DefaultIdentifierGenerator}: 41-bit time, 5+5-bit worker, 12-bit sequence. */
  @State(Scope.Benchmark)
  public static class MyBatisPlus {
    DefaultIdentifierGenerator generator;

    @Setup(Level.Trial)
    public void setUp() {
      generator = new DefaultIdentifierGenerator(1, 1);
    }
  }

  /** CosId {@code MillisecondSnowflakeId}: 41-bit time, 10-bit machine, 12-bit sequence. */
  @State(Scope.Benchmark)
  public static class CosId {
    MillisecondSnowflakeId generator;

    @Setup(Level.Trial)
    public void setUp() {
      generator = new MillisecondSnowflakeId(1);
    }
  }

  /** Hutool {@code Snowflake}: 41-bit time, 5+5-bit worker, 12-bit sequence. */
  @State(Scope.Benchmark)
  public static class Hutool {
    Snowflake generator;

    @Setup(Level.Trial)
    public void setUp() {
      generator = new Snowflake(1, 1);
    }
  }

  /** yitter {@code IdGenerator} with its default options: 6-bit worker, 6-bit sequence, "drift" borrowing. */
  @State(Scope.Benchmark)
  public static class Yitter {
    DefaultIdGenerator generator;

    @Setup(Level.Trial)
    public void setUp() {
      generator = new DefaultIdGenerator(new IdGeneratorOptions((short) 1));
    }
  }

  /** ShardingSphere calls {@code generateKeys(context, 1)} once per single-row INSERT. */
  @Benchmark
  public Collection<? extends Comparable<?>> shardingSphereSnowflake(ShardingSphere state) {
    return state.algorithm.generateKeys(state.context, 1);
  }

  /** MyBatis-Plus calls {@code nextId(entity)} once per inserted entity. */
  @Benchmark
  public Number myBatisPlusDefault(MyBatisPlus state) {
    return state.generator.nextId(state);
  }

  @Benchmark
  public long cosIdMillisecondSnowflake(CosId state) {
    return state.generator.generate();
  }

  @Benchmark
  public long hutoolSnowflake(Hutool state) {
    return state.generator.nextId();
  }

  @Benchmark
  public long yitter(Yitter state) {
    return state.generator.newLong();
  }
}
