package io.geneid.benchmarks;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneSpread;
import io.geneid.core.internal.Scopes;
import io.geneid.core.GeneClock;
import org.jspecify.annotations.Nullable;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.StaticWorkerIdAssigner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * The CPU cost of one id, in a layout whose bits never bind (W=0, S=16, G=6: 4 million ids per ms per worker), so
 * the figure is the code's, not the bit ceiling's: the plain generator with a gene and spread over the genes, and
 * the lease-holding generator (fencing check on every id) over a static worker id. Every gene is visited in turn.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class IdCostBenchmark {

  static final GeneIdLayout WIDE = GeneIdLayout.builder().timestampBits(41).workerBits(0).sequenceBits(16)
      .geneBits(6).build();

  GeneSnowflakeGenerator plain;
  LeasedGeneGenerator leased;
  Path dir;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    plain = GeneSnowflakeGenerator.builder().layout(WIDE).workerId(0).buildUnshared();
    dir = Files.createTempDirectory("id-cost");
    leased = LeasedGeneGenerator.builder().layout(WIDE)
        .assigner(StaticWorkerIdAssigner.builder().workerId(0).space("cost").markFile(dir.resolve("w0.mark"))
            .ttl(Duration.ofSeconds(5)).build())
        .build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    leased.close();
  }

  /** Per-thread gene cursor. */
  @State(Scope.Thread)
  public static class Genes {
    int next;
  }

  @Benchmark
  public long plainNextIdGene(Genes g) {
    return plain.nextId(g.next++ & 63);
  }

  @Benchmark
  public long plainNextIdSpread() {
    return plain.nextId();
  }

  @Benchmark
  public long leasedNextIdGene(Genes g) {
    return leased.nextId(g.next++ & 63);
  }

  // ---- the parts of one plainNextIdSpread call, each alone (where the nanoseconds go)

  final GeneSpread spread = new GeneSpread(WIDE.geneBits());

  /** The default clock ({@link GeneClock#system()}): one {@link System#nanoTime()} and a division. */
  @Benchmark
  public long partClock() {
    return GeneClock.system().currentTimeMillis();
  }

  /** The scope lookup outside every {@code GeneContext} scope: no thread-local read until a scope is first opened. */
  @Benchmark
  public @Nullable Object partScopeLookup() {
    return Scopes.next();
  }

  /** The gene of a root row: a thread-local read and one step of the walk. */
  @Benchmark
  public long partSpreadGene() {
    return spread.nextGene();
  }
}
