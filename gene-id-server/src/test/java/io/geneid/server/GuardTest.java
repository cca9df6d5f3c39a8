package io.geneid.server;

import static io.geneid.server.GrpcApiTest.assertStatus;
import static io.geneid.server.HttpApiTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.NextIdsRequest;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bearer tokens, the rate limit, readiness before the lease, and shutdown, on both protocols. */
class GuardTest {
  static final String TOKEN = "s3cret-token-0123456789";
  static final String OTHER = "another-token-9876543210";

  @Test
  void bearerTokensGuardTheApiButNotHealth(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, "# ops\n" + OTHER + "\n");
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "13", "auth-tokens", TOKEN,
        "auth-tokens-file", file.toString(), "access-log", "true"))) {
      assertError(s.get("/v1/ids"), 401, "unauthenticated",
          "this server needs a bearer token: send the header 'Authorization: Bearer <token>'");
      TestServer.Answer wrong = s.get("/v1/ids", "Authorization", "Bearer wrong-token-000000000");
      assertError(wrong, 401, "unauthenticated", "the bearer token is not one of this server's tokens");
      assertThat(wrong.response().headers().firstValue("www-authenticate")).hasValue("Bearer");
      assertThat(wrong.body()).doesNotContain("wrong-token", TOKEN);
      assertThat(s.get("/v1/ids", "Authorization", "Bearer " + TOKEN).status()).isEqualTo(200);
      assertThat(s.get("/v1/ids", "Authorization", "bearer " + OTHER).status()).isEqualTo(200);
      assertThat(s.get("/health/ready").status()).isEqualTo(200);
      assertThat(s.get("/metrics").body()).doesNotContain(TOKEN, OTHER);

      ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", s.server.grpcPort()).usePlaintext().build();
      try {
        var stub = GeneIdServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
        assertStatus(() -> stub.nextIds(NextIdsRequest.getDefaultInstance()), Status.Code.UNAUTHENTICATED,
            "unauthenticated", "this server needs a bearer token: send the header 'Authorization: Bearer <token>'");
        Metadata m = new Metadata();
        m.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + TOKEN);
        assertThat(stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m))
            .nextIds(NextIdsRequest.newBuilder().setCount(3).build()).getIdsCount()).isEqualTo(3);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aShortTokenIsAStartUpErrorThatDoesNotPrintIt(@TempDir Path dir) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ServerConfig.from(Map.of("auth-tokens", "short1")))
        .hasMessage("auth-tokens: every token must be at least 16 printable ASCII characters without spaces; token 1 "
            + "is not")
        .hasMessageNotContaining("short1");
  }

  @Test
  void theRateLimitRefusesAboveTheBurstOnBothProtocols(@TempDir Path dir) throws Exception {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "14", "rate-limit", "0.01",
        "rate-limit-burst", "3"))) {
      for (int i = 0; i < 3; i++) {
        assertThat(s.get("/v1/ids").status()).isEqualTo(200);
      }
      TestServer.Answer a = s.get("/v1/ids");
      assertError(a, 429, "too_many_requests", "rate limit of 0.01 requests per second per client exceeded");
      assertThat(a.response().headers().firstValue("retry-after")).hasValue("1");
      assertThat(s.get("/health/live").status()).as("health is not limited").isEqualTo(200);
      ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", s.server.grpcPort()).usePlaintext().build();
      try {
        assertStatus(() -> GeneIdServiceGrpc.newBlockingStub(ch).nextIds(NextIdsRequest.getDefaultInstance()),
            Status.Code.RESOURCE_EXHAUSTED, "too_many_requests", null);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void notReadyUntilTheWorkerIdIsLeased(@TempDir Path dir) {
    // a second server of this JVM on the same static worker id cannot hold it: it never becomes ready
    try (TestServer first = TestServer.startReady(dir.resolve("a"), Map.of("worker-id", "15"));
        TestServer second = TestServer.start(dir.resolve("b"), Map.of("worker-id", "15"))) {
      assertThat(second.server.awaitReady(Duration.ofSeconds(2))).isFalse();
      TestServer.Answer ready = second.get("/health/ready");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.json().get("status").asText()).isEqualTo("DOWN");
      assertThat(ready.json().get("reason").asText()).startsWith("the worker id could not be leased");
      TestServer.Answer ids = second.get("/v1/ids");
      assertThat(ids.status()).isEqualTo(503);
      assertThat(ids.json().get("code").asText()).isEqualTo("unavailable");
      assertThat(ids.response().headers().firstValue("retry-after")).hasValue("1");
      assertThat(second.get("/v1/ids/42").status()).as("decoding needs no lease").isEqualTo(200);
      assertThat(first.get("/health/ready").status()).isEqualTo(200);
    }
  }

  @Test
  void closeReleasesTheLeaseAndStopsListening(@TempDir Path dir) {
    TestServer s = TestServer.startReady(dir, Map.of("worker-id", "16"));
    int port = s.server.httpPort();
    long before = s.ids("/v1/ids")[0];
    s.close();
    assertThat(s.server.isReady()).isFalse();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.get("/health/live")).isInstanceOf(
        java.io.UncheckedIOException.class);
    // the worker id is free again at once: a new server takes it and issues above the released mark
    try (TestServer again = TestServer.startReady(dir, Map.of("worker-id", "16", "http-port", Integer.toString(port)))) {
      assertThat(again.ids("/v1/ids")[0]).isGreaterThan(before);
    }
  }
}
