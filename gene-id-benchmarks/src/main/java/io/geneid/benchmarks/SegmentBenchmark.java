package io.geneid.benchmarks;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import me.ahoo.cosid.segment.DefaultSegmentId;
import me.ahoo.cosid.segment.IdSegment;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import me.ahoo.cosid.segment.concurrent.PrefetchWorkerExecutorService;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Segment ("号段") generators over an in-memory store, so that the figure is the generator's own code cost (one
 * atomic increment per id, plus switching segments), not a database's: gene-id's
 * {@link GeneSegmentGenerator} beside CosId's {@link SegmentChainId} (its recommended segment generator) and
 * {@link DefaultSegmentId} (no prefetch: the caller that finds the segment used up fetches the next one).
 *
 * <p>Both stores are the same thing: one {@link AtomicLong} advanced by the step asked for ({@link
 * AtomicSegmentStore} for gene-id, CosId's own {@link IdSegmentDistributor.Atomic} for CosId), one instance per
 * trial, values from 1. Every generator starts from the same {@link #step} and keeps its own policy for growing
 * it ({@code SegmentChainId} cannot be pinned to one step, so pinning only gene-id's would not be fair):
 * gene-id adapts its step ({@code minStep = step}, the builder's default {@code maxStep} of 1,000,000: at step
 * 1,000 these are exactly the builder's defaults); {@code SegmentChainId} fetches {@code 2 x step} values when a
 * caller runs dry and merges ever more segments into one fetch while it is "hungry"; {@code DefaultSegmentId}
 * always fetches exactly {@code step}.
 *
 * <p>Segment ids have no bit ceiling: they do not read the clock, and a real store hands out one segment per round
 * trip, so in production the store sets the rate when the step is small. Each generator is shared by all
 * benchmark threads, as in production (one generator per business tag per JVM).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SegmentBenchmark {

  /** G of the gene-id segment generator: that of the default layout, as the builder's default. */
  public static final int GENE_BITS = GeneIdLayout.defaults().geneBits();

  /** Values per segment to start with, the same for every generator (gene-id and SegmentChainId grow it). */
  @Param({"1000", "100000"})
  public long step = 1000;

  /** gene-id's segment store for this benchmark: an {@link AtomicLong} that hands out {@code step} values a call. */
  static final class AtomicSegmentStore implements SegmentStore {
    private final AtomicLong maxValue = new AtomicLong();

    @Override
    public Segment nextSegment(String bizTag, long step) {
      long end = maxValue.addAndGet(step);
      return new Segment(end - step + 1, end);
    }

    @Override
    public String toString() {
      return "AtomicSegmentStore";
    }
  }

  /** Values a thread takes at once with the {@code thread-block} policy. */
  public static final int THREAD_BLOCK = 64;

  /**
   * gene-id's {@link GeneSegmentGenerator} with {@link #GENE_BITS} gene bits and the step policy {@link #policy}:
   * {@code adaptive} (its step adapting from {@link #step}: the builder's defaults at step 1,000), {@code pinned}
   * ({@code minStep = maxStep = step}, as users who want short, dense ids run it: every switch counts, as with
   * {@link DefaultSegmentId}) or {@code thread-block} (adaptive, each thread taking {@link #THREAD_BLOCK} values at
   * once: threads do not contend for the shared counter, ids of different threads interleave) or
   * {@code pinned-thread-block} (both).
   */
  @State(Scope.Benchmark)
  public static class GeneSegment {
    @Param({"adaptive", "pinned", "thread-block", "pinned-thread-block"})
    public String policy = "adaptive";

    GeneSegmentGenerator generator;

    @Setup(Level.Trial)
    public void setUp(SegmentBenchmark benchmark) {
      long maxStep = policy.startsWith("pinned") ? benchmark.step
          : Math.max(benchmark.step, io.geneid.core.segment.SegmentSettings.defaults().maxStep());
      generator = GeneSegmentGenerator.builder(new AtomicSegmentStore(), "bench").geneBits(GENE_BITS)
          .minStep(benchmark.step).maxStep(maxStep).threadBlock(policy.endsWith("thread-block") ? THREAD_BLOCK : 0)
          .build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      generator.close();
    }
  }

  /** CosId's {@link SegmentChainId} with its default safe distance and its own prefetch worker. */
  @State(Scope.Benchmark)
  public static class CosIdChain {
    PrefetchWorkerExecutorService prefetch;
    SegmentChainId generator;

    @Setup(Level.Trial)
    public void setUp(SegmentBenchmark benchmark) {
      // CosId's DEFAULT service with one worker and its default period, shut down after the trial
      prefetch = new PrefetchWorkerExecutorService(PrefetchWorkerExecutorService.DEFAULT_PREFETCH_PERIOD, 1, false);
      generator = new SegmentChainId(IdSegment.TIME_TO_LIVE_FOREVER, SegmentChainId.DEFAULT_SAFE_DISTANCE,
          new IdSegmentDistributor.Atomic(benchmark.step), prefetch);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      prefetch.shutdown();
    }
  }

  /** CosId's {@link DefaultSegmentId}: one segment, the next fetched under a lock by the caller that ran dry. */
  @State(Scope.Benchmark)
  public static class CosIdDefault {
    DefaultSegmentId generator;

    @Setup(Level.Trial)
    public void setUp(SegmentBenchmark benchmark) {
      generator = new DefaultSegmentId(new IdSegmentDistributor.Atomic(benchmark.step));
    }
  }

  /** Per-thread cursor over random parent keys. */
  @State(Scope.Thread)
  public static class Parents {
    final long[] keys = new long[1024];
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      SplittableRandom random = new SplittableRandom(42);
      for (int i = 0; i < keys.length; i++) {
        keys[i] = random.nextLong(Long.MAX_VALUE);
      }
      next = random.nextInt(1 << 16);
    }
  }

  /** A root row without a {@code GeneContext} scope: the gene is the value's low bits (spread). */
  @Benchmark
  public long geneSegmentSpread(GeneSegment state) {
    return state.generator.nextId();
  }

  /** A child row: the gene of a random parent key. */
  @Benchmark
  public long geneSegmentForParent(GeneSegment state, Parents parents) {
    return state.generator.nextIdFor(parents.keys[parents.next++ & 1023]);
  }

  @Benchmark
  public long cosIdSegmentChain(CosIdChain state) {
    return state.generator.generate();
  }

  @Benchmark
  public long cosIdDefaultSegment(CosIdDefault state) {
    return state.generator.generate();
  }

  /** One {@link AtomicLong} shared by all threads, and nothing else. */
  @State(Scope.Benchmark)
  public static class SharedCounter {
    final AtomicLong counter = new AtomicLong();
  }

  /**
   * The floor of one shared order: one atomic increment of a shared counter per id, no segment, no store. A generator
   * whose ids increase across threads in the order they are issued (gene-id's default, {@code DefaultSegmentId},
   * {@code SegmentChainId}) pays at least this per id.
   */
  @Benchmark
  public long sharedCounter(SharedCounter state) {
    return state.counter.incrementAndGet();
  }
}
