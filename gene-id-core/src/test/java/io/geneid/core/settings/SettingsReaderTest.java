package io.geneid.core.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.geneid.core.GeneIdLayout;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsReaderTest {

  private static final Instant JAN_2025 = Instant.parse("2025-01-01T00:00:00Z");

  @Test
  void durationsAcceptShortIsoAndTypedForms() {
    assertThat(SettingsReader.parseDuration("1500ms")).isEqualTo(Duration.ofMillis(1500));
    assertThat(SettingsReader.parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(SettingsReader.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(SettingsReader.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(SettingsReader.parseDuration("250")).isEqualTo(Duration.ofMillis(250));
    assertThat(SettingsReader.parseDuration("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    SettingsReader typed = SettingsReader.of(Map.of("ttl", Duration.ofSeconds(3)));
    assertThat(typed.duration("ttl", Duration.ZERO, Duration.ofMinutes(1), Duration.ZERO)).hasSeconds(3);
    assertThatThrownBy(() -> SettingsReader.of(Map.of("ttl", "soon")).duration("ttl", Duration.ZERO))
        .hasMessage("ttl must be a duration such as 30s, 1500ms or PT30S but was 'soon'");
    assertThatThrownBy(() -> typed.duration("ttl", Duration.ofSeconds(5), Duration.ofMinutes(1), Duration.ZERO))
        .hasMessage("ttl must be in [5000ms, 60000ms] but was 3000ms");
  }

  @Test
  void everyEpochFormMeansTheSameInstant() {
    for (Object written : List.of("2025-01-01T00:00:00Z", "2025-01-01", "1735689600000", 1735689600000L, JAN_2025,
        Date.from(JAN_2025), Date.from(JAN_2025).toString(), "2025-01-01T08:00:00+08:00")) {
      assertThat(SettingsReader.of(Map.of("epoch", written)).epoch("epoch", Instant.EPOCH))
          .as("%s", written).isEqualTo(JAN_2025);
    }
    assertThat(SettingsReader.of(Map.of()).epoch("epoch", JAN_2025)).isEqualTo(JAN_2025);
  }

  @Test
  void anEpochInSecondsIsRefusedWithWhatToWriteInstead() {
    assertThatThrownBy(() -> SettingsReader.of(Map.of("epoch", "1735689600")).ownedBy("GENE_SNOWFLAKE")
        .epoch("epoch", JAN_2025))
        .hasMessage("GENE_SNOWFLAKE property 'epoch' must be Unix milliseconds from 2000-01-01T00:00:00Z on, an"
            + " ISO-8601 instant or a date but was 1735689600 (1970-01-21T02:08:09.600Z): that looks like seconds;"
            + " write 1735689600000 or 2025-01-01T00:00:00Z");
    assertThatThrownBy(() -> SettingsReader.of(Map.of("epoch", "yesterday")).epoch("epoch", JAN_2025))
        .hasMessage("epoch must be an ISO-8601 instant such as 2025-01-01T00:00:00Z, a date such as 2025-01-01 (UTC)"
            + " or Unix milliseconds but was 'yesterday'");
  }

  @Test
  void numbersReadTextAndTypedValuesAlikeAndNameTheKeyAsItsUserWroteIt() {
    assertThat(SettingsReader.of(Map.of("n", " 12 ")).longValue("n", 0, 20, 0)).isEqualTo(12);
    assertThat(SettingsReader.of(Map.of("n", 12)).longValue("n", 0, 20, 0)).isEqualTo(12);
    assertThat(SettingsReader.of(Map.of()).longValue("n", 0, 20, 7)).isEqualTo(7);
    SettingsReader spring = SettingsReader.of(Map.of("lease-ttl", "x")).named(k -> "gene-id.lease.ttl");
    assertThatThrownBy(() -> spring.longValue("lease-ttl", 0, 9, 0))
        .hasMessage("gene-id.lease.ttl must be a whole number in [0, 9] but was 'x'");
    SettingsReader sharding = SettingsReader.of(Map.of("n", 21)).ownedBy("GENE_MOD");
    assertThatThrownBy(() -> sharding.longValue("n", 0, 20, 0))
        .hasMessage("GENE_MOD property 'n' must be in [0, 20] but was 21");
    assertThatThrownBy(() -> sharding.requiredLong("m", 1, 4))
        .hasMessage("GENE_MOD property 'm' is required: a whole number in [1, 4]");
    assertThatThrownBy(() -> SettingsReader.of(Map.of("b", "yes")).bool("b", false))
        .hasMessage("b must be true or false but was 'yes'");
    assertThat(SettingsReader.of(Map.of("b", "TRUE")).bool("b", false)).isTrue();
    assertThat(SettingsReader.of(Map.of("b", false)).bool("b", true)).isFalse();
  }

  @Test
  void unknownKeysAreRefusedWithTheAllowedOnes() {
    assertThatThrownBy(() -> SettingsReader.of(Map.of("shards", "4")).requireKnown(List.of("sharding-count",
        "gene-bits"), "GENE_MOD"))
        .hasMessage("GENE_MOD has no property 'shards'; allowed: sharding-count, gene-bits");
    assertThatThrownBy(() -> SettingsReader.of(Map.of("shards", "4")).ownedBy("GENE_SNOWFLAKE")
        .requireKnown(List.of("space"), "worker-assigner=redis"))
        .hasMessage("GENE_SNOWFLAKE with worker-assigner=redis has no property 'shards'; allowed: space");
  }

  @Test
  void aLayoutThatDoesNotAddUpNamesEveryWidth() {
    assertThat(GeneIdLayout.from(SettingsReader.of(Map.of("gene-bits", "4", "sequence-bits", 10))))
        .isEqualTo(GeneIdLayout.builder().geneBits(4).sequenceBits(10).build());
    assertThatThrownBy(() -> GeneIdLayout.from(SettingsReader.of(Map.of("gene-bits", "8")).named(k -> "gene-id." + k)))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessage("gene-id.timestamp-bits + gene-id.worker-bits + gene-id.sequence-bits + gene-id.gene-bits must be"
            + " 63 (the defaults are 41 + 8 + 8 + 6) but was 65 (41 + 8 + 8 + 8)");
    assertThatThrownBy(() -> GeneIdLayout.from(SettingsReader.of(Map.of("gene-bits", "7")).ownedBy("GENE_SNOWFLAKE")))
        .hasMessage("GENE_SNOWFLAKE properties timestamp-bits + worker-bits + sequence-bits + gene-bits must be 63"
            + " (the defaults are 41 + 8 + 8 + 6) but was 64 (41 + 8 + 8 + 7)");
    assertThatThrownBy(() -> GeneIdLayout.from(SettingsReader.of(Map.of("gene-bits", "17"))))
        .hasMessage("gene-bits must be in [0, 16] but was 17");
    Map<String, Object> ranOut = Map.of("epoch", "2000-01-01", "timestamp-bits", 35, "worker-bits", 14);
    assertThatThrownBy(() -> GeneIdLayout.from(SettingsReader.of(ranOut).named(k -> "gene-id." + k)))
        .hasMessageStartingWith("gene-id.timestamp-bits must be enough to reach today from the epoch (choose a later"
            + " epoch or more timestamp bits) but was 35 (from epoch 2000-01-01T00:00:00Z they ran out at");
    InvalidSettingException e = catchThrowableOfType(InvalidSettingException.class,
        () -> GeneIdLayout.from(SettingsReader.of(ranOut).ownedBy("GENE_SNOWFLAKE")));
    assertThat(e.key()).isEqualTo("timestamp-bits");
    assertThat(e.value()).startsWith("35 (from epoch");
    assertThat(e.getMessage()).startsWith("GENE_SNOWFLAKE property 'timestamp-bits' must be enough");
  }

  @Test
  void aRuleNamesTheOtherKeysItMentionsAsTheMessageNamesItsKey() {
    InvalidSettingException e = new InvalidSettingException("worker-id-max", "3", "at least {worker-id-min} (9)");
    assertThat(e).hasMessage("worker-id-max must be at least worker-id-min (9) but was 3");
    assertThat(e.named(k -> "gene-id.lease." + k))
        .hasMessage("gene-id.lease.worker-id-max must be at least gene-id.lease.worker-id-min (9) but was 3");
    assertThat(new InvalidSettingException("key-prefix", "''", "non-empty and free of { }").named(k -> "x." + k))
        .hasMessage("x.key-prefix must be non-empty and free of { } but was ''");
  }
}
