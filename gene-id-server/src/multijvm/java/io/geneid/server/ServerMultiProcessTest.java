package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.TestTime;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #32's no-duplicate test: three gene-id-server processes on one lease store, client threads asking all of
 * them for snowflake and segment ids over HTTP, while one server is killed with {@code kill -9} and restarted, and
 * another is paused with SIGSTOP past its lease TTL and resumed. Every id received is counted: 0 duplicates, and ids
 * are received from the restarted and the resumed server after the faults. The pool has 4 worker ids for 3 servers,
 * so worker ids are reused. Rounds of faults: {@code -Dgene-id.server.multijvm.rounds} (default 1).
 */
class ServerMultiProcessTest {
  static final int ROUNDS = Integer.getInteger("gene-id.server.multijvm.rounds", 1);
  /** The servers' lease TTL: 2 s at the tests' time scale; the paused server stays stopped past it. */
  static final Duration TTL = TestTime.seconds(2);
  static final ObjectMapper JSON = new ObjectMapper();
  /**
   * The clients' connect and request timeouts: 1 s at the tests' time scale, short so that a paused server holds a
   * client up only briefly, and not so short that a busy machine's slow answer is a refusal.
   */
  static final Duration CALL_TIMEOUT = TestTime.seconds(1);
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(CALL_TIMEOUT).build();

  @Test
  void redisLeasesAndRedisSegments(@TempDir Path dir) throws Exception {
    String prefix = "gene-id-server-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    run(dir, List.of("worker-assigner=redis", "redis-uri=redis://127.0.0.1:6379/0", "redis-key-prefix=" + prefix,
        "segment-store=redis", "segment-redis-uri=redis://127.0.0.1:6379/0", "segment-redis-key-prefix=" + prefix,
        // the shared test Redis keeps no AOF; a production segment Redis must (docs/segments.md)
        "segment-redis-allow-without-persistence=true"), "redis");
  }

  @Test
  void postgresLeasesAndSegments(@TempDir Path dir) throws Exception {
    String suffix = ProcessHandle.current().pid() + "_" + (System.nanoTime() % 1_000_000);
    String url = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    String leases = "gis_lease_" + suffix;
    String segments = "gis_segment_" + suffix;
    try {
      run(dir, List.of("worker-assigner=jdbc", "jdbc-url=" + url, "jdbc-table=" + leases, "jdbc-create-table=true",
          "segment-jdbc-url=" + url, "segment-jdbc-table=" + segments), "postgres");
    } finally {
      try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + leases);
        st.execute("DROP TABLE IF EXISTS " + segments);
      }
    }
  }

  private void run(Path dir, List<String> storeKeys, String name) throws Exception {
    List<String> common = new ArrayList<>(storeKeys);
    common.addAll(List.of("space=server-test", "worker-id-min=0", "worker-id-max=3", "lease-ttl=" + TTL.toMillis()
        + "ms", "segment-keys=order", "segment-min-step=200", "segment-max-step=200", "drain-timeout=1s"));
    Server[] servers = new Server[3];
    for (int i = 0; i < servers.length; i++) {
      servers[i] = new Server(dir.resolve("s" + i), freePort(), common);
    }
    AtomicBoolean stop = new AtomicBoolean();
    List<Client> clients = new ArrayList<>();
    try {
      // the first server creates the tables (jdbc-create-table), then the others start together
      servers[0].start();
      servers[0].assertReady(name);
      servers[1].start();
      servers[2].start();
      servers[1].assertReady(name);
      servers[2].assertReady(name);
      for (int t = 0; t < 6; t++) {
        Client c = new Client(servers, stop);
        clients.add(c);
        c.thread.start();
      }
      // every server answers, and the clients have ids of both kinds before the first fault
      Await.until(() -> Arrays.stream(servers).allMatch(s -> clients.stream().mapToLong(c -> c.receivedAfter(s, 0))
          .sum() > 0) && clients.stream().mapToLong(c -> c.ids("snowflake").length).sum() > 1_000
          && clients.stream().mapToLong(c -> c.ids("segment").length).sum() > 1_000, Duration.ofSeconds(30),
          "ids from every server before the faults");
      for (int round = 0; round < ROUNDS; round++) {
        // kill -9 and restart
        Server killed = servers[round % 3];
        killed.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        Thread.sleep(500);
        killed.start();
        killed.assertReady(name + " (restarted)");
        long restartedAt = System.nanoTime();
        // SIGSTOP past the TTL, SIGCONT
        Server paused = servers[(round + 1) % 3];
        signal(paused, "STOP");
        Thread.sleep(TTL.toMillis() + 1_500);
        signal(paused, "CONT");
        long resumedAt = System.nanoTime();
        // ids from both the restarted and the resumed server (each had to lease a worker id again)
        Await.until(() -> clients.stream().mapToLong(c -> c.receivedAfter(killed, restartedAt)).sum() > 0
            && clients.stream().mapToLong(c -> c.receivedAfter(paused, resumedAt)).sum() > 0, Duration.ofSeconds(30),
            "ids from the restarted and the resumed server");
        long fromRestarted = clients.stream().mapToLong(c -> c.receivedAfter(killed, restartedAt)).sum();
        long fromResumed = clients.stream().mapToLong(c -> c.receivedAfter(paused, resumedAt)).sum();
        System.out.printf("[server-multijvm %s] round %d: ids from the restarted server %d, from the resumed one %d%n",
            name, round + 1, fromRestarted, fromResumed);
        assertThat(fromRestarted).as("ids from the server restarted after kill -9").isPositive();
        assertThat(fromResumed).as("ids from the server resumed after SIGSTOP past its TTL").isPositive();
      }
    } finally {
      stop.set(true);
      for (Client c : clients) {
        c.thread.join(10_000);
      }
      for (Server s : servers) {
        s.process.destroy(); // SIGTERM: graceful shutdown
      }
      for (Server s : servers) {
        if (!s.process.waitFor(15, TimeUnit.SECONDS)) {
          s.process.destroyForcibly();
        }
      }
    }
    for (String kind : List.of("snowflake", "segment")) {
      long[] all = clients.stream().flatMapToLong(c -> Arrays.stream(c.ids(kind))).sorted().toArray();
      long duplicates = 0;
      for (int i = 1; i < all.length; i++) {
        if (all[i] == all[i - 1]) {
          duplicates++;
        }
      }
      long refused = clients.stream().mapToLong(c -> c.refused.get()).sum();
      System.out.printf("[server-multijvm %s] %s ids %d, duplicates %d (requests refused or failed: %d)%n", name,
          kind, all.length, duplicates, refused);
      assertThat(all.length).as(kind + " ids").isGreaterThan(1_000);
      assertThat(duplicates).as(kind + " duplicates").isZero();
    }
    for (Server s : servers) {
      assertThat(Files.readString(s.log)).as("log of %s", s.port).doesNotContain("password");
    }
  }

  static void signal(Server s, String signal) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(s.process.pid())).inheritIO().start();
    assertThat(p.waitFor()).isZero();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** One server process (a main class on the test class path, as java -jar runs it). */
  static final class Server {
    final Path dir;
    final int port;
    final List<String> keys;
    final Path log;
    volatile Process process;

    Server(Path dir, int port, List<String> keys) {
      this.dir = dir;
      this.port = port;
      this.keys = keys;
      this.log = dir.resolve("server.log");
    }

    void start() throws IOException {
      Files.createDirectories(dir);
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx192m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
          GeneIdServerMain.class.getName(), "--http-port", Integer.toString(port), "--grpc-port", "-1",
          "--data-dir", dir.toString()));
      for (String k : keys) {
        cmd.add("--set");
        cmd.add(k);
      }
      process = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    void assertReady(String what) throws Exception {
      if (!awaitReady(TestTime.seconds(60))) {
        throw new AssertionError(what + " server on port " + port + " not ready; its log:\n" + Files.readString(log));
      }
    }

    boolean awaitReady(Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          return false;
        }
        try {
          HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
              + "/health/ready")).timeout(CALL_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200) {
            return true;
          }
        } catch (IOException e) {
          // not listening yet
        }
        Thread.sleep(100);
      }
      return false;
    }
  }

  /** A client thread asking every server in turn; keeps every id it receives, and when, and from whom. */
  static final class Client {
    final Server[] servers;
    final AtomicBoolean stop;
    final Thread thread;
    final AtomicLong refused = new AtomicLong();
    private final LongList snowflake = new LongList();
    private final LongList segment = new LongList();
    private final List<long[]> receipts = new ArrayList<>(); // [server index, nanoTime, ids]

    Client(Server[] servers, AtomicBoolean stop) {
      this.servers = servers;
      this.stop = stop;
      this.thread = new Thread(this::loop, "client");
    }

    private void loop() {
      int i = ThreadLocalRandom.current().nextInt(servers.length);
      while (!stop.get()) {
        i = (i + 1) % servers.length;
        boolean seg = ThreadLocalRandom.current().nextInt(4) == 0;
        String query = switch (ThreadLocalRandom.current().nextInt(3)) {
          case 0 -> "count=20";
          case 1 -> "count=20&gene=" + ThreadLocalRandom.current().nextInt(64);
          default -> "count=1&parent=" + ThreadLocalRandom.current().nextLong();
        };
        String path = (seg ? "/v1/segments/order/ids?" : "/v1/ids?") + query;
        try {
          HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
              + servers[i].port + path)).timeout(CALL_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() != 200) {
            refused.incrementAndGet();
            continue;
          }
          JsonNode ids = JSON.readTree(r.body()).get("ids");
          synchronized (this) {
            for (JsonNode n : ids) {
              (seg ? segment : snowflake).add(Long.parseLong(n.asText()));
            }
            receipts.add(new long[] {i, System.nanoTime(), ids.size()});
          }
        } catch (IOException e) {
          refused.incrementAndGet(); // a killed or paused server
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    synchronized long receivedAfter(Server s, long nanos) {
      int index = Arrays.asList(servers).indexOf(s);
      return receipts.stream().filter(r -> r[0] == index && r[1] > nanos).mapToLong(r -> r[2]).sum();
    }

    synchronized long[] ids(String kind) {
      return kind.equals("segment") ? segment.toArray() : snowflake.toArray();
    }
  }

  /** A growable array of longs. */
  static final class LongList {
    private long[] a = new long[1024];
    private int n;

    void add(long v) {
      if (n == a.length) {
        a = Arrays.copyOf(a, n * 2);
      }
      a[n++] = v;
    }

    long[] toArray() {
      return Arrays.copyOf(a, n);
    }
  }

}
