package io.geneid.core.snowflake;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.Genes;
import io.geneid.core.testing.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Properties over arbitrary valid layouts and inputs. */
class GeneIdPropertyTest {

  private static final Instant TODAY = Instant.now().truncatedTo(ChronoUnit.DAYS);

  @Provide
  Arbitrary<GeneIdLayout> layouts() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 20), // W
            Arbitraries.integers().between(0, 20), // S
            Arbitraries.integers().between(0, 16), // G
            Arbitraries.integers().between(1, 360)) // epoch: days before today
        .as((w, s, g, daysBack) -> {
          int t = 63 - w - s - g;
          return t < GeneIdLayout.MIN_TIMESTAMP_BITS ? null
              : new GeneIdLayout(TODAY.minus(daysBack, ChronoUnit.DAYS), t, w, s, g);
        })
        .filter(java.util.Objects::nonNull);
  }

  private static GeneSnowflakeGenerator generator(GeneIdLayout layout, long workerSeed, ManualClock clock) {
    return GeneSnowflakeGenerator.builder().layout(layout).workerId(Math.floorMod(workerSeed, layout.workerCount()))
        .clock(clock).buildUnshared();
  }

  private static ManualClock clockAfter(GeneIdLayout layout) {
    // somewhere between the epoch and today, ticking 1 ms per read so no layout ever has to wait
    return new ManualClock(layout.epoch().toEpochMilli() + 3_600_000L).tickEvery(1);
  }

  @Property(tries = 300)
  void childCarriesParentsGene(@ForAll("layouts") GeneIdLayout layout, @ForAll long workerSeed,
      @ForAll long parentKey, @ForAll String parentString) {
    GeneSnowflakeGenerator g = generator(layout, workerSeed, clockAfter(layout));
    assertThat(g.getGene(g.nextIdFor(parentKey))).isEqualTo(layout.geneOf(parentKey));
    assertThat(g.getGene(g.nextIdFor(parentString))).isEqualTo(layout.geneOf(parentString));
    long parentId = g.nextId();
    assertThat(g.getGene(g.nextIdFor(parentId))).isEqualTo(g.getGene(parentId));
  }

  @Property(tries = 300)
  void decodeReturnsThePartsThatBuiltTheId(@ForAll("layouts") GeneIdLayout layout, @ForAll long workerSeed,
      @ForAll long geneSeed) {
    ManualClock clock = clockAfter(layout);
    GeneSnowflakeGenerator g = generator(layout, workerSeed, clock);
    long gene = Math.floorMod(geneSeed, layout.geneCount());
    long before = clock.now();
    long id = g.nextId(gene);
    long after = clock.now();
    assertThat(id).isPositive();
    GeneIdParts parts = layout.decode(id);
    assertThat(parts.workerId()).isEqualTo(g.workerId());
    assertThat(parts.gene()).isEqualTo(gene);
    assertThat(parts.timestamp().toEpochMilli()).isBetween(before, after);
    assertThat(layout.encode(parts)).isEqualTo(id);
  }

  @Property(tries = 500)
  void encodeDecodeRoundTrip(@ForAll("layouts") GeneIdLayout layout, @ForAll long msSeed, @ForAll long w,
      @ForAll long s, @ForAll long gene) {
    long millis = Math.floorMod(msSeed, Math.min(layout.maxTimestampMillis(), 400L * 86_400_000L));
    GeneIdParts parts = new GeneIdParts(layout.epoch().plusMillis(millis), Math.floorMod(w, layout.workerCount()),
        Math.floorMod(s, layout.idsPerMillisPerGene()), Math.floorMod(gene, layout.geneCount()));
    long id = layout.encode(parts);
    assertThat(id).isNotNegative();
    assertThat(layout.decode(id)).isEqualTo(parts);
  }

  @Property(tries = 200)
  void idsOfOneGeneStrictlyIncreaseAndNeverRepeat(@ForAll("layouts") GeneIdLayout layout, @ForAll long workerSeed,
      @ForAll @Size(min = 1, max = 2000) List<@IntRange(min = 0, max = 65535) Integer> geneSeeds) {
    GeneSnowflakeGenerator g = generator(layout, workerSeed, clockAfter(layout));
    long[] ids = new long[geneSeeds.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = g.nextId(geneSeeds.get(i) & layout.maxGene());
      assertThat(ids[i]).isPositive();
    }
    GeneSnowflakeGeneratorTest.assertPerGeneIncreasing(g, ids);
    assertThat(java.util.Arrays.stream(ids).distinct().count()).isEqualTo(ids.length);
  }

  @Property(tries = 100)
  void borrowingStaysWithinItsBound(@ForAll("layouts") GeneIdLayout layout, @ForAll long workerSeed,
      @ForAll @IntRange(min = 0, max = 20) int maxBorrow, @ForAll @IntRange(min = 1, max = 5000) int reads) {
    // a slow clock: one tick per `reads` reads, so small-S layouts overflow and borrow all the time
    ManualClock clock = new ManualClock(layout.epoch().toEpochMilli() + 1000).tickEvery(reads);
    GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().layout(layout)
        .workerId(Math.floorMod(workerSeed, layout.workerCount())).clock(clock).maxBorrowMillis(maxBorrow)
        .buildUnshared();
    long last = -1;
    for (int i = 0; i < 3000; i++) {
      long id = g.nextId(0);
      assertThat(id).isGreaterThan(last);
      last = id;
      long ahead = layout.decode(id).timestamp().toEpochMilli() - clock.now();
      assertThat(ahead).isLessThanOrEqualTo(maxBorrow);
    }
  }
}
