package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.testing.TestCertificates;
import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.NextIdsRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS on both ports (#40): off by default, a PEM chain and key, optional client certificates, checked at start. */
class TlsTest {

  static Map<String, String> tls(TestCertificates cert, String... more) {
    Map<String, String> keys = new java.util.HashMap<>(Map.of("tls-cert-chain", cert.certificate().toString(),
        "tls-private-key", cert.privateKey().toString()));
    for (int i = 0; i < more.length; i += 2) {
      keys.put(more[i], more[i + 1]);
    }
    return keys;
  }

  /** A JDK TLS context trusting exactly {@code trusted}, presenting {@code client}'s certificate if not null. */
  static SSLContext context(Path trusted, TestCertificates client) throws Exception {
    KeyStore ts = KeyStore.getInstance("PKCS12");
    ts.load(null, null);
    try (InputStream in = Files.newInputStream(trusted)) {
      ts.setCertificateEntry("server", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ts);
    KeyManagerFactory kmf = null;
    if (client != null) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(client.keyStore())) {
        ks.load(in, TestCertificates.PASSWORD.toCharArray());
      }
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, TestCertificates.PASSWORD.toCharArray());
    }
    SSLContext c = SSLContext.getInstance("TLS");
    c.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return c;
  }

  static HttpResponse<String> get(SSLContext tls, String url) throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build();
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static ManagedChannel channel(TestServer s, SslContext tls) {
    return NettyChannelBuilder.forAddress("127.0.0.1", s.server.grpcPort()).sslContext(tls).build();
  }

  static int nextIds(ManagedChannel ch, int count) {
    return GeneIdServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
        .nextIds(NextIdsRequest.newBuilder().setCount(count).build()).getIdsCount();
  }

  @Test
  void httpAndGrpcOverTlsWithASelfSignedCertificate(@TempDir Path dir) throws Exception {
    TestCertificates cert = TestCertificates.create(dir, "server", "localhost");
    try (TestServer s = TestServer.startReady(dir, tls(cert, "worker-id", "60"))) {
      assertThat(s.server.listening()).contains("HTTP on https://127.0.0.1:", "(TLS)", "CN=localhost");
      HttpResponse<String> r = get(context(cert.certificate(), null),
          "https://127.0.0.1:" + s.server.httpPort() + "/v1/ids?count=3");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(TestServer.JSON.readTree(r.body()).get("ids")).hasSize(3);

      ManagedChannel ch = channel(s, GrpcSslContexts.forClient().trustManager(cert.certificate().toFile()).build());
      try {
        assertThat(nextIds(ch, 2)).isEqualTo(2);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      assertThatThrownBy(() -> get(SSLContext.getDefault(), "https://127.0.0.1:" + s.server.httpPort() + "/v1/ids"))
          .as("a client that does not trust the certificate").isInstanceOf(IOException.class);
      assertThatThrownBy(() -> s.get("/v1/ids")).as("plain HTTP on the TLS port")
          .hasCauseInstanceOf(IOException.class);
    }
  }

  @Test
  void aGrpcConnectionAboveTheCapIsRefusedInsideTls(@TempDir Path dir) throws Exception {
    TestCertificates cert = TestCertificates.create(dir, "server", "localhost");
    try (TestServer s = TestServer.startReady(dir, tls(cert, "worker-id", "61", "max-connections", "2"))) {
      // the cap counts both protocols: an HTTP connection (kept open by the client's pool) and a gRPC one
      assertThat(get(context(cert.certificate(), null), "https://127.0.0.1:" + s.server.httpPort() + "/v1/ids")
          .statusCode()).isEqualTo(200);
      SslContext trust = GrpcSslContexts.forClient().trustManager(cert.certificate().toFile()).build();
      ManagedChannel first = channel(s, trust);
      ManagedChannel second = channel(s, trust);
      try {
        assertThat(nextIds(first, 1)).isEqualTo(1);
        assertThatThrownBy(() -> nextIds(second, 1)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).contains("too many connections: max-connections 2 reached");
        });
        assertThat(nextIds(first, 1)).as("the connection within the cap still works").isEqualTo(1);
      } finally {
        first.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        second.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void withTlsClientCaEveryClientPresentsACertificate(@TempDir Path dir) throws Exception {
    TestCertificates cert = TestCertificates.create(dir, "server", "localhost");
    TestCertificates client = TestCertificates.create(dir, "client", "ids-client");
    try (TestServer s = TestServer.startReady(dir, tls(cert, "worker-id", "62",
        "tls-client-ca", client.certificate().toString()))) {
      String url = "https://127.0.0.1:" + s.server.httpPort() + "/v1/ids";
      assertThat(get(context(cert.certificate(), client), url).statusCode()).isEqualTo(200);
      assertThatThrownBy(() -> get(context(cert.certificate(), null), url)).as("no client certificate")
          .isInstanceOf(IOException.class);
      ManagedChannel ch = channel(s, GrpcSslContexts.forClient().trustManager(cert.certificate().toFile())
          .keyManager(client.certificate().toFile(), client.privateKey().toFile()).build());
      try {
        assertThat(nextIds(ch, 1)).isEqualTo(1);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void startUpRefusesMissingUnreadableAndMismatchedFilesNamingTheKey(@TempDir Path dir) {
    TestCertificates a = TestCertificates.create(dir, "a", "localhost");
    TestCertificates b = TestCertificates.create(dir, "b", "localhost");
    String cert = a.certificate().toString();
    String key = a.privateKey().toString();
    assertThatThrownBy(() -> ServerConfig.from(Map.of("tls-cert-chain", cert)))
        .hasMessage("tls-cert-chain and tls-private-key go together: set both (PEM files) for TLS, or neither; "
            + "tls-private-key is missing");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("tls-client-ca", cert)))
        .hasMessage("tls-client-ca needs tls-cert-chain and tls-private-key: client certificates are asked for "
            + "inside TLS");
    Path missing = dir.resolve("missing.pem");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("tls-cert-chain", missing.toString(), "tls-private-key", key)))
        .hasMessage("tls-cert-chain: cannot read " + missing + " (NoSuchFileException)");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("tls-cert-chain", key, "tls-private-key", key)))
        .hasMessageStartingWith("tls-cert-chain: " + key);
    assertThatThrownBy(() -> ServerConfig.from(Map.of("tls-cert-chain", cert, "tls-private-key", cert)))
        .hasMessage("tls-private-key: " + cert + " holds no unencrypted PKCS#8 private key "
            + "(-----BEGIN PRIVATE KEY-----)");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("tls-cert-chain", cert, "tls-private-key",
        b.privateKey().toString())))
        .hasMessage("tls-private-key: the key in " + b.privateKey() + " does not belong to the first certificate of "
            + "tls-cert-chain " + cert + " (CN=localhost)");
    String[] check = LimitsTest.run("--check", "--set", "tls-cert-chain=" + missing, "--set", "tls-private-key=" + key,
        "--data-dir", dir.toString());
    assertThat(check[0]).isEqualTo("2");
    assertThat(check[2]).contains("tls-cert-chain: cannot read " + missing);
  }
}
