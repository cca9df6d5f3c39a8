package io.geneid.core;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class GeneIdLayoutTest {

  @Test
  void defaultsAreTheDocumentedLayout() {
    GeneIdLayout d = GeneIdLayout.defaults();
    assertThat(d.epoch()).isEqualTo(Instant.parse("2025-01-01T00:00:00Z"));
    assertThat(d.timestampBits()).isEqualTo(41);
    assertThat(d.workerBits()).isEqualTo(8);
    assertThat(d.sequenceBits()).isEqualTo(8);
    assertThat(d.geneBits()).isEqualTo(6);
    assertThat(d.workerCount()).isEqualTo(256);
    assertThat(d.maxWorkerId()).isEqualTo(255);
    assertThat(d.geneCount()).isEqualTo(64);
    assertThat(d.maxGene()).isEqualTo(63);
    assertThat(d.idsPerMillisPerGene()).isEqualTo(256);
    assertThat(d.idsPerMillisPerWorker()).isEqualTo(16_384);
    assertThat(d.lastTimestamp()).isEqualTo(Instant.parse("2094-09-07T15:47:35.551Z"));
    assertThat(d.years()).isBetween(69.6, 69.7);
    assertThat(GeneIdLayout.builder().build()).isEqualTo(d);
  }

  @Test
  void theJavascriptSafePresetKeepsIdsBelow2To53ForAsLongAsTheDefaultLasts() {
    GeneIdLayout js = GeneIdLayout.javascriptSafe();
    assertThat(js.geneCount()).isEqualTo(16);
    assertThat(js.workerCount()).isEqualTo(16);
    assertThat(js.idsPerMillisPerWorker()).isEqualTo(256);
    assertThat(js.javaScriptSafeUntil()).isAfterOrEqualTo(GeneIdLayout.defaults().lastTimestamp());
    long jsMax = (1L << 53) - 1;
    // the largest id of the last JavaScript-safe millisecond is 2^53 - 1; the next millisecond's first is not safe
    Instant lastSafe = js.javaScriptSafeUntil().minusMillis(1);
    assertThat(js.encode(new GeneIdParts(lastSafe, js.maxWorkerId(), js.maxSequence(), js.maxGene())))
        .isEqualTo(jsMax);
    assertThat(js.encode(new GeneIdParts(js.javaScriptSafeUntil(), 0, 0, 0))).isGreaterThan(jsMax);
    // ids made today carry their parent's gene and are exact as a JavaScript number (a double)
    GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().layout(js).workerId(15).buildUnshared();
    long child = ids.nextIdFor(4242L);
    assertThat(child).isLessThanOrEqualTo(jsMax);
    assertThat((long) (double) child).isEqualTo(child);
    assertThat(js.decode(child).gene()).isEqualTo(4242L % 16);
  }

  @Test
  void sumMustBe63() {
    assertThatThrownBy(() -> GeneIdLayout.builder().workerBits(10).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timestamp-bits + worker-bits + sequence-bits + gene-bits must be 63 (the defaults are 41 + 8 + 8 + 6) but was 65 (41 + 10 + 8 + 6)");
    assertThatThrownBy(() -> GeneIdLayout.builder().geneBits(0).build())
        .hasMessage("timestamp-bits + worker-bits + sequence-bits + gene-bits must be 63 (the defaults are 41 + 8 + 8 + 6) but was 57 (41 + 8 + 8 + 0)");
  }

  @Test
  void everyFieldNamesItsRange() {
    assertThatThrownBy(() -> GeneIdLayout.builder().geneBits(17).sequenceBits(0).workerBits(5).build())
        .hasMessage("gene-bits must be in [0, 16] but was 17");
    assertThatThrownBy(() -> GeneIdLayout.builder().geneBits(-1).build())
        .hasMessage("gene-bits must be in [0, 16] but was -1");
    assertThatThrownBy(() -> GeneIdLayout.builder().workerBits(-2).build())
        .hasMessage("worker-bits must be in [0, 28] but was -2");
    assertThatThrownBy(() -> GeneIdLayout.builder().sequenceBits(29).build())
        .hasMessage("sequence-bits must be in [0, 28] but was 29");
    assertThatThrownBy(() -> GeneIdLayout.builder().timestampBits(34).workerBits(15).build())
        .hasMessage("timestamp-bits must be in [35, 63] but was 34");
    assertThatThrownBy(() -> GeneIdLayout.builder().timestampBits(64).build())
        .hasMessage("timestamp-bits must be in [35, 63] but was 64");
  }

  @Test
  void epochRules() {
    Instant future = Instant.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    GeneIdLayout fromTheFuture = GeneIdLayout.builder().epoch(future).build(); // a structure: fine to decode with
    assertThatThrownBy(() -> fromTheFuture.checkUsableAt(Instant.now()))
        .hasMessageStartingWith("epoch must be in the past but was " + future + " (now ");
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().layout(fromTheFuture).workerId(1).buildUnshared())
        .hasMessageStartingWith("epoch must be in the past but was " + future + " (now ");
    assertThatThrownBy(() -> GeneIdLayout.builder().epoch(Instant.parse("1969-12-31T00:00:00Z")).build())
        .hasMessage("epoch must be at or after 1970-01-01T00:00:00Z but was 1969-12-31T00:00:00Z");
    assertThatThrownBy(() -> GeneIdLayout.builder().epoch(Instant.parse("2025-01-01T00:00:00.000500Z")).build())
        .hasMessage("epoch must be a whole millisecond but was 2025-01-01T00:00:00.000500Z");
    // 35 bits from 2020 ran out in 2021: no generator issues with it, but its ids still decode (DESIGN 6a)
    GeneIdLayout ranOut = GeneIdLayout.builder().epoch(Instant.parse("2020-01-01T00:00:00Z"))
        .timestampBits(35).workerBits(14).build();
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().layout(ranOut).workerId(1).buildUnshared())
        .hasMessage("timestamp-bits must be enough to reach today from the epoch (choose a later epoch or more"
            + " timestamp bits) but was 35 (from epoch 2020-01-01T00:00:00Z they ran out at 2021-02-01T16:22:18.368Z)");
    long lastId = ranOut.encode(new GeneIdParts(ranOut.lastTimestamp(), 7, 3, 5));
    assertThat(ranOut.decode(lastId)).isEqualTo(new GeneIdParts(Instant.parse("2021-02-01T16:22:18.367Z"), 7, 3, 5));
  }

  @Test
  void classicSnowflakeLayoutHasOneGene() {
    GeneIdLayout classic = GeneIdLayout.builder().workerBits(10).sequenceBits(12).geneBits(0).build();
    assertThat(classic.geneCount()).isEqualTo(1);
    assertThat(classic.geneOf(12345L)).isZero();
    assertThat(classic.geneOf("anything")).isZero();
    assertThat(classic.idsPerMillisPerWorker()).isEqualTo(4096);
  }

  @Test
  void geneOfNumberIsItsLowBits() {
    GeneIdLayout d = GeneIdLayout.defaults();
    assertThat(d.geneOf(0L)).isZero();
    assertThat(d.geneOf(64L)).isZero();
    assertThat(d.geneOf(130L)).isEqualTo(2);
    assertThat(d.geneOf(-1L)).isEqualTo(63);
  }

  @Test
  void geneOfStringIsDocumentedCrc32c() {
    // CRC-32C check value of "123456789" is 0xE3069283 (RFC 3720 test vector); & 63 = 3
    assertThat(GeneIdLayout.defaults().geneOf("123456789")).isEqualTo(0xE3069283L & 63);
    assertThat(GeneIdLayout.builder().geneBits(16).workerBits(0).sequenceBits(6).build().geneOf("123456789"))
        .isEqualTo(0x9283);
    assertThat(GeneIdLayout.defaults().geneOf("")).isZero();
  }

  @Test
  void geneOfKeyAcceptsWholeNumbersStringsAndUuids() {
    GeneIdLayout d = GeneIdLayout.defaults();
    UUID uuid = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    assertThat(d.geneOfKey(130L)).isEqualTo(2);
    assertThat(d.geneOfKey(130)).isEqualTo(2);
    assertThat(d.geneOfKey((short) 130)).isEqualTo(2);
    assertThat(d.geneOfKey(BigInteger.valueOf(130))).isEqualTo(2);
    assertThat(d.geneOfKey(new BigDecimal("130"))).isEqualTo(2);
    assertThat(d.geneOfKey("order-7")).isEqualTo(d.geneOf("order-7"));
    assertThat(d.geneOfKey(new StringBuilder("order-7"))).isEqualTo(d.geneOf("order-7"));
    assertThat(d.geneOfKey(uuid)).isEqualTo(d.geneOf("123e4567-e89b-12d3-a456-426614174000"));
    assertThatThrownBy(() -> d.geneOfKey(new BigDecimal("1.5")))
        .hasMessage("parent key must be an integral number but was 1.5");
    assertThatThrownBy(() -> d.geneOfKey(1.5d))
        .hasMessage("parent key must be a whole number, a String or a UUID but was java.lang.Double 1.5");
  }

  @Test
  void genesWithoutALayoutAgreeWithTheLayout() {
    GeneIdLayout d = GeneIdLayout.defaults();
    assertThat(Genes.of(130L, 6)).isEqualTo(d.geneOf(130L));
    assertThat(Genes.of("123456789", 6)).isEqualTo(d.geneOf("123456789"));
    assertThat(Genes.ofKey(130, 6)).isEqualTo(2);
    assertThat(Genes.of(130L, 0)).isZero();
    assertThatThrownBy(() -> Genes.of(1L, 17)).hasMessage("geneBits must be in [0, 16] but was 17");
    assertThatThrownBy(() -> Genes.ofKey(null, 6)).hasMessage("parent key must not be null");
  }

  @Test
  void decodeRejectsNegativeIds() {
    assertThatThrownBy(() -> GeneIdLayout.defaults().decode(-5))
        .hasMessage("id must not be negative but was -5");
  }

  @Test
  void encodeChecksEveryPart() {
    GeneIdLayout d = GeneIdLayout.defaults();
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    assertThatThrownBy(() -> d.encode(new GeneIdParts(t, 256, 0, 0)))
        .hasMessage("workerId must be in [0, 255] but was 256");
    assertThatThrownBy(() -> d.encode(new GeneIdParts(t, 0, 256, 0)))
        .hasMessage("sequence must be in [0, 255] but was 256");
    assertThatThrownBy(() -> d.encode(new GeneIdParts(t, 0, 0, 64)))
        .hasMessage("gene must be in [0, 63] but was 64");
    assertThatThrownBy(() -> d.encode(new GeneIdParts(Instant.parse("2024-01-01T00:00:00Z"), 0, 0, 0)))
        .hasMessage("timestamp must be a whole millisecond in [2025-01-01T00:00:00Z, 2094-09-07T15:47:35.551Z]"
            + " but was 2024-01-01T00:00:00Z");
    GeneIdParts parts = new GeneIdParts(t, 255, 255, 63);
    assertThat(d.decode(d.encode(parts))).isEqualTo(parts);
  }
}
