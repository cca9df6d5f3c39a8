package io.geneid.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * A gene-id server of the documented HTTP shapes (docs/server.md) on the JDK's HTTP server, for what the real server
 * cannot be made to do on purpose: answer ids of the wrong gene, hang, or fail. Ids come from an unshared
 * {@link GeneSnowflakeGenerator} on its own worker id, segment values from a counter. Public for the tests of
 * {@code GENE_SERVER} in gene-id-shardingsphere (this module's test-jar).
 */
public final class FakeServer implements AutoCloseable {

  /** How the server answers {@code /v1/ids} and {@code /v1/segments/{key}/ids}. */
  public enum Mode { OK, UNAVAILABLE, WRONG_GENE, HANG, NOT_JSON }

  final GeneIdLayout layout;
  private final HttpServer http;
  private final GeneSnowflakeGenerator ids;
  private final AtomicLong segmentValues = new AtomicLong();
  final AtomicInteger idRequests = new AtomicInteger();
  /** How it answers now. */
  public volatile Mode mode = Mode.OK;

  private final long workerId;
  private final String instance = java.util.UUID.randomUUID().toString();

  /** A server on a free loopback port whose snowflake ids have {@code layout} and {@code workerId}. */
  public FakeServer(GeneIdLayout layout, long workerId) throws IOException {
    this.layout = layout;
    this.ids = GeneSnowflakeGenerator.builder().layout(layout).workerId(workerId).buildUnshared();
    this.workerId = workerId;
    this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-gene-id-server");
      t.setDaemon(true);
      return t;
    }));
    http.createContext("/", this::handle);
    http.start();
  }

  /** Its base URL, {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + http.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      if (path.equals("/v1/info")) {
        send(exchange, 200, "{\"epochMillis\":\"" + layout.epoch().toEpochMilli() + "\",\"timestampBits\":"
            + layout.timestampBits() + ",\"workerBits\":" + layout.workerBits() + ",\"sequenceBits\":"
            + layout.sequenceBits() + ",\"geneBits\":" + layout.geneBits() + ",\"workerId\":" + workerId + ",\"issuing\":true,"
            + "\"maxCount\":10000,\"version\":\"fake\",\"instance\":\"" + instance + "\"}");
        return;
      }
      Mode m = mode;
      if (m == Mode.HANG) {
        try {
          Thread.sleep(30_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return;
      }
      if (m == Mode.UNAVAILABLE) {
        send(exchange, 503, "{\"code\":\"unavailable\",\"reason\":\"fenced: the lease lapsed\"}");
        return;
      }
      if (m == Mode.NOT_JSON) {
        send(exchange, 200, "<html>a proxy</html>");
        return;
      }
      int count = Integer.parseInt(query.getOrDefault("count", "1"));
      long gene = Long.parseLong(query.getOrDefault("gene", "0"));
      long[] issued;
      if (path.equals("/v1/ids")) {
        idRequests.incrementAndGet();
        issued = ids.nextIdsFor(m == Mode.WRONG_GENE ? gene + 1 : gene, count);
      } else if (path.startsWith("/v1/segments/") && path.endsWith("/ids")) {
        String key = path.substring("/v1/segments/".length(), path.length() - "/ids".length());
        if (key.equals("unknown")) {
          send(exchange, 404, "{\"code\":\"unknown_key\",\"reason\":\"segment key 'unknown' is not configured\"}");
          return;
        }
        long first = segmentValues.getAndAdd(count) + 1;
        issued = LongStream.range(first, first + count).map(v -> v << layout.geneBits() | gene).toArray();
      } else {
        send(exchange, 404, "{\"code\":\"not_found\",\"reason\":\"no endpoint " + path + "\"}");
        return;
      }
      send(exchange, 200, "{\"ids\":[" + LongStream.of(issued).mapToObj(id -> "\"" + id + "\"")
          .collect(Collectors.joining(",")) + "],\"gene\":" + gene + "}");
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> map = new HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        map.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return map;
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** {@code /v1/ids} requests answered so far. */
  public int idRequests() {
    return idRequests.get();
  }

  @Override
  public void close() {
    http.stop(0);
  }
}
