package io.geneid.benchmarks;

import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The published gene generator gene-id replaces ({@link PublishedGeneGenerator}), one instance shared by all
 * benchmark threads. Its borrowing is unbounded, so its rate is not bounded by its bits: at tear-down the benchmark
 * prints how far its timestamps ran ahead of the clock.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PublishedGeneBenchmark {

  PublishedGeneGenerator generator;

  @Setup(Level.Trial)
  public void setUp() {
    generator = new PublishedGeneGenerator(1, 1);
  }

  @TearDown(Level.Iteration)
  public void reportLead() {
    long lead = generator.lastTimestamp() - System.currentTimeMillis();
    System.out.println("[published gene generator] timestamps " + lead + " ms ahead of the clock");
  }

  /** Per-thread cursor over the 32 genes. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;
  }

  @Benchmark
  public long hotGene() {
    return generator.nextId(GeneSnowflakeBenchmark.HOT_GENE);
  }

  @Benchmark
  public long allGenes(Cursor cursor) {
    return generator.nextId(cursor.next++);
  }
}
