package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.TestTime;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** A server in this JVM on free loopback ports, with an HTTP client for it. */
final class TestServer implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Connect and request timeouts, and the wait for readiness, are at the tests' time scale ({@link TestTime}). */
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(TestTime.seconds(5)).build();

  final GeneIdServer server;

  private TestServer(GeneIdServer server) {
    this.server = server;
  }

  /** A server with these keys over the test defaults (free ports, data in {@code dir}, short drain). */
  static TestServer start(Path dir, Map<String, String> keys) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("http-port", "0");
    all.put("grpc-port", "0");
    all.put("data-dir", dir.toString());
    all.put("drain-timeout", "2s");
    all.putAll(keys);
    TestServer s = new TestServer(GeneIdServer.start(ServerConfig.from(all)));
    return s;
  }

  static TestServer startReady(Path dir, Map<String, String> keys) {
    TestServer s = start(dir, keys);
    assertThat(s.server.awaitReady(TestTime.seconds(20))).as("server ready").isTrue();
    return s;
  }

  /** Status and body of a GET. */
  record Answer(int status, String body, HttpResponse<String> response) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException(body, e);
      }
    }
  }

  Answer get(String pathAndQuery, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort()
        + pathAndQuery)).timeout(TestTime.seconds(20)).GET();
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b.build());
  }

  static Answer send(HttpRequest req) {
    try {
      HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body(), r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  long[] ids(String pathAndQuery) {
    Answer a = get(pathAndQuery);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode ids = a.json().get("ids");
    long[] out = new long[ids.size()];
    for (int i = 0; i < out.length; i++) {
      assertThat(ids.get(i).isTextual()).as("ids travel as JSON strings").isTrue();
      out[i] = Long.parseLong(ids.get(i).asText());
    }
    return out;
  }

  @Override
  public void close() {
    server.close();
  }
}
