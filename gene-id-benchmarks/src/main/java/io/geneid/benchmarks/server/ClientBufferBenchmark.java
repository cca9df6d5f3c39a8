package io.geneid.benchmarks.server;

import io.geneid.client.GeneIdClient;
import io.geneid.core.GeneIdGenerator;
import io.geneid.server.GeneIdServer;
import io.geneid.server.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
 * The Java client's throughput from its buffers (issue #40): ids per second that application threads take from one
 * shared {@link GeneIdClient}, against a live gene-id-server in this JVM (embedded defaults: a static worker id and
 * segments in an H2 file under a fresh temporary folder, HTTP on a free loopback port, gRPC off), as the client's
 * tests run it. The client refills its buffers from the server on its own threads in the background, so the figure
 * is what callers see: the buffer's hand-out cost and contention, plus, when callers outrun the refills, the waits
 * for a batch. Server, refill threads and callers share the machine's cores.
 *
 * <p>Run at 1, 2 and 4 threads ({@code -t}): ops/s are ids/s of all threads together.
 *
 * <pre>for t in 1 2 4; do java -cp "gene-id-benchmarks/target/classes:$(cat gene-id-benchmarks/target/benchmark-classpath.txt)" \
 *   org.openjdk.jmh.Main ClientBufferBenchmark -t $t; done</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class ClientBufferBenchmark {

  /** The segment key the server serves. */
  static final String KEY = "bench";

  /** Ids per refill ({@link GeneIdClient.Builder#batchSize(int)}): the client's default and a larger one. */
  @Param({"1000", "10000"})
  public int batchSize;

  GeneIdServer server;
  GeneIdClient client;
  GeneIdGenerator segments;
  private Path dataDir;

  @Setup(Level.Trial)
  public void setUp() {
    try {
      dataDir = Files.createTempDirectory("gene-id-client-bench");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server = GeneIdServer.start(ServerConfig.from(Map.of("http-port", "0", "grpc-port", "-1", "data-dir",
        dataDir.toString(), "worker-id", "1", "segment-keys", KEY, "drain-timeout", "0s")));
    if (!server.awaitReady(Duration.ofSeconds(30))) {
      server.close();
      throw new IllegalStateException("the in-process gene-id-server did not become ready");
    }
    client = GeneIdClient.builder().addresses("http://127.0.0.1:" + server.httpPort()).batchSize(batchSize)
        .requestTimeout(Duration.ofSeconds(10)).build();
    segments = client.segments(KEY);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    if (dataDir != null) {
      try (Stream<Path> files = Files.walk(dataDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Per thread: a parent key that changes every call, so the gene changes too. */
  @State(Scope.Thread)
  public static class Parent {
    long key = System.nanoTime();
  }

  /** A root id: genes spread over all 2^G, each gene from its own buffer of snowflake ids. */
  @Benchmark
  public long snowflakeSpread() {
    return client.nextId();
  }

  /** An id for a parent key (the parent's gene), the parent changing every call. */
  @Benchmark
  public long snowflakeForParent(Parent p) {
    return client.nextIdFor(p.key++);
  }

  /** A segment id of one key, genes spread: one buffer of values serves every gene. */
  @Benchmark
  public long segmentSpread() {
    return segments.nextId();
  }
}
