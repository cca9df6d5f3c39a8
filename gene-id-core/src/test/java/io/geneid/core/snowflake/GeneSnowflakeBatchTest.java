package io.geneid.core.snowflake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.testing.ManualClock;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** {@code nextIds} and {@code nextIdsFor}: runs of a gene's sequence, borrowing and the lead bound as single calls. */
class GeneSnowflakeBatchTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults(); // S = 8: 256 ids per ms per gene
  private final ManualClock clock = ManualClock.atDefaultEpochPlusDays(100);

  private GeneSnowflakeGenerator generator(long maxBorrowMillis) {
    return GeneSnowflakeGenerator.builder().workerId(5).clock(clock).maxBorrowMillis(maxBorrowMillis)
        .buildUnshared();
  }

  private long millisOf(long id) {
    return LAYOUT.decode(id).timestamp().toEpochMilli();
  }

  @Test
  void aRunContinuesTheGenesSequenceAndSingleCallsContinueTheRun() {
    GeneSnowflakeGenerator g = generator(10);
    long single = g.nextIdFor(7);
    long[] run = g.nextIdsFor(7, 5);
    long after = g.nextIdFor(7);
    long[] all = LongStream.concat(LongStream.concat(LongStream.of(single), Arrays.stream(run)),
        LongStream.of(after)).toArray();
    for (int i = 0; i < all.length; i++) {
      GeneIdParts p = LAYOUT.decode(all[i]);
      assertThat(p.sequence()).isEqualTo(i);
      assertThat(p.gene()).isEqualTo(7);
      assertThat(p.workerId()).isEqualTo(5);
      assertThat(p.timestamp().toEpochMilli()).isEqualTo(clock.now());
    }
    assertThat(g.stats().idsIssued()).isEqualTo(7);
  }

  @Test
  void aRunLongerThanOneMillisecondBorrowsTheNextOnesAndNoMoreThanTheBound() {
    GeneSnowflakeGenerator g = generator(2);
    long[] ids = g.nextIdsFor(9, 3 * 256); // exactly ms now, now + 1, now + 2
    assertThat(ids).isSorted().doesNotHaveDuplicates();
    assertThat(millisOf(ids[0])).isEqualTo(clock.now());
    assertThat(millisOf(ids[255])).isEqualTo(clock.now());
    assertThat(millisOf(ids[256])).isEqualTo(clock.now() + 1);
    assertThat(millisOf(ids[767])).isEqualTo(clock.now() + 2);
    assertThat(g.stats().idsIssued()).isEqualTo(768);
    assertThat(g.stats().borrowDebt().toMillis()).isEqualTo(2);
  }

  @Test
  void aRunPastTheBoundWaitsForTheClockAndNeverLeadsByMore() {
    clock.tickEvery(40); // the clock moves 1 ms every 40 reads
    GeneSnowflakeGenerator g = generator(3);
    for (int round = 0; round < 20; round++) {
      long[] ids = g.nextIdsFor(11, 2000);
      long clockAfter = clock.now();
      assertThat(ids).isSorted().doesNotHaveDuplicates();
      for (long id : ids) {
        assertThat(millisOf(id)).isLessThanOrEqualTo(clockAfter + 3);
      }
    }
    assertThat(g.stats().idsIssued()).isEqualTo(20 * 2000);
  }

  @Test
  void rootBatchesTakeGenesAsSingleCallsWould() {
    GeneSnowflakeGenerator g = generator(10);
    long[] ids = g.nextIds(2 * 64);
    long[] perGene = new long[64];
    for (long id : ids) {
      perGene[(int) g.getGene(id)]++;
    }
    assertThat(perGene).containsOnly(2L); // one spread cycle per 64 ids
    assertThat(ids).doesNotHaveDuplicates();
  }

  @Test
  void aScopeGivesItsParentsGeneOrOneKeyPerId() {
    GeneSnowflakeGenerator g = generator(10);
    try (var scope = GeneContext.inherit(1000L + 21)) {
      assertThat(Arrays.stream(g.nextIds(300)).map(g::getGene).distinct().toArray()).containsExactly(
          (1000L + 21) & 63);
    }
    try (var scope = GeneContext.inheritEach(List.of(1L, 2L, 65L, "order-9"))) {
      assertThatThrownBy(() -> g.nextIds(5))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("GeneContext scope holds 4 parent keys but id number 5 was requested");
      long[] ids = g.nextIds(4); // the failed call took no key
      assertThat(g.getGene(ids[0])).isEqualTo(1);
      assertThat(g.getGene(ids[1])).isEqualTo(2);
      assertThat(g.getGene(ids[2])).isEqualTo(1);
      assertThat(g.getGene(ids[3])).isEqualTo(LAYOUT.geneOf("order-9"));
      assertThat(ids[2]).isGreaterThan(ids[0]); // one gene's ids ascend in array order
    }
  }

  @Test
  void aBadCountIsRefusedWithTheRange() {
    GeneSnowflakeGenerator g = generator(10);
    assertThatThrownBy(() -> g.nextIds(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("n must be in [1, 65536] but was 0");
    assertThatThrownBy(() -> g.nextIdsFor(3, 65_537))
        .hasMessage("n must be in [1, 65536] but was 65537");
  }

  @Test
  void aRunStopsAtTheCeilingWithoutIssuingAboveIt() {
    GeneSnowflakeGenerator g = generator(10);
    g.ceiling(clock.now() + 1);
    long[] ok = g.nextIdsFor(4, 512); // ms now and now + 1
    assertThat(millisOf(ok[511])).isEqualTo(clock.now() + 1);
    assertThatThrownBy(() -> g.nextIdsFor(4, 1))
        .hasMessageContaining("may not issue ids after");
  }
}
