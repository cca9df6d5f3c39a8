package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spec-vectors.json through the running server's HTTP API: genes of numeric, string and UUID keys and routing
 * (GET /v1/route), the layout's decoding (GET /v1/ids/{id}), string ids (GET /v1/strings/{text}). One server per
 * gene width and per layout of the vectors.
 */
class SpecVectorsServerTest {
  @TempDir static Path dir;
  static JsonNode vectors;

  @BeforeAll
  static void load() throws Exception {
    vectors = TestServer.JSON.readTree(Files.readString(Path.of("..", "docs", "spec-vectors.json"),
        StandardCharsets.UTF_8));
  }

  static List<JsonNode> group(String name) {
    List<JsonNode> out = new ArrayList<>();
    vectors.get(name).forEach(out::add);
    assertThat(out).as(name).isNotEmpty();
    return out;
  }

  /** A layout of the default epoch with G gene bits (T = 41, the rest split between worker and sequence). */
  static Map<String, String> layoutWithGeneBits(int g) {
    int rest = 22 - g;
    return Map.of("timestamp-bits", "41", "worker-bits", Integer.toString(rest / 2),
        "sequence-bits", Integer.toString(rest - rest / 2), "gene-bits", Integer.toString(g));
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Test
  void genesAndRoutingThroughTheServer() {
    Map<Integer, List<String[]>> byBits = new TreeMap<>(); // geneBits -> [query, expected gene, expected index]
    for (JsonNode v : group("geneOfNumber")) {
      byBits.computeIfAbsent(v.get("geneBits").asInt(), k -> new ArrayList<>())
          .add(new String[] {"parent=" + enc(v.get("key").asText()), v.get("gene").asText(), null});
    }
    for (JsonNode v : group("geneOfString")) {
      byBits.computeIfAbsent(v.get("geneBits").asInt(), k -> new ArrayList<>())
          .add(new String[] {"parentString=" + enc(v.get("key").asText()), v.get("gene").asText(), null});
    }
    for (JsonNode v : group("geneOfUuid")) {
      byBits.computeIfAbsent(v.get("geneBits").asInt(), k -> new ArrayList<>())
          .add(new String[] {"parentUuid=" + enc(v.get("key").asText()), v.get("gene").asText(), null});
    }
    for (JsonNode v : group("routing")) {
      byBits.computeIfAbsent(v.get("geneBits").asInt(), k -> new ArrayList<>())
          .add(new String[] {"gene=" + v.get("gene").asText() + "&shardingCount=" + v.get("shardingCount").asText()
              + "&geneDivisor=" + v.get("geneDivisor").asText(), v.get("gene").asText(), v.get("index").asText()});
    }
    int checked = 0;
    for (var e : byBits.entrySet()) {
      Map<String, String> keys = new LinkedHashMap<>(layoutWithGeneBits(e.getKey()));
      keys.put("grpc-port", "-1");
      keys.put("worker-id", "0");
      try (TestServer s = TestServer.start(dir.resolve("g" + e.getKey()), keys)) {
        for (String[] c : e.getValue()) {
          String q = c[0].startsWith("gene=") ? c[0] : c[0] + "&shardingCount=1";
          TestServer.Answer a = s.get("/v1/route?" + q);
          assertThat(a.status()).as("G=%s %s: %s", e.getKey(), q, a.body()).isEqualTo(200);
          assertThat(a.json().get("gene").asText()).as("G=%s %s", e.getKey(), q).isEqualTo(c[1]);
          if (c[2] != null) {
            assertThat(a.json().get("index").asText()).as("G=%s %s", e.getKey(), q).isEqualTo(c[2]);
          }
          checked++;
        }
      }
    }
    assertThat(checked).isEqualTo(group("geneOfNumber").size() + group("geneOfString").size()
        + group("geneOfUuid").size() + group("routing").size());
  }

  @Test
  void idsDecodeAsTheLayoutSays() {
    Map<String, List<JsonNode>> byLayout = new LinkedHashMap<>();
    for (JsonNode v : group("layouts")) {
      String key = v.get("epochMillis").asText() + "/" + v.get("timestampBits") + "/" + v.get("workerBits") + "/"
          + v.get("sequenceBits") + "/" + v.get("geneBits");
      byLayout.computeIfAbsent(key, k -> new ArrayList<>()).add(v);
    }
    int i = 0;
    int skipped = 0;
    for (List<JsonNode> vs : byLayout.values()) {
      JsonNode l = vs.get(0);
      Map<String, String> keys = new LinkedHashMap<>();
      keys.put("epoch", Instant.ofEpochMilli(l.get("epochMillis").asLong()).toString());
      keys.put("timestamp-bits", l.get("timestampBits").asText());
      keys.put("worker-bits", l.get("workerBits").asText());
      keys.put("sequence-bits", l.get("sequenceBits").asText());
      keys.put("gene-bits", l.get("geneBits").asText());
      keys.put("grpc-port", "-1");
      keys.put("worker-id", "0");
      try {
        ServerConfig.from(keys);
      } catch (IllegalArgumentException ranOut) {
        // a layout whose timestamps ran out cannot issue, and the server refuses it at start-up: these vectors
        // decode in gene-id-core's SpecVectorsTest only
        assertThat(ranOut.getMessage()).contains("timestamp");
        skipped += vs.size();
        continue;
      }
      try (TestServer s = TestServer.start(dir.resolve("l" + i++), keys)) {
        for (JsonNode v : vs) {
          TestServer.Answer a = s.get("/v1/ids/" + v.get("id").asText());
          assertThat(a.status()).as("%s: %s", v, a.body()).isEqualTo(200);
          JsonNode d = a.json();
          assertThat(d.get("timestampMillis").asText()).as("%s", v).isEqualTo(v.get("timestampMillis").asText());
          assertThat(d.get("workerId").asLong()).as("%s", v).isEqualTo(v.get("workerId").asLong());
          assertThat(d.get("sequence").asLong()).as("%s", v).isEqualTo(v.get("sequence").asLong());
          assertThat(d.get("gene").asLong()).as("%s", v).isEqualTo(v.get("gene").asLong());
        }
      }
    }
    assertThat(skipped).as("vectors of layouts that ran out").isLessThan(group("layouts").size() / 2);
  }

  @Test
  void stringIdsParseAndBadOnesAreRefused() {
    try (TestServer s = TestServer.start(dir.resolve("strings"), Map.of("grpc-port", "-1", "worker-id", "0"))) {
      for (JsonNode v : group("stringIds")) {
        TestServer.Answer a = s.get("/v1/strings/" + enc(v.get("string").asText()) + "?prefix="
            + enc(v.get("prefix").asText()) + "&date=" + v.get("date").asBoolean());
        assertThat(a.status()).as("%s: %s", v, a.body()).isEqualTo(200);
        assertThat(a.json().get("id").asText()).as("%s", v).isEqualTo(v.get("id").asText());
        assertThat(a.json().get("gene").asLong()).as("%s", v).isEqualTo(v.get("gene").asLong());
      }
      for (JsonNode v : group("badStringIds")) {
        TestServer.Answer a = s.get("/v1/strings/" + enc(v.get("string").asText()) + "?prefix="
            + enc(v.get("prefix").asText()) + "&date=" + v.get("date").asBoolean());
        assertThat(a.status()).as("%s: %s", v, a.body()).isEqualTo(400);
        assertThat(a.json().get("code").asText()).isEqualTo("invalid_argument");
      }
    }
  }
}
