package io.geneid.core.bucket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BucketPlannerTest {

  @Test
  void twoToFourSplitsEachShardInTwo() {
    BucketPlan plan = BucketPlanner.plan(BucketMap.ofMod(6, 2, 1), 4);
    assertThat(plan.next().format()).isEqualTo("0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4");
    assertThat(plan.next().version()).isEqualTo(1);
    assertThat(plan.moves()).hasSize(32);
    assertThat(plan.movedShare()).isEqualTo(0.5);
    assertThat(plan.movesBetween(0, 2)).hasSize(16).allMatch(m -> m.bucket() % 4 == 2);
    assertThat(plan.movesBetween(1, 3)).hasSize(16).allMatch(m -> m.bucket() % 4 == 3);
    assertThat(plan.moves().get(0)).hasToString("bucket 2: 0 -> 2");
  }

  @Test
  void twoToThreeMovesAThird() {
    BucketPlan plan = BucketPlanner.plan(BucketMap.ofMod(6, 2, 1), 3);
    // quotas 22, 21, 21: target 0 gives 10, target 1 gives 11
    assertThat(plan.moves()).hasSize(21);
    assertThat(plan.next().bucketsOf(0)).hasSize(22);
    assertThat(plan.next().bucketsOf(1)).hasSize(21);
    assertThat(plan.next().bucketsOf(2)).hasSize(21);
  }

  @Test
  void sameCountMovesNothingAndShrinkingDrains() {
    assertThat(BucketPlanner.plan(BucketMap.ofMod(4, 4, 1), 4).moves()).isEmpty();
    BucketPlan shrink = BucketPlanner.plan(BucketMap.ofMod(4, 4, 1), 2);
    assertThat(shrink.next().targetCount()).isEqualTo(2);
    assertThat(shrink.moves()).hasSize(8).allMatch(m -> m.from() >= 2);
  }

  @Test
  void rejectsTargetCountsOutOfRange() {
    assertThatThrownBy(() -> BucketPlanner.plan(BucketMap.ofMod(3, 2, 1), 9))
        .hasMessage("target count must be in [1, 8] but was 9");
    assertThatThrownBy(() -> BucketPlanner.plan(BucketMap.ofMod(3, 2, 1), 0))
        .hasMessage("target count must be in [1, 8] but was 0");
  }
}
