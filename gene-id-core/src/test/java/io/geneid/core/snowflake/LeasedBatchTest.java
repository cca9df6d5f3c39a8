package io.geneid.core.snowflake;

import io.geneid.core.testing.TestTime;
import io.geneid.core.lease.StaticWorkerIdAssigner;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Batches through the {@link GeneIdGenerator} interface of a lease-holding generator (a static assigner's lease). */
class LeasedBatchTest {

  @TempDir Path dir;

  private LeasedGeneGenerator generator(long workerId) {
    StaticWorkerIdAssigner assigner = StaticWorkerIdAssigner.builder().space("batch").workerId(workerId)
        .markFile(dir.resolve("w" + workerId + ".mark")).ttl(TestTime.seconds(3)).build(); // on the system clock
    return LeasedGeneGenerator.builder().assigner(assigner).build();
  }

  @Test
  void batchesCarryTheirGenesAndTheLeasedWorkerId() {
    try (LeasedGeneGenerator leased = generator(21)) {
      GeneIdGenerator g = leased;
      long[] run = g.nextIdsFor(1_000_000_007L, 700);
      assertThat(run).isSorted().doesNotHaveDuplicates();
      assertThat(Arrays.stream(run).allMatch(id -> g.getGene(id) == (1_000_000_007L & 63))).isTrue();
      assertThat(Arrays.stream(run).allMatch(id -> leased.layout().decode(id).workerId() == 21)).isTrue();
      long[] roots = g.nextIds(64);
      assertThat(Arrays.stream(roots).map(g::getGene).sorted().toArray())
          .containsExactly(java.util.stream.LongStream.range(0, 64).toArray());
      try (var scope = GeneContext.inheritEach(List.of(3L, 4L))) {
        long[] two = g.nextIds(2);
        assertThat(g.getGene(two[0])).isEqualTo(3);
        assertThat(g.getGene(two[1])).isEqualTo(4);
      }
    }
  }

  @Test
  void aClosedGeneratorIssuesNoBatch() {
    LeasedGeneGenerator g = generator(22);
    g.close();
    assertThatThrownBy(() -> g.nextIds(3)).isInstanceOf(GeneIdException.class).hasMessageContaining("is closed");
    assertThatThrownBy(() -> g.nextIdsFor(1, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("n must be in [1, 65536] but was 0");
  }
}
