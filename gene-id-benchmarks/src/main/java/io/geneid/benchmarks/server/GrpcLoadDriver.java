package io.geneid.benchmarks.server;

import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.IdsReply;
import io.geneid.server.grpc.v1.NextIdsRequest;
import io.geneid.server.grpc.v1.NextSegmentIdsRequest;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A closed-loop gRPC load for {@code side-by-side.sh}, the gRPC counterpart of {@code wrk}: {@code c} calls kept
 * outstanding (each answer sends the next one, from the channel's event loop, like one wrk connection per call),
 * spread over {@code min(c, connections)} HTTP/2 connections, for each concurrency in turn. Per concurrency it prints
 * one {@code RESULT} line: requests, ids, errors, latency percentiles in microseconds, the load average before, and
 * the CPU ticks ({@code /proc}) that the server process, this driver and the whole machine used during the measured
 * seconds, so the script can compute the server's CPU per request and the other processes' cores.
 *
 * <p>The channels run their callbacks on grpc-java's default executor (a cached thread pool), as an application's
 * channel does and as {@code GrpcLoad} in the server's tests does; {@code -Dgrpc.direct=true} runs them on the
 * channel's event loop ({@code directExecutor}) instead. On a loaded 2-core machine the default did 5 to 15 times
 * more calls per second than the event loop: the driver's threads then get a larger share of the CPU.
 *
 * <pre>java -cp gene-id-server.jar:gene-id-benchmarks/target/classes io.geneid.benchmarks.server.GrpcLoadDriver
 *   host port serverPid kind(ids|segment) count segmentKey seconds warmupSeconds connections c1,c2,...</pre>
 */
public final class GrpcLoadDriver {

  /** {@code -Dgrpc.direct=true}: callbacks on the channel's event loop instead of grpc-java's default executor. */
  private static final boolean DIRECT = Boolean.getBoolean("grpc.direct");

  private GrpcLoadDriver() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 10) {
      System.err.println("usage: GrpcLoadDriver host port serverPid ids|segment count segmentKey seconds "
          + "warmupSeconds connections c1,c2,...");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    long serverPid = Long.parseLong(args[2]);
    boolean segment = args[3].equals("segment");
    int count = Integer.parseInt(args[4]);
    String key = args[5];
    int seconds = Integer.parseInt(args[6]);
    int warmup = Integer.parseInt(args[7]);
    int maxConnections = Integer.parseInt(args[8]);
    int[] concurrencies = Arrays.stream(args[9].split(",")).mapToInt(Integer::parseInt).toArray();
    // warm-up (JIT of both sides) at the highest concurrency, as side-by-side.sh warms wrk's targets; then each
    // point settles for a second with its own connections before it is measured
    int warmest = Arrays.stream(concurrencies).max().orElse(1);
    run(host, port, serverPid, segment, count, key, warmest, Math.min(warmest, maxConnections), 0, warmup);
    for (int c : concurrencies) {
      Result r = run(host, port, serverPid, segment, count, key, c, Math.min(c, maxConnections), seconds, 1);
      System.out.println(r.line(segment ? "segment" : "ids", count, c, Math.min(c, maxConnections)));
    }
  }

  /** One measured point. */
  record Result(long requests, long errors, double elapsedSeconds, long[] sortedNanos, double loadBefore,
      long serverTicks, long selfTicks, long busyTicks, long allTicks, int cpus) {

    String line(String kind, int count, int c, int connections) {
      return String.format(Locale.ROOT,
          "RESULT kind=%s count=%d c=%d connections=%d requests=%d errors=%d seconds=%.3f p50_us=%.1f "
              + "p99_us=%.1f p999_us=%.1f max_us=%.1f load=%.2f server_ticks=%d self_ticks=%d busy_ticks=%d "
              + "all_ticks=%d cpus=%d",
          kind, count, c, connections, requests, errors, elapsedSeconds, micros(0.50), micros(0.99),
          micros(0.999), micros(1.0), loadBefore, serverTicks, selfTicks, busyTicks, allTicks, cpus);
    }

    private double micros(double q) {
      if (sortedNanos.length == 0) {
        return Double.NaN;
      }
      int i = (int) Math.min(sortedNanos.length - 1, Math.ceil(q * sortedNanos.length) - 1);
      return sortedNanos[Math.max(0, i)] / 1e3;
    }
  }

  /** One caller slot: sends a call, and the next from the previous one's completion. */
  private static final class Slot {
    private final GeneIdServiceGrpc.GeneIdServiceStub stub;
    private final @Nullable NextIdsRequest ids;
    private final @Nullable NextSegmentIdsRequest segments;
    private final AtomicBoolean measuring;
    private final AtomicBoolean stop;
    private long[] nanos = new long[1 << 14];
    private int n;
    private long errors;
    private boolean done;

    Slot(GeneIdServiceGrpc.GeneIdServiceStub stub, boolean segment, int count, String key,
        AtomicBoolean measuring, AtomicBoolean stop) {
      this.stub = stub;
      this.ids = segment ? null : NextIdsRequest.newBuilder().setCount(count).build();
      this.segments = segment ? NextSegmentIdsRequest.newBuilder().setKey(key).setCount(count).build() : null;
      this.measuring = measuring;
      this.stop = stop;
    }

    void next() {
      if (stop.get()) {
        synchronized (this) {
          done = true;
          notifyAll();
        }
        return;
      }
      long start = System.nanoTime();
      StreamObserver<IdsReply> observer = new StreamObserver<>() {
        private boolean ok;

        @Override
        public void onNext(IdsReply reply) {
          ok = reply.getIdsCount() > 0;
        }

        @Override
        public void onError(Throwable t) {
          record(start, false);
          next();
        }

        @Override
        public void onCompleted() {
          record(start, ok);
          next();
        }
      };
      if (segments != null) {
        stub.nextSegmentIds(segments, observer);
      } else if (ids != null) {
        stub.nextIds(ids, observer);
      }
    }

    private synchronized void record(long start, boolean ok) {
      if (!measuring.get()) {
        return;
      }
      if (!ok) {
        errors++;
        return;
      }
      if (n == nanos.length) {
        nanos = Arrays.copyOf(nanos, n * 2);
      }
      nanos[n++] = System.nanoTime() - start;
    }

    synchronized void awaitDone() throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!done && System.nanoTime() < deadline) {
        wait(100);
      }
    }
  }

  static Result run(String host, int port, long serverPid, boolean segment, int count, String key, int c,
      int connections, int seconds, int warmup) throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      NettyChannelBuilder b = NettyChannelBuilder.forAddress(host, port).usePlaintext();
      if (DIRECT) {
        b.directExecutor();
      }
      channels.add(b.build());
    }
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < c; i++) {
      slots.add(new Slot(GeneIdServiceGrpc.newStub(channels.get(i % connections)), segment, count, key, measuring,
          stop));
    }
    slots.forEach(Slot::next);
    Thread.sleep(warmup * 1000L);
    double load = loadAverage();
    long[] before = ticks(serverPid);
    long begin = System.nanoTime();
    measuring.set(true);
    Thread.sleep(seconds * 1000L);
    measuring.set(false);
    long elapsed = System.nanoTime() - begin;
    long[] after = ticks(serverPid);
    stop.set(true);
    for (Slot s : slots) {
      s.awaitDone();
    }
    long total = 0;
    long errors = 0;
    for (Slot s : slots) {
      synchronized (s) {
        total += s.n;
        errors += s.errors;
      }
    }
    long[] all = new long[(int) total];
    int at = 0;
    for (Slot s : slots) {
      synchronized (s) {
        System.arraycopy(s.nanos, 0, all, at, s.n);
        at += s.n;
      }
    }
    Arrays.sort(all);
    for (ManagedChannel ch : channels) {
      ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    return new Result(total, errors, elapsed / 1e9, all, load, after[0] - before[0], after[1] - before[1],
        after[2] - before[2], after[3] - before[3], Runtime.getRuntime().availableProcessors());
  }

  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** CPU ticks: the server process, this process, the machine's busy and all ticks ({@code /proc/stat}). */
  private static long[] ticks(long serverPid) {
    try {
      String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long all = 0;
      for (int i = 1; i < cpu.length && i <= 8; i++) {
        all += Long.parseLong(cpu[i]);
      }
      long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
      return new long[] {processTicks(serverPid), processTicks(ManagementFactory.getRuntimeMXBean().getPid()),
          all - idle, all};
    } catch (IOException | RuntimeException e) {
      return new long[4];
    }
  }

  /** utime + stime of a process, in clock ticks. */
  static long processTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat(5)
  }
}
