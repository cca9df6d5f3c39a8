package io.geneid.core.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The segment generator's batches: runs of values, across segments, genes as single calls take them. */
class GeneSegmentBatchTest {

  private final SegmentTestStore store = new SegmentTestStore();
  private final List<GeneSegmentGenerator> built = new ArrayList<>();

  @AfterEach
  void close() {
    built.forEach(GeneSegmentGenerator::close);
  }

  private GeneSegmentGenerator fixedStep(long step) {
    GeneSegmentGenerator g = GeneSegmentGenerator.builder(store, "batch").clock(new SegmentTestClock())
        .minStep(step).maxStep(step).build();
    built.add(g);
    return g;
  }

  @Test
  void aBatchIsARunOfValuesAcrossSegments() {
    GeneSegmentGenerator g = fixedStep(10);
    long first = g.nextIdFor(3);
    long[] ids = g.nextIdsFor(3, 25); // the rest of the first segment, all of the second, part of the third
    long after = g.nextIdFor(3);
    assertThat(g.valueOf(first)).isEqualTo(1);
    assertThat(Arrays.stream(ids).map(g::valueOf).toArray()).containsExactly(
        java.util.stream.LongStream.rangeClosed(2, 26).toArray());
    assertThat(Arrays.stream(ids).allMatch(id -> g.getGene(id) == 3)).isTrue();
    assertThat(g.valueOf(after)).isEqualTo(27);
  }

  @Test
  void rootBatchesCycleThroughTheGenesAndScopesGiveTheirs() {
    GeneSegmentGenerator g = fixedStep(1000);
    long[] roots = g.nextIds(64);
    assertThat(Arrays.stream(roots).map(g::getGene).sorted().toArray()).containsExactly(
        java.util.stream.LongStream.range(0, 64).toArray());
    try (var scope = GeneContext.inheritEach(List.of(5L, 70L))) {
      assertThatThrownBy(() -> g.nextIds(3)).isInstanceOf(IllegalStateException.class)
          .hasMessage("GeneContext scope holds 2 parent keys but id number 3 was requested");
      long[] ids = g.nextIds(2);
      assertThat(g.valueOf(ids[0])).as("the failed call took no value").isEqualTo(65);
      assertThat(g.getGene(ids[0])).isEqualTo(5);
      assertThat(g.getGene(ids[1])).isEqualTo(70 & 63);
    }
    assertThatThrownBy(() -> g.nextIds(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("n must be in [1, 65536] but was -1");
  }
}
