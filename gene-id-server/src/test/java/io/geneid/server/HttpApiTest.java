package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.GeneRouting;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every HTTP endpoint of docs/server.md against a server in this JVM (static worker id, embedded H2 segments). */
class HttpApiTest {
  @TempDir static Path dir;
  static TestServer s;
  static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  @BeforeAll
  static void start() {
    s = TestServer.startReady(dir, Map.of("worker-id", "11", "segment-keys", "order,item", "max-count", "5000"));
  }

  @AfterAll
  static void stop() {
    s.close();
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Test
  void spreadIdsAreUniqueAndCarryEveryGene() {
    long[] ids = s.ids("/v1/ids?count=128");
    assertThat(ids).hasSize(128);
    assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(128);
    Set<Long> genes = new HashSet<>();
    for (long id : ids) {
      genes.add(LAYOUT.geneOf(id));
      assertThat(LAYOUT.decode(id).workerId()).isEqualTo(11);
    }
    assertThat(genes).hasSize(64);
    assertThat(s.get("/v1/ids").json().get("gene")).as("no gene for spread ids").isNull();
    assertThat(s.ids("/v1/ids")).hasSize(1);
  }

  @Test
  void idsCarryTheGeneOfTheirParentWhateverItsKind() {
    UUID uuid = UUID.fromString("3f2504e0-4f89-11d3-9a0c-0305e82c3301");
    Map<String, Long> cases = Map.of(
        "gene=5", 5L,
        "parent=1234567890123", LAYOUT.geneOf(1234567890123L),
        "parent=-1", 63L,
        "parent=" + "18446744073709551617", 1L, // wider than 64 bits: its low bits
        "parentString=" + enc("customer-42 é"), LAYOUT.geneOf("customer-42 é"),
        "parentUuid=" + uuid.toString().toUpperCase(), LAYOUT.geneOfKey(uuid));
    cases.forEach((param, gene) -> {
      TestServer.Answer a = s.get("/v1/ids?count=300&" + param);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.json().get("gene").asLong()).as(param).isEqualTo(gene);
      long previous = -1;
      for (JsonNode n : a.json().get("ids")) {
        long id = Long.parseLong(n.asText());
        assertThat(LAYOUT.geneOf(id)).as(param).isEqualTo(gene);
        assertThat(id).as("ids of one gene ascend").isGreaterThan(previous);
        previous = id;
      }
    });
  }

  @Test
  void countOutsideItsRangeIsRefusedWithTheLimit() {
    assertError(s.get("/v1/ids?count=5001"), 400, "invalid_argument", "count must be in [1, 5000] but was 5001");
    assertError(s.get("/v1/ids?count=0"), 400, "invalid_argument", "count must be in [1, 5000] but was 0");
    assertError(s.get("/v1/segments/order/ids?count=5001"), 400, "invalid_argument",
        "count must be in [1, 5000] but was 5001");
    assertError(s.get("/v1/strings?count=-3"), 400, "invalid_argument", "count must be in [1, 5000] but was -3");
    assertError(s.get("/v1/ids?count=ten"), 400, "invalid_argument", "count must be a whole number but was 'ten'");
    assertThat(s.ids("/v1/ids?count=5000")).hasSize(5000);
  }

  @Test
  void badParametersAreRefusedNamingThem() {
    assertError(s.get("/v1/ids?gene=64"), 400, "invalid_argument", "gene must be in [0, 63] but was 64");
    assertError(s.get("/v1/ids?gene=-1"), 400, "invalid_argument", "gene must be in [0, 63] but was -1");
    assertError(s.get("/v1/ids?gene=1&parentString=a"), 400, "invalid_argument",
        "give at most one of gene, parent, parentString, parentUuid; got gene and parentString");
    assertError(s.get("/v1/ids?parent=12x"), 400, "invalid_argument",
        "parent must be a decimal whole number but was '12x'");
    assertError(s.get("/v1/ids?parentUuid=not-a-uuid"), 400, "invalid_argument",
        "parentUuid must be a UUID of 36 characters (8-4-4-4-12 hexadecimal digits) but was 'not-a-uuid'");
    assertError(s.get("/v1/ids?cnt=2"), 400, "invalid_argument",
        "unknown parameter 'cnt'; allowed: [count, gene, parent, parentString, parentUuid]");
    assertError(s.get("/v1/ids?count=1&count=2"), 400, "invalid_argument",
        "parameter 'count' is given 2 times; give it once");
    assertError(s.get("/v1/nothing"), 404, "not_found", "no endpoint /v1/nothing; see docs/server.md");
    assertError(s.get("/v1/ids/-5"), 400, "invalid_argument",
        "an id must be a decimal whole number in [0, 9223372036854775807] but was '-5'");
  }

  @Test
  void onlyGetIsServedAndBodiesAreRefused() {
    TestServer.Answer post = TestServer.send(HttpRequest.newBuilder(URI.create(url("/v1/ids")))
        .POST(HttpRequest.BodyPublishers.noBody()).build());
    assertError(post, 405, "method_not_allowed", "only GET is served, not POST");
    assertThat(post.response().headers().firstValue("allow")).hasValue("GET");
    TestServer.Answer body = TestServer.send(HttpRequest.newBuilder(URI.create(url("/v1/ids")))
        .method("GET", HttpRequest.BodyPublishers.ofString("{\"count\":3}")).build());
    assertThat(body.status()).isEqualTo(413);
    assertThat(body.json().get("code").asText()).isEqualTo("payload_too_large");
  }

  @Test
  void headersAboveTheLimitAre413() {
    TestServer.Answer a = s.get("/v1/ids", "X-Padding", "x".repeat(9000));
    assertError(a, 413, "payload_too_large", "the request line and headers exceed max-request-bytes 8192");
  }

  @Test
  void segmentIdsOfAKeyAreUniqueIncreasingAndCarryTheGene() {
    long[] a = s.ids("/v1/segments/order/ids?count=1000&gene=3");
    long[] b = s.ids("/v1/segments/order/ids?count=1500");
    for (int i = 0; i < a.length; i++) {
      assertThat(a[i] & 63).isEqualTo(3);
      if (i > 0) {
        assertThat(a[i]).isGreaterThan(a[i - 1]);
      }
    }
    Set<Long> all = new HashSet<>();
    Arrays.stream(a).forEach(all::add);
    Arrays.stream(b).forEach(all::add);
    assertThat(all).hasSize(2500);
    TestServer.Answer item = s.get("/v1/segments/item/ids?count=2&parentString=" + enc("customer-42"));
    assertThat(item.json().get("key").asText()).isEqualTo("item");
    assertThat(item.json().get("gene").asLong()).isEqualTo(LAYOUT.geneOf("customer-42"));
    JsonNode keys = s.get("/v1/segments").json().get("keys");
    assertThat(keys.findValuesAsText("key")).contains("order", "item");
  }

  @Test
  void anUnknownSegmentKeyIs404AndABadOne400() {
    assertError(s.get("/v1/segments/payment/ids"), 404, "unknown_key",
        "segment key 'payment' is not configured; configured keys: [item, order] (set segment-keys, or "
            + "segment-create-keys=true to serve any key)");
    assertError(s.get("/v1/segments/a%20b/ids"), 400, "invalid_argument",
        "segment key must be 1 to 128 of A-Z a-z 0-9 . _ - : but was 'a b'");
  }

  @Test
  void stringIdsFollowTheFormatAndDecodeBack() {
    TestServer.Answer a = s.get("/v1/strings?count=3&prefix=ORD&date=true&gene=7");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    GeneIdStringFormat f = GeneIdStringFormat.builder().prefix("ORD").date(LAYOUT).build();
    for (JsonNode n : a.json().get("ids")) {
      long id = f.parse(n.asText());
      assertThat(LAYOUT.geneOf(id)).isEqualTo(7);
      JsonNode d = s.get("/v1/strings/" + n.asText() + "?prefix=ORD&date=true").json();
      assertThat(d.get("id").asText()).isEqualTo(Long.toString(id));
      assertThat(d.get("gene").asLong()).isEqualTo(7);
    }
    assertThat(s.get("/v1/strings?count=1").json().get("ids").get(0).asText()).hasSize(13);
    assertError(s.get("/v1/strings?prefix=" + enc("a b")), 400, "invalid_argument", null);
    assertError(s.get("/v1/strings/ORD000?prefix=ORD"), 400, "invalid_argument", null);
    assertError(s.get("/v1/strings?date=yes"), 400, "invalid_argument", "date must be true or false but was 'yes'");
  }

  @Test
  void decodeGivesTheLayoutsParts() {
    long id = s.ids("/v1/ids?gene=9")[0];
    JsonNode d = s.get("/v1/ids/" + id).json();
    var parts = LAYOUT.decode(id);
    assertThat(d.get("id").asText()).isEqualTo(Long.toString(id));
    assertThat(d.get("timestamp").asText()).isEqualTo(parts.timestamp().toString());
    assertThat(d.get("timestampMillis").asText()).isEqualTo(Long.toString(parts.timestamp().toEpochMilli()));
    assertThat(d.get("workerId").asLong()).isEqualTo(11);
    assertThat(d.get("sequence").asLong()).isEqualTo(parts.sequence());
    assertThat(d.get("gene").asLong()).isEqualTo(9);
    assertThat(Instant.parse(d.get("timestamp").asText())).isCloseTo(Instant.now(),
        org.assertj.core.api.Assertions.within(10, java.time.temporal.ChronoUnit.SECONDS));
  }

  @Test
  void routeIsTheSpecsGeneMod() {
    long id = s.ids("/v1/ids?parent=1000003")[0];
    GeneRouting tables = new GeneRouting(4, 2, 6);
    JsonNode r = s.get("/v1/ids/" + id + "/route?shardingCount=4&geneDivisor=2").json();
    assertThat(r.get("gene").asLong()).isEqualTo(3);
    assertThat(r.get("index").asInt()).isEqualTo(tables.index(3));
    JsonNode byParent = s.get("/v1/route?shardingCount=4&geneDivisor=2&parent=1000003").json();
    assertThat(byParent).isEqualTo(r);
    JsonNode byString = s.get("/v1/route?shardingCount=3&parentString=customer-42").json();
    assertThat(byString.get("index").asInt()).isEqualTo((int) (LAYOUT.geneOf("customer-42") % 3));
    assertError(s.get("/v1/route?shardingCount=65&gene=1"), 400, "invalid_argument",
        "shardingCount must be in [1, 64] but was 65");
    assertError(s.get("/v1/route?shardingCount=16&geneDivisor=8&gene=1"), 400, "invalid_argument", null);
    assertError(s.get("/v1/route?shardingCount=4"), 400, "invalid_argument",
        "give what to route: id, gene, parent, parentString or parentUuid");
    assertError(s.get("/v1/route?gene=3"), 400, "invalid_argument", "shardingCount is required");
  }

  @Test
  void infoHealthAndMetrics() {
    JsonNode info = s.get("/v1/info").json();
    assertThat(info.get("epochMillis").asText()).isEqualTo("1735689600000");
    assertThat(info.get("geneBits").asInt()).isEqualTo(6);
    assertThat(info.get("workerId").asLong()).isEqualTo(11);
    assertThat(info.get("issuing").asBoolean()).isTrue();
    assertThat(info.get("maxCount").asInt()).isEqualTo(5000);
    assertThat(s.get("/health/live").json().get("status").asText()).isEqualTo("UP");
    TestServer.Answer ready = s.get("/health/ready");
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().get("workerId").asLong()).isEqualTo(11);
    s.ids("/v1/ids?count=7");
    TestServer.Answer m = s.get("/metrics");
    assertThat(m.status()).isEqualTo(200);
    assertThat(m.body()).contains("geneid_server_ids_issued_total{kind=\"snowflake\",protocol=\"http\"}",
        "geneid_server_request_seconds_bucket{endpoint=\"ids\"", "geneid_server_batch_size",
        "geneid_server_lease_issuing 1.0", "geneid_server_worker_id 11.0", "jvm_memory_used_bytes");
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", s.server.httpPort())) {
      socket.setSoTimeout(10_000);
      String req = "GET /v1/segments/order/ids HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /v1/ids/42 HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /v1/segments/item/ids HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write(req.getBytes(StandardCharsets.US_ASCII));
      String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int order = all.indexOf("\"key\":\"order\"");
      int decode = all.indexOf("\"id\":\"42\"");
      int item = all.indexOf("\"key\":\"item\"");
      assertThat(order).isPositive();
      assertThat(decode).isGreaterThan(order);
      assertThat(item).isGreaterThan(decode);
    }
  }

  static void assertError(TestServer.Answer a, int status, String code, String reason) {
    assertThat(a.status()).as(a.body()).isEqualTo(status);
    JsonNode j = a.json();
    assertThat(j.get("code").asText()).isEqualTo(code);
    if (reason != null) {
      assertThat(j.get("reason").asText()).isEqualTo(reason);
    } else {
      assertThat(j.get("reason").asText()).isNotBlank();
    }
    assertThat(a.body()).doesNotContain("\tat ", "Exception");
  }

  static String url(String path) {
    return "http://127.0.0.1:" + s.server.httpPort() + path;
  }

}
