package io.geneid.benchmarks;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.GeneSpread;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
 * The cost of choosing the gene of a root row (issue 20), the part of {@code nextId()} that changed, with the default
 * layout (G = 6): the former per-thread round-robin cursor ({@code roundRobin}, reproduced here as the baseline)
 * against {@link GeneSpread} ({@code geneSpread}: a fresh keyed order every cycle), alone and inside a whole id
 * ({@code nextIdRoundRobin}: what {@code nextId()} did before; {@code nextIdSpread}: {@code nextId()} now). Both
 * read one thread-local; neither allocates. Not part of {@code run.sh}'s suite: run it with
 * {@code java -cp ... org.openjdk.jmh.Main GeneSpreadBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GeneSpreadBenchmark {

  GeneSpread spread;
  long maxGene;
  GeneSnowflakeGenerator generator;
  final ThreadLocal<int[]> cursor = ThreadLocal.withInitial(() -> new int[] {ThreadLocalRandom.current().nextInt()});

  @Setup
  public void setUp() {
    generator = GeneSnowflakeGenerator.builder().workerId(1).buildUnshared();
    spread = new GeneSpread(generator.geneBits());
    maxGene = generator.layout().maxGene();
  }

  /** Before issue 20: one cursor per thread, shared by every table. */
  @Benchmark
  public long roundRobin() {
    int[] c = cursor.get();
    return c[0]++ & maxGene;
  }

  /** After: {@link GeneSpread#nextGene()}. */
  @Benchmark
  public long geneSpread() {
    return spread.nextGene();
  }

  /** A whole root id as {@code nextId()} made it before: the round-robin gene. */
  @Benchmark
  public long nextIdRoundRobin() {
    return generator.nextId(roundRobin());
  }

  /** A whole root id from {@code nextId()} now (its generator's spread). */
  @Benchmark
  public long nextIdSpread() {
    return generator.nextId();
  }
}
