package io.geneid.client;

import io.geneid.server.GeneIdServer;
import io.geneid.server.ServerConfig;
import io.geneid.core.testing.TestTime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Real gene-id servers in this JVM, each on a free loopback port with its embedded defaults (a static worker id
 * with a mark file, segments in an H2 file) under a fresh temporary data directory, HTTP only.
 */
final class TestServers {

  private TestServers() {}

  /**
   * A ready server with worker id {@code workerId} (servers of one JVM need distinct worker ids), serving segment
   * key {@code order}, plus {@code extra} configuration.
   */
  static GeneIdServer start(int workerId, String... extra) {
    Map<String, String> config = new HashMap<>();
    try {
      config.put("data-dir", Files.createTempDirectory("gene-id-client-test").toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    config.put("http-port", "0");
    config.put("grpc-port", "-1");
    config.put("worker-id", Integer.toString(workerId));
    config.put("segment-keys", "order,item");
    config.put("drain-timeout", "0s");
    for (int i = 0; i < extra.length; i += 2) {
      config.put(extra[i], extra[i + 1]);
    }
    GeneIdServer server = GeneIdServer.start(ServerConfig.from(config));
    if (!server.awaitReady(TestTime.seconds(30))) {
      server.close();
      throw new IllegalStateException("the test server with worker id " + workerId + " did not become ready");
    }
    return server;
  }

  static String url(GeneIdServer server) {
    return "http://127.0.0.1:" + server.httpPort();
  }

  /** An address where nothing listens (a port just bound and released). */
  static String deadAddress() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
