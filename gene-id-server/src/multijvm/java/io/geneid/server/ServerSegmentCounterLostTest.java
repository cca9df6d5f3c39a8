package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.TestTime;
import io.geneid.redis.PrivateRedis;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #39, scenario 3, with two server processes: two gene-id-server processes hand out segment ids of one key from
 * one redis-server of this test's own (no persistence, accepted by {@code segment-redis-allow-without-persistence};
 * the shared Redis is never touched), while client threads ask both. The Redis is flushed ({@code FLUSHALL}): the
 * counter is lost. Before the guard each server refused only segments below what it had seen itself and took the
 * first range above it, which the other server had issued (the issue saw 60 and 80 duplicate segment ids). Now: no
 * segment id is handed out twice across both processes; once a server's buffered values are used up it answers
 * {@code 503} naming the lost counter, and keeps refusing, a restart included, until the operator acts as
 * {@code docs/segments.md} says (stop every process, {@code SET} the counter above the ids in use, {@code DEL} the
 * guard, start them again); then both issue again, above every id issued before. Snowflake ids use static worker ids
 * (1 and 2), so that the flush touches segments only.
 */
class ServerSegmentCounterLostTest {

  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
  static final String COUNTER = "gene-id:segment:order";
  static final String GUARD = COUNTER + ":guard{" + COUNTER + "}";
  static final int GENE_BITS = 6;

  @Test
  void twoServersRefuseALostCounterUntilTheOperatorActs(@TempDir Path dir) throws Exception {
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("redis"), PrivateRedis.Persistence.NONE)) {
      ServerMultiProcessTest.Server[] servers = new ServerMultiProcessTest.Server[2];
      for (int i = 0; i < servers.length; i++) {
        servers[i] = new ServerMultiProcessTest.Server(dir.resolve("s" + i), ServerMultiProcessTest.freePort(),
            List.of("worker-id=" + (i + 1), "segment-store=redis", "segment-redis-uri=" + redis.uri(),
                "segment-redis-allow-without-persistence=true", "segment-keys=order", "segment-min-step=100",
                "segment-max-step=100", "drain-timeout=1s"));
      }
      try {
        startAll(servers, "first start");
        // both issue, then the counter is lost under them
        Clients before = new Clients(servers);
        Await.until(() -> before.ids(0) >= 600 && before.ids(1) >= 600, Duration.ofSeconds(30),
            "600 segment ids from each server");
        redis.redis().flushall();
        long lostAt = System.nanoTime();
        boolean refused = awaitOrFalse(() -> before.lostRefusals(0, lostAt) >= 5 && before.lostRefusals(1, lostAt) >= 5,
            Duration.ofSeconds(20));
        before.stop();
        long[] first = before.allIds();
        List<Long> duplicates = duplicates(first);
        System.out.printf("[server segment lost] before the loss and after it: segment ids %d (server 1: %d, server 2:"
            + " %d), duplicates %d%s; both refused naming the lost counter: %s; first refusals: %s%n", first.length,
            before.ids(0), before.ids(1), duplicates.size(), duplicates.isEmpty() ? "" : " e.g. " + duplicates.get(0),
            refused, before.firstLostRefusalBody());
        assertThat(duplicates).as("segment ids handed out by both servers (or twice by one)").isEmpty();
        assertThat(refused).as("both servers answer 503 naming the lost counter " + COUNTER).isTrue();
        for (int i = 0; i < servers.length; i++) {
          long firstRefusal = before.firstLostRefusalAnswered(i).orElseThrow();
          assertThat(before.idsSentAfter(i, firstRefusal)).as("ids of server %d asked for after its first refusal", i)
              .isZero();
        }
        assertThat(redis.redis().get(GUARD)).as("the guard: a tombstone").startsWith("lost:");

        // a restart is no way out: the tombstone is in Redis, not in the process
        servers[1].process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        startAll(new ServerMultiProcessTest.Server[] {servers[1]}, "restart before the operator acts");
        long asked = System.nanoTime();
        // its first segment request builds the key's generator: a Redis client of its own, in a cold JVM
        Answer restarted = get(servers[1], "/v1/segments/order/ids?count=20", TestTime.seconds(30));
        System.out.printf("[server segment lost] the restarted server answered in %d ms: %s%n",
            (System.nanoTime() - asked) / 1_000_000, restarted.status());
        assertThat(restarted.status()).as("a segment request to the restarted server").isEqualTo(503);
        assertThat(restarted.body()).contains("the segment counter " + COUNTER).contains("was lost");

        // the operator's steps of docs/segments.md
        stopAll(servers);
        long highest = Arrays.stream(first).max().orElseThrow() >>> GENE_BITS;
        redis.redis().set(COUNTER, Long.toString(highest));
        redis.redis().del(GUARD);
        startAll(servers, "start after the operator's steps");
        Clients after = new Clients(servers);
        Await.until(() -> after.ids(0) >= 200 && after.ids(1) >= 200, Duration.ofSeconds(30),
            "segment ids from each server after the operator's steps");
        after.stop();
        long[] second = after.allIds();
        long[] all = Stream.of(first, second).flatMapToLong(Arrays::stream).toArray();
        long lowestAfter = Arrays.stream(second).min().orElseThrow();
        System.out.printf("[server segment lost] after the operator's steps: %d segment ids, lowest %d (value %d, the"
            + " counter was set to %d), duplicates overall %d%n", second.length, lowestAfter, lowestAfter >>> GENE_BITS,
            highest, duplicates(all).size());
        assertThat(lowestAfter >>> GENE_BITS).as("values after the operator's steps").isGreaterThan(highest);
        assertThat(duplicates(all)).as("duplicates overall").isEmpty();
      } finally {
        stopAll(servers);
      }
    }
  }

  private static void startAll(ServerMultiProcessTest.Server[] servers, String what) throws Exception {
    long t0 = System.nanoTime();
    for (ServerMultiProcessTest.Server s : servers) {
      s.start();
    }
    for (ServerMultiProcessTest.Server s : servers) {
      s.assertReady(what);
    }
    System.out.printf("[server segment lost] %s: %d server(s) ready in %d ms%n", what, servers.length,
        (System.nanoTime() - t0) / 1_000_000);
  }

  /** SIGTERM (a graceful stop), then kill -9 whatever is left after 15 s. */
  private static void stopAll(ServerMultiProcessTest.Server[] servers) throws InterruptedException {
    for (ServerMultiProcessTest.Server s : servers) {
      if (s.process != null) {
        s.process.destroy();
      }
    }
    for (ServerMultiProcessTest.Server s : servers) {
      if (s.process != null && !s.process.waitFor(15, TimeUnit.SECONDS)) {
        s.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** Polls {@code condition} until it holds or the (scaled) timeout passed: false then, so the test can say more. */
  private static boolean awaitOrFalse(BooleanSupplier condition, Duration base) throws InterruptedException {
    long deadline = System.nanoTime() + TestTime.scaled(base).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  private static List<Long> duplicates(long[] ids) {
    long[] sorted = ids.clone();
    Arrays.sort(sorted);
    List<Long> out = new ArrayList<>();
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        out.add(sorted[i]);
      }
    }
    return out;
  }

  record Answer(int status, String body) {}

  static Answer get(ServerMultiProcessTest.Server s, String path, Duration timeout) throws IOException,
      InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port + path))
        .timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  /** One answer: which server, when the request went out and when it came back, the ids or the error body. */
  record Receipt(int server, long sentNanos, long answeredNanos, long[] ids, int status, String body) {
    boolean lostRefusal() {
      return status == 503 && body.contains("the segment counter " + COUNTER) && body.contains("was lost");
    }
  }

  /** Two client threads asking both servers in turn for 20 segment ids at a time; every answer kept. */
  static final class Clients {
    private final ServerMultiProcessTest.Server[] servers;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Receipt> receipts = new ArrayList<>();

    Clients(ServerMultiProcessTest.Server[] servers) {
      this.servers = servers;
      for (int t = 0; t < 2; t++) {
        int start = t;
        Thread thread = new Thread(() -> loop(start), "segment-client-" + t);
        threads.add(thread);
        thread.start();
      }
    }

    private void loop(int start) {
      for (int n = start; !stop.get(); n++) {
        int i = n % servers.length;
        long sent = System.nanoTime();
        try {
          Answer a = get(servers[i], "/v1/segments/order/ids?count=20", Duration.ofSeconds(5));
          long[] ids = new long[0];
          if (a.status() == 200) {
            JsonNode list = JSON.readTree(a.body()).get("ids");
            ids = new long[list.size()];
            for (int k = 0; k < ids.length; k++) {
              ids[k] = Long.parseLong(list.get(k).asText());
            }
          }
          add(new Receipt(i, sent, System.nanoTime(), ids, a.status(), a.status() == 200 ? "" : a.body()));
        } catch (IOException e) {
          add(new Receipt(i, sent, System.nanoTime(), new long[0], -1, e.toString()));
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private synchronized void add(Receipt r) {
      receipts.add(r);
    }

    void stop() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join(10_000);
      }
    }

    synchronized long ids(int server) {
      return receipts.stream().filter(r -> r.server() == server).mapToLong(r -> r.ids().length).sum();
    }

    synchronized long lostRefusals(int server, long afterNanos) {
      return receipts.stream().filter(r -> r.server() == server && r.sentNanos() - afterNanos > 0
          && r.lostRefusal()).count();
    }

    synchronized OptionalLong firstLostRefusalAnswered(int server) {
      return receipts.stream().filter(r -> r.server() == server && r.lostRefusal()).mapToLong(Receipt::answeredNanos)
          .min();
    }

    synchronized String firstLostRefusalBody() {
      return receipts.stream().filter(Receipt::lostRefusal).map(Receipt::body).findFirst().orElse("none");
    }

    /** Ids of {@code server} whose request went out after {@code nanos}. */
    synchronized long idsSentAfter(int server, long nanos) {
      return receipts.stream().filter(r -> r.server() == server && r.sentNanos() - nanos > 0)
          .mapToLong(r -> r.ids().length).sum();
    }

    synchronized long[] allIds() {
      return receipts.stream().flatMapToLong(r -> Arrays.stream(r.ids())).toArray();
    }
  }
}
