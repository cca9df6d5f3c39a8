package io.geneid.server;

import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.NextIdsRequest;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A closed-loop gRPC load generator for {@code NextIds}, the gRPC half of {@code bench/run-server-bench.sh}: T
 * calls kept outstanding (each answer sends the next, asynchronously, like wrk's connections), spread over C
 * connections; prints requests/s, ids/s and latency percentiles.
 * Not a test: {@code java -cp gene-id-server.jar:target/test-classes io.geneid.server.GrpcLoad host port threads
 * connections seconds count [warmupSeconds]}.
 */
public final class GrpcLoad {
  private GrpcLoad() {}

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    int connections = Integer.parseInt(args[3]);
    int seconds = Integer.parseInt(args[4]);
    int count = Integer.parseInt(args[5]);
    int warmup = args.length > 6 ? Integer.parseInt(args[6]) : 3;
    List<ManagedChannel> channels = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      channels.add(NettyChannelBuilder.forAddress(host, port).usePlaintext().build());
    }
    NextIdsRequest req = NextIdsRequest.newBuilder().setCount(count).build();
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    long[][] latencies = new long[threads][];
    int[] n = new int[threads];
    long[] errors = new long[threads];
    Object lock = new Object();
    for (int t = 0; t < threads; t++) {
      int me = t;
      var stub = GeneIdServiceGrpc.newStub(channels.get(t % connections));
      latencies[t] = new long[1 << 16];
      new Object() {
        void next() {
          if (stop.get()) {
            return;
          }
          long start = System.nanoTime();
          stub.nextIds(req, new io.grpc.stub.StreamObserver<>() {
            @Override
            public void onNext(io.geneid.server.grpc.v1.IdsReply r) {}

            @Override
            public void onError(Throwable e) {
              synchronized (lock) {
                errors[me]++;
              }
              next();
            }

            @Override
            public void onCompleted() {
              long took = System.nanoTime() - start;
              if (measuring.get()) {
                synchronized (lock) {
                  if (n[me] == latencies[me].length) {
                    latencies[me] = Arrays.copyOf(latencies[me], n[me] * 2);
                  }
                  latencies[me][n[me]++] = took;
                }
              }
              next();
            }
          });
        }
      }.next();
    }
    Thread.sleep(warmup * 1000L);
    long begin = System.nanoTime();
    measuring.set(true);
    Thread.sleep(seconds * 1000L);
    measuring.set(false);
    long elapsed = System.nanoTime() - begin;
    stop.set(true);
    Thread.sleep(200);
    int total;
    long[] all;
    synchronized (lock) {
      total = Arrays.stream(n).sum();
      all = new long[total];
      int at = 0;
      for (int t = 0; t < threads; t++) {
        System.arraycopy(latencies[t], 0, all, at, n[t]);
        at += n[t];
      }
    }
    Arrays.sort(all);
    double rps = total / (elapsed / 1e9);
    System.out.printf("gRPC NextIds count=%d outstanding=%d connections=%d: %.0f requests/s, %.0f ids/s, errors %d%n",
        count, threads, connections, rps, rps * count, Arrays.stream(errors).sum());
    System.out.printf("  latency p50 %s, p99 %s, p99.9 %s, max %s%n", ms(all, 0.50), ms(all, 0.99), ms(all, 0.999),
        ms(all, 1.0));
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static String ms(long[] sorted, double q) {
    if (sorted.length == 0) {
      return "-";
    }
    int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
    return String.format("%.3f ms", sorted[Math.max(0, i)] / 1e6);
  }
}
