package io.geneid.redis;

import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.Segment;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process issuing segment ids, as far as the store can tell: a {@link RedisSegmentStore} over a client of its own,
 * a generator and an {@link Issuer}. The generator is built by the issuer's thread, again after every failure: its
 * first segment is fetched when it is built, and a process that starts while claims are refused keeps trying, as a
 * service's start would. Counts the claims that succeeded and were refused.
 */
final class SegmentWorker implements AutoCloseable {

  final String name;
  final AtomicLong claims = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  final Issuer issuer;
  private final RedisSegmentStore store;
  private final SegmentStore counting;
  private final String tag;
  private volatile GeneSegmentGenerator generator;
  private boolean closed;

  /** Starts issuing ids of {@code tag} through {@code uri} into {@code ids}, shared by the workers of a test. */
  SegmentWorker(String name, String uri, String prefix, String tag, Set<Long> ids) {
    this.name = name;
    this.tag = tag;
    this.store = store(uri, prefix);
    this.counting = (t, step) -> {
      try {
        Segment s = store.nextSegment(t, step);
        claims.incrementAndGet();
        return s;
      } catch (RuntimeException e) {
        refused.incrementAndGet();
        throw e;
      }
    };
    this.issuer = new Issuer(name, () -> generator().nextId(), 1, ids);
  }

  static RedisSegmentStore store(String uri, String prefix) {
    return RedisSegmentStore.builder().redisUri(uri).keyPrefix(prefix).commandTimeout(TestTime.ofMillis(500))
        .allowWithoutPersistence(true).build();
  }

  private GeneSegmentGenerator generator() {
    GeneSegmentGenerator g = generator;
    if (g == null) {
      g = GeneSegmentGenerator.builder(counting, tag).minStep(100).maxStep(100).prefetchRetry(Duration.ofMillis(20))
          .fetchTimeout(TestTime.seconds(1)).build();
      generator = g;
    }
    return g;
  }

  static long claims(List<SegmentWorker> workers) {
    return workers.stream().mapToLong(w -> w.claims.get()).sum();
  }

  /** {@code <fault>: <ids> segment ids, <duplicates> duplicates; <worker> <ids> ids, <claims> claims, ...}. */
  static String summary(String fault, List<SegmentWorker> workers) {
    StringBuilder b = new StringBuilder(String.format("%s: %,d segment ids, %d duplicates;", fault,
        workers.stream().mapToLong(w -> w.issuer.issued()).sum(), duplicates(workers)));
    for (SegmentWorker w : workers) {
      b.append(String.format(" %s %,d ids, %d claims, %d refused;", w.name, w.issuer.issued(), w.claims.get(),
          w.refused.get()));
    }
    return b.toString();
  }

  static long duplicates(List<SegmentWorker> workers) {
    return workers.stream().mapToLong(w -> w.issuer.duplicates()).sum();
  }

  /**
   * 300 claims of tag {@code latency} on a healthy deployment, one at a time after 50 to warm up: the median, 99th
   * percentile and mean, in µs.
   */
  static String claimLatency(String uri, String prefix) {
    try (RedisSegmentStore store = store(uri, prefix)) {
      long[] micros = new long[300];
      for (int i = -50; i < micros.length; i++) {
        long t = System.nanoTime();
        store.nextSegment("latency", 100);
        if (i >= 0) {
          micros[i] = (System.nanoTime() - t) / 1_000;
        }
      }
      Arrays.sort(micros);
      return String.format("p50 %d µs, p99 %d µs, mean %d µs", micros[150], micros[296],
          Arrays.stream(micros).sum() / micros.length);
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    issuer.close();
    GeneSegmentGenerator g = generator;
    if (g != null) {
      g.close();
    }
    store.close();
  }
}
