package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.TestTime;
import com.fasterxml.jackson.databind.JsonNode;
import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.NextIdsRequest;
import io.geneid.core.testing.TestTime;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #40: the server on an open network. Connections are bounded (item 1), pipelining is bounded (2), bad
 * percent-encoding is a 400 (3), nothing waits on an event loop (4), readiness means "can issue now" (5), gRPC bad
 * input (6).
 */
class HardeningTest {

  /**
   * Polls {@code condition} every 20 ms until it holds or {@code base} at the tests' time scale ({@link TestTime})
   * passes.
   */
  static boolean await(Duration base, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TestTime.scaled(base).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  /**
   * Reads until the peer closes (true) or {@code base} at the tests' time scale passes (false); what was read goes to
   * {@code out}.
   */
  static boolean closedWithin(Socket s, Duration base, ByteArrayOutputStream out) throws IOException {
    long deadline = System.nanoTime() + TestTime.scaled(base).toNanos();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[8192];
    while (System.nanoTime() - deadline < 0) {
      s.setSoTimeout((int) Math.max(1, Math.min(500, (deadline - System.nanoTime()) / 1_000_000)));
      try {
        int n = in.read(buf);
        if (n < 0) {
          return true;
        }
        out.write(buf, 0, n);
      } catch (SocketTimeoutException e) {
        // go on waiting
      } catch (IOException reset) {
        return true;
      }
    }
    return false;
  }

  static Socket connect(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setTcpNoDelay(true);
    return s;
  }

  static void send(Socket s, String text) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  static String get(String target) {
    return "GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n";
  }

  /** Reads one HTTP/1.1 response with a Content-Length: status line, headers and body. */
  static String readResponse(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head);
      }
      head.write(b);
      matched = (b == '\r' || b == '\n') && (matched % 2 == 0) == (b == '\r') ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String h = head.toString(StandardCharsets.ISO_8859_1);
    int length = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    return h + new String(body, StandardCharsets.UTF_8);
  }

  // ------------------------------------------------------------------ item 1: connections bounded

  @Test
  void anIdleConnectionIsClosedAfterTheIdleTimeout(@TempDir Path dir) throws Exception {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "40", "idle-timeout", "500ms"));
        Socket c = connect(s.server.httpPort())) {
      send(c, get("/health/live"));
      assertThat(readResponse(c.getInputStream())).startsWith("HTTP/1.1 200");
      assertThat(closedWithin(c, Duration.ofSeconds(20), new ByteArrayOutputStream()))
          .as("an idle keep-alive connection is closed").isTrue();
    }
  }

  @Test
  void aHalfSentRequestIsAnswered408AndClosedAfterTheReadTimeout(@TempDir Path dir) throws Exception {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "41", "read-timeout", "500ms",
        "idle-timeout", "60s"));
        Socket c = connect(s.server.httpPort())) {
      send(c, "GET /v1/ids HTTP/1.1\r\nHost: t\r\n"); // the headers never end
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      assertThat(closedWithin(c, Duration.ofSeconds(20), got)).as("a half-sent request is not kept").isTrue();
      assertThat(got.toString(StandardCharsets.UTF_8)).startsWith("HTTP/1.1 408")
          .contains("\"code\":\"request_timeout\"", "read-timeout 500 ms");
    }
  }

  @Test
  void aConnectionAboveTheCapIsRefusedWith503AndClosed(@TempDir Path dir) throws Exception {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "42", "max-connections", "3"))) {
      Socket[] open = new Socket[3];
      try {
        for (int i = 0; i < open.length; i++) {
          open[i] = connect(s.server.httpPort());
          send(open[i], get("/health/live"));
          assertThat(readResponse(open[i].getInputStream())).startsWith("HTTP/1.1 200");
        }
        try (Socket fourth = connect(s.server.httpPort())) {
          send(fourth, get("/v1/ids"));
          ByteArrayOutputStream got = new ByteArrayOutputStream();
          assertThat(closedWithin(fourth, Duration.ofSeconds(20), got)).isTrue();
          assertThat(got.toString(StandardCharsets.UTF_8)).startsWith("HTTP/1.1 503")
              .contains("\"code\":\"unavailable\"", "max-connections 3");
        }
        open[0].close();
        assertThat(await(Duration.ofSeconds(20), () -> s.get("/health/live").status() == 200))
            .as("a closed connection frees its place").isTrue();
      } finally {
        for (Socket o : open) {
          if (o != null) {
            o.close();
          }
        }
      }
    }
  }

  @Test
  void anIdleGrpcConnectionIsClosed(@TempDir Path dir) throws Exception {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "43", "idle-timeout", "500ms"));
        Socket c = connect(s.server.grpcPort())) {
      assertThat(closedWithin(c, Duration.ofSeconds(20), new ByteArrayOutputStream()))
          .as("a TCP connection to the gRPC port that sends nothing is closed").isTrue();
    }
  }

  static ManagedChannel grpc(TestServer s) {
    return NettyChannelBuilder.forAddress("127.0.0.1", s.server.grpcPort()).usePlaintext().build();
  }

  static int nextIds(ManagedChannel ch) {
    return GeneIdServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
        .nextIds(NextIdsRequest.getDefaultInstance()).getIdsCount();
  }

  @Test
  void aGrpcConnectionAboveTheCapIsRefusedAndTheOthersStillWork(@TempDir Path dir) throws Exception {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "53", "max-connections", "3"))) {
      java.util.List<ManagedChannel> open = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          open.add(grpc(s));
          assertThat(nextIds(open.get(i))).isEqualTo(1);
        }
        ManagedChannel fourth = grpc(s);
        StatusRuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> nextIds(fourth));
        fourth.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        assertThat(refused.getStatus().getCode()).as("%s", refused.getStatus()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(refused.getStatus().getDescription())
            .isEqualTo("too many connections: max-connections 3 reached; retry later or on another server");
        assertThat(refused.getTrailers().get(GrpcApi.ERROR_CODE)).isEqualTo("unavailable");
        for (ManagedChannel ch : open) {
          assertThat(nextIds(ch)).as("the connections within the cap still work").isEqualTo(1);
        }
        open.remove(0).shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        assertThat(await(TestTime.seconds(20), () -> {
          ManagedChannel again = grpc(s);
          try {
            return nextIds(again) == 1;
          } catch (StatusRuntimeException stillFull) {
            return false;
          } finally {
            again.shutdownNow();
          }
        })).as("a closed connection frees its place").isTrue();
      } finally {
        for (ManagedChannel ch : open) {
          ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    }
  }

  // ------------------------------------------------------------------ item 2: backpressure

  @Test
  void aClientThatPipelinesWithoutReadingGetsNoMoreAnswersMadeThanItReads(@TempDir Path dir) throws Exception {
    int requests = 300;
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "44"));
        Socket c = connect(s.server.httpPort())) {
      c.setReceiveBufferSize(64 * 1024);
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < requests; i++) {
        b.append(get("/v1/ids?count=10000"));
      }
      send(c, b.toString());
      assertThat(await(Duration.ofSeconds(30), () -> issued(s) >= 10_000)).as("the first is answered").isTrue();
      // the count of answers made must settle far below the requests sent while the client reads nothing
      long[] last = {-1};
      long[] stableSince = {System.nanoTime()};
      boolean settled = await(Duration.ofSeconds(60), () -> {
        long now = issued(s);
        if (now != last[0]) {
          last[0] = now;
          stableSince[0] = System.nanoTime();
        }
        return now >= requests * 10_000L || System.nanoTime() - stableSince[0] > 1_500_000_000L;
      });
      assertThat(settled).isTrue();
      assertThat(last[0] / 10_000).as("answers made while the client read none").isLessThan(requests / 2);
      InputStream in = c.getInputStream();
      for (int i = 0; i < requests; i++) {
        assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
      }
    }
  }

  static long rejected(TestServer s) {
    long sum = 0;
    for (String line : s.get("/metrics").body().split("\n")) {
      if (line.startsWith("geneid_server_rejected_total{")) {
        sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  static long issued(TestServer s) {
    long sum = 0;
    for (String line : s.get("/metrics").body().split("\n")) {
      if (line.startsWith("geneid_server_ids_issued_total{")) {
        sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  // ------------------------------------------------------------------ item 3: bad percent-encoding

  @Test
  void badPercentEncodingIs400AndLeaksNoInFlightRequest(@TempDir Path dir) throws Exception {
    TestServer s = TestServer.startReady(dir, Map.of("worker-id", "45", "segment-keys", "order",
        "drain-timeout", "60s"));
    try (Socket c = connect(s.server.httpPort())) {
      InputStream in = c.getInputStream();
      send(c, get("/v1/ids?count=%zz"));
      assertThat(readResponse(in)).startsWith("HTTP/1.1 400").contains("{\"code\":\"invalid_argument\",\"reason\":"
          + "\"the query has a bad percent-encoding at 'count=%zz': '%' must be followed by two hexadecimal digits\"}");
      send(c, get("/v1/segments/order/ids?count=2") + get("/v1/ids/%") + get("/v1/ids?count=1"));
      assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
      assertThat(readResponse(in)).startsWith("HTTP/1.1 400")
          .contains("the path has a bad percent-encoding at '/v1/ids/%'");
      assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
    }
    long start = System.nanoTime();
    s.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no request left in flight: close does not wait "
        + "the 60 s drain-timeout").isLessThan(Duration.ofSeconds(30));
  }

  @Test
  void aSemicolonIsNoSeparatorAndInvalidUtf8IsRefused(@TempDir Path dir) {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "46"))) {
      HttpApiTest.assertError(s.get("/v1/ids?count=2;gene=3"), 400, "invalid_argument",
          "count must be a whole number but was '2;gene=3'");
      HttpApiTest.assertError(s.get("/v1/ids?parentString=a%FFb"), 400, "invalid_argument",
          "the query has a bad percent-encoding at 'parentString=a%FFb': the bytes are not UTF-8");
      assertThat(s.get("/v1/ids?parentString=%C3%A9t%C3%A9").status()).isEqualTo(200);
    }
  }

  // ------------------------------------------------------------------ items 4 and 5: the clock behind

  /**
   * A server whose mark file lies {@code aheadMillis} in the future: its ids wait for the clock to pass it. The tests
   * give it {@code aheadMillis} at the tests' time scale: a busy machine's slow start must not reach the mark before
   * the test has seen the clock behind.
   */
  static TestServer clockBehind(Path dir, int workerId, long aheadMillis, Map<String, String> extra)
      throws IOException {
    Files.writeString(dir.resolve("worker-" + workerId + ".mark"),
        Long.toString(System.currentTimeMillis() + aheadMillis) + "\n");
    Map<String, String> keys = new java.util.HashMap<>(extra);
    keys.put("worker-id", Integer.toString(workerId));
    keys.put("clock-backwards-max-wait", "60s");
    TestServer s = TestServer.start(dir, keys);
    assertThat(await(Duration.ofSeconds(20), () -> s.server.workerIdLeased())).isTrue();
    return s;
  }

  @Test
  void anIdCallWhileTheClockIsBehindIsAnswered503AtOnceAndHoldsNoEventLoop(@TempDir Path dir) throws Exception {
    long ahead = TestTime.millis(8_000);
    long mark = System.currentTimeMillis() + ahead;
    try (TestServer s = clockBehind(dir, 47, ahead, Map.of("io-threads", "1"))) {
      assertThat(await(Duration.ofSeconds(5), () -> s.get("/health/ready").status() == 503)).isTrue();
      CompletableFuture<TestServer.Answer> ids = CompletableFuture.supplyAsync(() -> s.get("/v1/ids"));
      TestServer.Answer live = s.get("/health/live");
      assertThat(live.status()).isEqualTo(200);
      TestServer.Answer a = ids.get(60, TimeUnit.SECONDS);
      assertThat(System.currentTimeMillis()).as("answered before the clock reached the mark, without waiting "
          + "for it").isLessThan(mark);
      HttpApiTest.assertError(a, 503, "unavailable", null);
      assertThat(a.json().get("reason").asText()).startsWith("the clock is ");
      assertThat(Integer.parseInt(a.response().headers().firstValue("retry-after").orElseThrow()))
          .as("Retry-After: the seconds the clock needs").isBetween(1, (int) (ahead / 1000) + 1);
    }
  }

  static int inFlight(TestServer s) {
    return s.server.inFlight();
  }

  @Test
  void whileTheClockIsBehindTheServerIsNotReadyAndSaysWhy(@TempDir Path dir) throws Exception {
    try (TestServer s = clockBehind(dir, 48, TestTime.millis(6_000), Map.of("segment-keys", "order"))) {
      TestServer.Answer ready = s.get("/health/ready");
      assertThat(ready.status()).as(ready.body()).isEqualTo(503);
      assertThat(ready.json().get("reason").asText()).startsWith("the clock is ")
          .contains("behind the ids already issued");
      assertThat(s.get("/v1/info").json().get("issuing").asBoolean()).isFalse();
      HttpApiTest.assertError(s.get("/v1/segments/order/ids"), 503, "unavailable", null);
      assertThat(await(Duration.ofSeconds(30), () -> s.get("/health/ready").status() == 200))
          .as("ready once the clock passed the mark").isTrue();
      assertThat(s.get("/v1/info").json().get("issuing").asBoolean()).isTrue();
      assertThat(s.get("/v1/segments/order/ids").status()).isEqualTo(200);
    }
  }

  @Test
  void segmentIdsAreNotServedWhileNotReady(@TempDir Path dir) throws Exception {
    // a lease store that never answers: the worker id is never leased
    try (TestServer s = TestServer.start(dir, Map.of("worker-assigner", "redis",
        "redis-uri", "redis://127.0.0.1:1/0", "space", "hardening-test", "segment-keys", "order"))) {
      TestServer.Answer ready = s.get("/health/ready");
      assertThat(ready.status()).isEqualTo(503);
      TestServer.Answer seg = s.get("/v1/segments/order/ids");
      assertThat(seg.status()).as(seg.body()).isEqualTo(503);
      assertThat(await(Duration.ofSeconds(30), () -> s.get("/health/ready").json().get("reason").asText()
          .contains("127.0.0.1"))).as("readiness names the store's error").isTrue();
    }
  }

  // ------------------------------------------------------------------ item 6: gRPC bad input

  private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  };

  @Test
  void malformedProtobufIsInvalidArgumentAndLargeMetadataIsResourceExhausted(@TempDir Path dir) throws Exception {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "49"))) {
      ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", s.server.grpcPort()).usePlaintext()
          .maxInboundMetadataSize(1 << 20).build();
      try {
        MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("geneid.v1.GeneIdService/NextIds")
            .setRequestMarshaller(RAW).setResponseMarshaller(RAW).build();
        StatusRuntimeException bad = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(ch, raw, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
                new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}));
        assertThat(bad.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(bad.getStatus().getDescription()).startsWith("the request is not a valid NextIdsRequest");

        Metadata m = new Metadata();
        m.put(Metadata.Key.of("x-big", Metadata.ASCII_STRING_MARSHALLER), "x".repeat(9 * 1024));
        var stub = GeneIdServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m));
        GrpcApiTest.assertStatus(() -> stub.nextIds(NextIdsRequest.getDefaultInstance()),
            Status.Code.RESOURCE_EXHAUSTED, "payload_too_large", null);
        try {
          stub.nextIds(NextIdsRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
          assertThat(e.getStatus().getDescription()).matches("the request metadata is 9[0-9]{3} bytes, above "
              + "max-request-bytes 8192");
        }
        // above the transport's bound (64 KiB here), which the server advertises as SETTINGS_MAX_HEADER_LIST_SIZE,
        // grpc-java's client refuses the call itself (docs/server.md says so): nothing reaches the server
        long refusedBefore = rejected(s);
        Metadata huge = new Metadata();
        huge.put(Metadata.Key.of("x-big", Metadata.ASCII_STRING_MARSHALLER), "x".repeat(70 * 1024));
        StatusRuntimeException local = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
            () -> GeneIdServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(huge))
                .nextIds(NextIdsRequest.getDefaultInstance()));
        assertThat(local.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
        assertThat(local.getStatus().getDescription()).isEqualTo("http2 exception");
        assertThat(local.getCause()).hasMessageContaining("Header size exceeded max allowed size (65536)");
        assertThat(rejected(s)).as("the server saw no call").isEqualTo(refusedBefore);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  static JsonNode json(String body) throws IOException {
    return TestServer.JSON.readTree(body);
  }
}
