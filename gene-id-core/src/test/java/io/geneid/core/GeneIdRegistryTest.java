package io.geneid.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class GeneIdRegistryTest {

  // worker ids used here are unique to this class: the registry is JVM-wide
  private static final GeneIdLayout LAYOUT = GeneIdLayout.builder().epoch(Instant.parse("2025-06-01T00:00:00Z"))
      .build();

  @Test
  void buildSharesOneInstancePerLayoutAndWorker() {
    GeneSnowflakeGenerator a = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(200).build();
    GeneSnowflakeGenerator b = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(200).build();
    GeneSnowflakeGenerator other = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(201).build();
    assertThat(b).isSameAs(a);
    assertThat(other).isNotSameAs(a);
    assertThat(GeneIdRegistry.find(LAYOUT, 200)).containsSame(a);
    assertThat(GeneIdRegistry.find(LAYOUT, 202)).isEmpty();
    assertThat(GeneIdRegistry.all()).contains(a, other);
    assertThat(GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(200).buildUnshared()).isNotSameAs(a);
  }

  @Test
  void conflictingSettingsForTheSameWorkerAreRefused() {
    GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(210).build();
    assertThatThrownBy(() -> GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(210).maxBorrowMillis(99)
            .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("a GeneSnowflakeGenerator for worker id 210 and " + LAYOUT
            + " already exists in this JVM as GeneSnowflakeGenerator[workerId=210, ")
        .hasMessageContaining("a second one with maxBorrowMillis=99")
        .hasMessageEndingWith("would issue duplicate ids. Build it with the same settings to share it.");
  }

  @Test
  void aLaterHighWaterMarkRaisesTheSharedInstance() {
    GeneSnowflakeGenerator a = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(220).build();
    Instant mark = Instant.now().plusMillis(5);
    GeneSnowflakeGenerator b = GeneSnowflakeGenerator.builder().layout(LAYOUT).workerId(220).highWaterMark(mark)
        .build();
    assertThat(b).isSameAs(a);
    assertThat(LAYOUT.decode(a.nextId(4)).timestamp()).isAfter(mark);
  }
}
