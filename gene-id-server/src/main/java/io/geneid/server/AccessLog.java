package io.geneid.server;

import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The structured access log (off by default, {@code access-log=true}): one JSON line per request, logged through
 * SLF4J (logger {@code io.geneid.server.access}, level INFO) by a thread of its own, so an event loop only queues
 * an entry and never writes. When the queue of {@value #QUEUE} entries is full (the log's output is slower than the
 * requests) entries are dropped and counted; the next line logged says how many. The line holds the path but no
 * query value and no header, so no token ever reaches it.
 */
final class AccessLog implements AutoCloseable {
  static final int QUEUE = 16_384;
  private static final Logger LOG = LoggerFactory.getLogger("io.geneid.server.access");

  private record Entry(long epochMillis, String protocol, String client, String method, String path, int status,
      String outcome, int ids, long nanos) {}

  private final BlockingQueue<Entry> queue = new ArrayBlockingQueue<>(QUEUE);
  private final AtomicLong dropped = new AtomicLong();
  private final Thread writer;
  private volatile boolean closed;

  AccessLog() {
    writer = new Thread(this::run, "gene-id-server-access-log");
    writer.setDaemon(true);
    writer.start();
  }

  /** Queues one line; never blocks. */
  void line(String protocol, String client, String method, String path, int status, String outcome, int ids,
      long nanos) {
    if (!queue.offer(new Entry(System.currentTimeMillis(), protocol, client, method, path, status, outcome, ids,
        nanos))) {
      dropped.incrementAndGet();
    }
  }

  private void run() {
    while (!closed || !queue.isEmpty()) {
      Entry e;
      try {
        e = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException interrupted) {
        return;
      }
      if (e == null) {
        continue;
      }
      Json j = Json.object(220).string("time", Json.instant(Instant.ofEpochMilli(e.epochMillis())))
          .string("protocol", e.protocol()).string("client", e.client()).string("method", e.method())
          .string("path", ParentKey.clip(e.path())).number("status", e.status()).string("outcome", e.outcome())
          .number("ids", e.ids()).number("micros", e.nanos() / 1000);
      long lost = dropped.getAndSet(0);
      if (lost > 0) {
        j.number("dropped", lost);
      }
      LOG.info("{}", j.end());
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      writer.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
