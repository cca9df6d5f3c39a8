package io.geneid.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The port keeps the published design's behaviour, flaws included (DESIGN.md section 8). */
class PublishedGeneGeneratorTest {

  private static final long START = PublishedGeneGenerator.EPOCH + 1_000_000_000L;

  private final AtomicLong clock = new AtomicLong(START);
  private final PublishedGeneGenerator generator = new PublishedGeneGenerator(3, 4, clock::get);

  @Test
  void idsCarryTheGeneOfTheParentAndTheWorkerFields() {
    long id = generator.nextId(0b1_0110_1101L);
    assertThat(id & 31).isEqualTo(0b0_1101L);
    assertThat((id >>> 12) & 31).as("worker").isEqualTo(4);
    assertThat((id >>> 17) & 31).as("datacenter").isEqualTo(3);
    assertThat(PublishedGeneGenerator.timestampOf(id)).isEqualTo(START);
  }

  @Test
  void aGeneGets128IdsPerMillisecondThenBorrowsTheNext() {
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < 128; i++) {
      ids.add(generator.nextId(5));
    }
    assertThat(ids).hasSize(128).allMatch(id -> PublishedGeneGenerator.timestampOf(id) == START);
    long borrowed = generator.nextId(5);
    assertThat(PublishedGeneGenerator.timestampOf(borrowed)).isEqualTo(START + 1);
  }

  @Test
  void borrowingIsUnbounded() {
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < 128 * 1000; i++) {
      ids.add(generator.nextId(5));
    }
    assertThat(ids).hasSize(128 * 1000);
    assertThat(generator.lastTimestamp() - clock.get()).isEqualTo(999);
  }

  @Test
  void aClockThatPassesTheBorrowedTimeAndStepsBackReissuesAnIdWithoutAnException() {
    for (int i = 0; i < 128; i++) {
      generator.nextId(5);
    }
    long borrowed = generator.nextId(5); // START + 1, sequence 0
    clock.set(START + 2);
    generator.nextId(5);
    clock.set(START + 1); // one millisecond back: at the borrowed time, so the backwards check is skipped
    assertThat(generator.nextId(5)).isEqualTo(borrowed);
  }

  @Test
  void aClockBeforeTheLastTimestampAndAfterTheBorrowedOneThrows() {
    generator.nextId(5);
    clock.set(START - 5);
    assertThatThrownBy(() -> generator.nextId(5)).isInstanceOf(IllegalStateException.class)
        .hasMessage("Clock moved backwards. Refusing to generate id for 5 milliseconds");
  }

  @Test
  void theFirstIdOfAMillisecondIsNotCountedForItsGene() {
    long first = generator.nextId(1); // sequence 0, not stored
    long second = generator.nextId(1); // counter starts at 1
    long otherGene = generator.nextId(2); // also starts at 1: sequence 0 is never used by it in this ms
    assertThat((first >>> 5) & 127).isZero();
    assertThat((second >>> 5) & 127).isEqualTo(1);
    assertThat((otherGene >>> 5) & 127).isEqualTo(1);
  }

  @Test
  void workerFieldsAreChecked() {
    assertThatThrownBy(() -> new PublishedGeneGenerator(32, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("datacenterId must be in [0, 31] but was 32");
    assertThatThrownBy(() -> new PublishedGeneGenerator(0, -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("workerId must be in [0, 31] but was -1");
  }
}
