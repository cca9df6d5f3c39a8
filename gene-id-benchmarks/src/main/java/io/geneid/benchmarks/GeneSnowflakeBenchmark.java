package io.geneid.benchmarks;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * gene-id's {@link GeneSnowflakeGenerator}, one instance shared by all benchmark threads (as in production: one
 * generator per worker id per JVM), with the default layout and with a classic one (G=0).
 *
 * <ul>
 *   <li>{@code hotGene}: {@code nextId(gene)} on one gene: limited by {@code 2^S} ids per ms;
 *   <li>{@code allGenes}: {@code nextId(gene)} cycling over every gene: limited by {@code 2^(S+G)} ids per ms;
 *   <li>{@code spread}: {@code nextId()} without a scope (root rows spread over the genes);
 *   <li>{@code forParent}: {@code nextIdFor(parentKey)} over random parent keys with uniform genes.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GeneSnowflakeBenchmark {

  /** The gene of {@link #hotGene}. */
  static final long HOT_GENE = 7;

  @Param({Layouts.DEFAULT, Layouts.CLASSIC})
  public String layout = Layouts.DEFAULT;

  GeneSnowflakeGenerator generator;

  @Setup(Level.Trial)
  public void setUp() {
    GeneIdLayout l = Layouts.named(layout);
    generator = GeneSnowflakeGenerator.builder().layout(l).workerId(1).buildUnshared();
  }

  /** Per-thread cursor over genes and parent keys. */
  @State(Scope.Thread)
  public static class Cursor {
    final long[] parentKeys = new long[1024];
    int next;
    long maxGene;

    @Setup(Level.Trial)
    public void setUp(GeneSnowflakeBenchmark benchmark) {
      SplittableRandom random = new SplittableRandom(42);
      maxGene = benchmark.generator.layout().maxGene();
      // random parents whose genes are uniform, as parents issued by nextId() are (round-robin over the genes).
      // Fully random keys put up to ~26 of 1,024 keys on one gene: that gene then hits its 2^S ids/ms first and caps
      // the whole run at 256 * 1024 / 26 ~ 10,000 ids/ms, a skew of the key sample rather than a cost of the code.
      for (int i = 0; i < parentKeys.length; i++) {
        parentKeys[i] = (random.nextLong(Long.MAX_VALUE) & ~maxGene) | (i & maxGene);
      }
      next = random.nextInt(1 << 16);
    }
  }

  @Benchmark
  public long hotGene() {
    return generator.nextId(HOT_GENE & generator.layout().maxGene());
  }

  @Benchmark
  public long allGenes(Cursor cursor) {
    return generator.nextId(cursor.next++ & cursor.maxGene);
  }

  @Benchmark
  public long spread() {
    return generator.nextId();
  }

  @Benchmark
  public long forParent(Cursor cursor) {
    return generator.nextIdFor(cursor.parentKeys[cursor.next++ & 1023]);
  }
}
