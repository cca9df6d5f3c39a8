package io.geneid.benchmarks;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost per id of a batch of {@value #BATCH} ({@code nextIdsFor(parent, 100)}, {@code nextIds(100)}) against
 * {@value #BATCH} single calls, for the snowflake and the segment generator; run it at 1 and 2 threads
 * ({@code -t 1}, {@code -t 2}). Scores are nanoseconds per id ({@link OperationsPerInvocation}).
 *
 * <p>Code cost, not the bit ceiling: the snowflake layout is T=35, W=0, S=22, G=6 (4,194,304 ids per ms per gene),
 * so no gene runs out of sequence within a millisecond at these rates, and the segment generator takes values from an
 * in-memory store in segments of 100,000 to 1,000,000. Each thread takes its parent's gene from a cursor that moves
 * on every invocation, so two threads rarely hit one gene at once; the root benchmarks ({@code nextId()} /
 * {@code nextIds(n)}) spread over the 64 genes as root rows do.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class BatchBenchmark {

  /** Ids per invocation. */
  public static final int BATCH = 100;

  /** A layout whose sequence never binds here; its epoch a day ago, so 2^35 ms (about a year) are left. */
  static final GeneIdLayout WIDE = GeneIdLayout.builder()
      .epoch(Instant.now().truncatedTo(ChronoUnit.DAYS).minus(1, ChronoUnit.DAYS))
      .timestampBits(35).workerBits(0).sequenceBits(22).geneBits(6).build();

  GeneSnowflakeGenerator snowflake;
  GeneSegmentGenerator segment;

  @Setup(Level.Trial)
  public void setUp() {
    snowflake = GeneSnowflakeGenerator.builder().layout(WIDE).workerId(0).buildUnshared();
    segment = GeneSegmentGenerator.builder(new SegmentBenchmark.AtomicSegmentStore(), "batch")
        .minStep(100_000).maxStep(1_000_000).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    segment.close();
  }

  /** Per-thread parent: a gene cursor. */
  @State(Scope.Thread)
  public static class Parent {
    long next;

    long next() {
      return next++ & 63;
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void snowflakeSinglesForParent(Parent p, Blackhole bh) {
    long parent = p.next();
    for (int i = 0; i < BATCH; i++) {
      bh.consume(snowflake.nextIdFor(parent));
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long[] snowflakeBatchForParent(Parent p) {
    return snowflake.nextIdsFor(p.next(), BATCH);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void snowflakeSinglesRoots(Blackhole bh) {
    for (int i = 0; i < BATCH; i++) {
      bh.consume(snowflake.nextId());
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long[] snowflakeBatchRoots() {
    return snowflake.nextIds(BATCH);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void segmentSinglesForParent(Parent p, Blackhole bh) {
    long parent = p.next();
    for (int i = 0; i < BATCH; i++) {
      bh.consume(segment.nextIdFor(parent));
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long[] segmentBatchForParent(Parent p) {
    return segment.nextIdsFor(p.next(), BATCH);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void segmentSinglesRoots(Blackhole bh) {
    for (int i = 0; i < BATCH; i++) {
      bh.consume(segment.nextId());
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long[] segmentBatchRoots() {
    return segment.nextIds(BATCH);
  }
}
