package io.geneid.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.*;
import java.util.concurrent.*;
import org.junit.jupiter.api.Test;

/** Temporary: measures the before figures. */
class BeforeFiguresTest {

  @Test
  void scenario6() throws Exception {
    Path dir = Files.createTempDirectory("s6");
    GeneIdLayout layout = GeneIdLayout.builder().epoch(Instant.parse("2024-06-06T00:00:00Z")).build();
    GeneIdGenerator a = GeneSnowflakeGenerator.builder().layout(layout).workerId(1).build();
    GeneIdGenerator b = WorkerIdAssigners.sharedGenerator(Map.of("worker-id", "1", "epoch",
        Long.toString(layout.epoch().toEpochMilli()), "mark-file", dir.resolve("m").toString()));
    ConcurrentLinkedQueue<long[]> all = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch ready = new CountDownLatch(4);
    List<Future<?>> fs = new ArrayList<>();
    for (GeneIdGenerator g : List.of(a, a, b, b)) {
      fs.add(pool.submit(() -> {
        long[] buf = new long[2_000_000];
        ready.countDown();
        try { ready.await(); } catch (InterruptedException e) { throw new RuntimeException(e); }
        long end = System.nanoTime() + 300_000_000L;
        int n = 0;
        while (System.nanoTime() < end && n < buf.length) buf[n++] = g.nextId();
        all.add(Arrays.copyOf(buf, n));
      }));
    }
    for (Future<?> f : fs) f.get();
    pool.shutdown();
    Set<Long> seen = new HashSet<>();
    long total = 0, dup = 0;
    for (long[] arr : all) for (long id : arr) { total++; if (!seen.add(id)) dup++; }
    System.out.println("SCENARIO6 total=" + total + " duplicates=" + dup);
    ((AutoCloseable) b).close();
  }

  @Test
  void scenario5() {
    GeneIdLayout layout = GeneIdLayout.builder().epoch(Instant.parse("2024-05-05T00:00:00Z")).timestampBits(41)
        .workerBits(18).sequenceBits(4).geneBits(0).build();
    GeneSnowflakeGenerator runA = GeneSnowflakeGenerator.builder().layout(layout).workerId(3).maxBorrowMillis(5000)
        .buildUnshared();
    Set<Long> a = new HashSet<>();
    for (int i = 0; i < 20_000; i++) a.add(runA.nextId());
    // crash; run B at once
    GeneSnowflakeGenerator runB = GeneSnowflakeGenerator.builder().layout(layout).workerId(3).maxBorrowMillis(5000)
        .build();
    long repeats = 0;
    for (int i = 0; i < 20_000; i++) if (a.contains(runB.nextId())) repeats++;
    System.out.println("SCENARIO5 repeats=" + repeats + " of 20000");
  }

  static int spread(String k) { int h = k.hashCode(); return (h ^ (h >>> 16)) & 0x7fffffff; }

  @Test
  void slowFactory() throws Exception {
    String a = "slow-A";
    String b = null;
    for (int i = 0; b == null; i++) { if ((spread("fast-B-" + i) & 1023) == (spread(a) & 1023)) b = "fast-B-" + i; }
    CountDownLatch inFactory = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread t = new Thread(() -> GeneIdRegistry.shared(a, () -> {
      inFactory.countDown();
      try { release.await(5, TimeUnit.SECONDS); } catch (InterruptedException e) { }
      return GeneSnowflakeGenerator.builder().workerId(77).buildUnshared();
    }));
    t.start();
    inFactory.await();
    String bk = b;
    long t0 = System.nanoTime();
    Thread rel = new Thread(() -> { try { Thread.sleep(2000); } catch (InterruptedException e) { } release.countDown(); });
    rel.start();
    GeneIdRegistry.shared(bk, () -> GeneSnowflakeGenerator.builder().workerId(78).buildUnshared());
    System.out.println("SLOWFACTORY key B took ms=" + (System.nanoTime() - t0) / 1_000_000);
    t.join();
  }
}
