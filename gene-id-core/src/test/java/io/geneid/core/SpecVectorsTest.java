package io.geneid.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/spec-vectors.json, written by docs/spec-vectors.py from docs/spec.md without calling gene-id, checked against
 * the public API: the gene of numeric, string and UUID keys, the bit layout both ways, GENE_MOD's routing and
 * GENE_INTERVAL's interval of an id, and the ids of an instant. A
 * service in another language that passes these vectors routes gene ids as gene-id does.
 */
class SpecVectorsTest {

  private static JsonNode vectors;

  @BeforeAll
  static void load() throws Exception {
    vectors = new ObjectMapper().readTree(Files.readString(Path.of("..", "docs", "spec-vectors.json"),
        StandardCharsets.UTF_8));
  }

  private static Iterable<JsonNode> group(String name) {
    JsonNode group = vectors.get(name);
    assertThat(group).as("vector group %s", name).isNotNull();
    assertThat(group.size()).as("vectors in %s", name).isPositive();
    return group;
  }

  @Test
  void theGeneOfANumericKeyIsItsLowBits() {
    for (JsonNode v : group("geneOfNumber")) {
      BigInteger key = new BigInteger(v.get("key").asText());
      int g = v.get("geneBits").asInt();
      long gene = v.get("gene").asLong();
      assertThat(Genes.ofKey(key, g)).as("%s", v).isEqualTo(gene);
      if (key.bitLength() < 64) { // fits a long
        assertThat(Genes.of(key.longValueExact(), g)).as("%s", v).isEqualTo(gene);
        assertThat(Genes.ofKey(key.longValueExact(), g)).as("%s", v).isEqualTo(gene);
      }
    }
  }

  @Test
  void theGeneOfAStringIsItsCrc32cOfUtf8Masked() {
    for (JsonNode v : group("geneOfString")) {
      String key = v.get("key").asText();
      byte[] utf8 = HexFormat.of().parseHex(v.get("utf8").asText());
      assertThat(key.getBytes(StandardCharsets.UTF_8)).as("%s", v).isEqualTo(utf8);
      CRC32C crc = new CRC32C();
      crc.update(utf8);
      assertThat(String.format("%08x", crc.getValue())).as("%s", v).isEqualTo(v.get("crc32c").asText());
      assertThat(Genes.of(key, v.get("geneBits").asInt())).as("%s", v).isEqualTo(v.get("gene").asLong());
    }
  }

  @Test
  void theGeneOfAUuidIsTheStringRuleOverItsCanonicalForm() {
    for (JsonNode v : group("geneOfUuid")) {
      UUID key = UUID.fromString(v.get("key").asText());
      assertThat(key.toString()).isEqualTo(v.get("canonical").asText());
      assertThat(Genes.ofKey(key, v.get("geneBits").asInt())).as("%s", v).isEqualTo(v.get("gene").asLong());
    }
  }

  @Test
  void idsDecodeAndEncodeAsTheLayoutSays() {
    for (JsonNode v : group("layouts")) {
      GeneIdLayout layout = GeneIdLayout.builder()
          .epoch(Instant.ofEpochMilli(v.get("epochMillis").asLong()))
          .timestampBits(v.get("timestampBits").asInt())
          .workerBits(v.get("workerBits").asInt())
          .sequenceBits(v.get("sequenceBits").asInt())
          .geneBits(v.get("geneBits").asInt())
          .build();
      long id = Long.parseLong(v.get("id").asText());
      // epoch + 2^63 - 1 ms (T = 63) is beyond a long of milliseconds, not beyond an Instant
      BigInteger[] seconds = new BigInteger(v.get("timestampMillis").asText()).divideAndRemainder(BigInteger.valueOf(1000));
      GeneIdParts parts = new GeneIdParts(Instant.ofEpochSecond(seconds[0].longValueExact(),
          seconds[1].longValueExact() * 1_000_000), v.get("workerId").asLong(), v.get("sequence").asLong(),
          v.get("gene").asLong());
      assertThat(layout.decode(id)).as("%s", v).isEqualTo(parts);
      assertThat(layout.encode(parts)).as("%s", v).isEqualTo(id);
      assertThat(layout.geneOf(id)).as("%s", v).isEqualTo(parts.gene());
    }
  }

  @Test
  void geneModRoutesByGeneDividedThenModulo() {
    for (JsonNode v : group("routing")) {
      GeneRouting routing = new GeneRouting(v.get("shardingCount").asInt(), v.get("geneDivisor").asInt(),
          v.get("geneBits").asInt());
      assertThat(routing.index(v.get("gene").asLong())).as("%s", v).isEqualTo(v.get("index").asInt());
    }
  }

  private static GeneIdLayout layout(JsonNode v) {
    return GeneIdLayout.builder().epoch(Instant.ofEpochMilli(v.get("epochMillis").asLong()))
        .timestampBits(v.get("timestampBits").asInt()).workerBits(v.get("workerBits").asInt())
        .sequenceBits(v.get("sequenceBits").asInt()).geneBits(v.get("geneBits").asInt()).build();
  }

  @Test
  void theIntervalOfAnIdIsThatOfItsOwnTimestampInTheZonesCalendar() {
    for (JsonNode v : group("intervals")) {
      IntervalRouting routing = IntervalRouting.builder().layout(layout(v))
          .zone(java.time.ZoneId.of(v.get("zone").asText()))
          .lower(java.time.LocalDateTime.parse(v.get("datetimeLower").asText().replace(' ', 'T')))
          .unit(java.time.temporal.ChronoUnit.valueOf(v.get("unit").asText()))
          .amount(v.get("amount").asInt())
          .suffixPattern(v.get("suffixPattern").asText())
          .build();
      long id = Long.parseLong(v.get("id").asText());
      assertThat(layout(v).decode(id).timestamp()).as("%s", v)
          .isEqualTo(Instant.ofEpochMilli(Long.parseLong(v.get("timestampMillis").asText())));
      long interval = v.get("interval").asLong();
      assertThat(routing.intervalOf(id)).as("%s", v).isEqualTo(interval);
      assertThat(routing.suffix(interval)).as("%s", v).isEqualTo(v.get("suffix").asText());
      assertThat(routing.suffixOf(id)).as("%s", v).isEqualTo(v.get("suffix").asText());
      assertThat(routing.intervalOfTarget("t_order_" + v.get("suffix").asText())).as("%s", v).hasValue(interval);
    }
  }

  @Test
  void theFirstAndLastIdsOfAnInstantAreItsMillisecondRoundedUpAndDown() {
    for (JsonNode v : group("idsAt")) {
      Instant instant = Instant.parse(v.get("instant").asText());
      assertThat(layout(v).firstIdAt(instant)).as("%s", v).isEqualTo(Long.parseLong(v.get("firstId").asText()));
      assertThat(layout(v).lastIdAt(instant)).as("%s", v).isEqualTo(Long.parseLong(v.get("lastId").asText()));
    }
  }

  private static GeneIdStringFormat format(JsonNode v) {
    GeneIdStringFormat.Builder b = GeneIdStringFormat.builder().prefix(v.get("prefix").asText());
    if (v.get("date").asBoolean()) {
      b.date(GeneIdLayout.defaults());
    }
    return b.build();
  }

  @Test
  void stringIdsAreWrittenAndReadAsTheSpecSays() {
    for (JsonNode v : group("stringIds")) {
      GeneIdStringFormat f = format(v);
      long id = Long.parseLong(v.get("id").asText());
      String text = v.get("string").asText();
      assertThat(f.format(id)).as("%s", v).isEqualTo(text);
      assertThat(f.parse(text)).as("%s", v).isEqualTo(id);
      assertThat(Genes.of(f.parse(text), 6)).as("%s", v).isEqualTo(v.get("gene").asLong());
    }
  }

  @Test
  void badStringIdsAreRefused() {
    for (JsonNode v : group("badStringIds")) {
      GeneIdStringFormat f = format(v);
      assertThatThrownBy(() -> f.parse(v.get("string").asText())).as("%s", v)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
