package io.geneid.core.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.lease.LeasePlanner.Candidate;
import io.geneid.core.lease.LeasePlanner.Claim;
import io.geneid.core.lease.LeasePlanner.Mark;
import io.geneid.core.lease.LeasePlanner.Plan;
import io.geneid.core.lease.LeasePlanner.Slot;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeasePlannerTest {

  private static final long NOW = 1_000_000;
  private static final long SLACK = 10;

  @Test
  void anEmptyPoolOffersItsLowestIdsFreshWithoutAMark() {
    Plan p = LeasePlanner.plan(4, 6, NOW, SLACK, List.of());
    assertThat(p.candidates()).extracting(Candidate::workerId).containsExactly(4L, 5L, 6L);
    assertThat(p.candidates()).allMatch(c -> c.fresh() && c.previousMark() == 0 && c.slot() == null);
    assertThat(p.holders()).isEmpty();
  }

  @Test
  void freshIdsComeFirstThenTheLeastRecentlyUsedFreeOnes() {
    Slot released = new Slot(0, new Mark(500, true, 30), null);
    Slot expired = new Slot(1, new Mark(400, false, 20), new Claim("gone", NOW - 1));
    Slot vanished = new Slot(2, new Mark(300, false, 20), null); // held, its claim gone with its session
    Plan p = LeasePlanner.plan(0, 3, NOW, SLACK, List.of(released, expired, vanished));
    assertThat(p.candidates()).extracting(Candidate::workerId).containsExactly(3L, 1L, 2L, 0L);
    assertThat(p.candidates()).extracting(Candidate::previousMark)
        .containsExactly(0L, NOW + SLACK, NOW + SLACK, 500L);
  }

  @Test
  void aLiveClaimOrAClaimWithoutRecordIsHeldAndNamed() {
    Slot live = new Slot(7, new Mark(0, false, 1), new Claim("alpha", NOW + 1));
    Slot orphan = new Slot(5, null, new Claim("beta", NOW - 100));
    Plan p = LeasePlanner.plan(5, 7, NOW, SLACK, List.of(live, orphan));
    assertThat(p.holders()).extracting(Slot::workerId).containsExactly(5L, 7L);
    assertThat(p.candidates()).extracting(Candidate::workerId).containsExactly(6L);
  }

  @Test
  void aClaimExpiresAtItsExpiryExactly() {
    Slot s = new Slot(0, new Mark(0, false, 1), new Claim("a", NOW));
    assertThat(LeasePlanner.held(s, NOW - 1)).isTrue();
    assertThat(LeasePlanner.held(s, NOW)).isFalse();
  }

  @Test
  void aMarkAboveNowPlusSlackIsKeptAndAReleasedOneIsExact() {
    assertThat(LeasePlanner.previousMark(new Slot(0, new Mark(NOW + 777, false, 1), null), NOW, SLACK))
        .isEqualTo(NOW + 777);
    assertThat(LeasePlanner.previousMark(new Slot(0, new Mark(7, true, 1), null), NOW, SLACK)).isEqualTo(7);
    // released, but claimed again since (a takeover behind its back): not exact any more
    assertThat(LeasePlanner.previousMark(new Slot(0, new Mark(7, true, 1), new Claim("x", 0)), NOW, SLACK))
        .isEqualTo(NOW + SLACK);
  }

  @Test
  void slotsOutsideThePoolAreIgnoredAndFreshIdsAreCapped() {
    Plan p = LeasePlanner.plan(0, 1_000_000, NOW, SLACK, List.of(new Slot(2_000_000, new Mark(1, true, 1), null)));
    assertThat(p.candidates()).hasSize(LeasePlanner.FRESH_PER_PLAN);
    assertThat(p.candidates().get(LeasePlanner.FRESH_PER_PLAN - 1).workerId())
        .isEqualTo(LeasePlanner.FRESH_PER_PLAN - 1);
  }

  @Test
  void aBadPoolOrSlackIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> LeasePlanner.plan(3, 2, NOW, SLACK, List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[3, 2]");
    assertThatThrownBy(() -> LeasePlanner.plan(0, 2, NOW, -1, List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
  }
}
