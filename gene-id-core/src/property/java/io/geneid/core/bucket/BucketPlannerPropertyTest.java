package io.geneid.core.bucket;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** The planner's promises over arbitrary maps and target counts. */
class BucketPlannerPropertyTest {

  /** An arbitrary map: G in [0, 10], targets in [0, 2^G), not necessarily even. */
  @Provide
  Arbitrary<BucketMap> maps() {
    return Arbitraries.integers().between(0, 10).flatMap(g -> {
      int buckets = 1 << g;
      return Arbitraries.integers().between(1, buckets).flatMap(n ->
          Arbitraries.integers().between(0, n - 1).array(int[].class).ofSize(buckets)
              .map(t -> BucketMap.of(g, t)));
    });
  }

  /** A GENE_MOD map of N targets: G in [0, 10], N in [1, 2^G], divisor 1. */
  @Provide
  Arbitrary<BucketMap> modMaps() {
    return Arbitraries.integers().between(0, 10).flatMap(g ->
        Arbitraries.integers().between(1, 1 << g).map(n -> BucketMap.ofMod(g, n, 1)));
  }

  @Property
  void everyBucketHasOneTargetAndNoTargetExceedsItsCeiling(@ForAll("maps") BucketMap map,
      @ForAll @IntRange(min = 1, max = 1024) int m) {
    int newCount = Math.min(m, map.bucketCount());
    BucketPlan plan = BucketPlanner.plan(map, newCount);
    int[] held = new int[newCount];
    for (int t : plan.next().targets()) {
      assertThat(t).isBetween(0, newCount - 1);
      held[t]++;
    }
    int ceiling = (map.bucketCount() + newCount - 1) / newCount;
    assertThat(Arrays.stream(held).max().orElseThrow()).isLessThanOrEqualTo(ceiling);
    assertThat(Arrays.stream(held).min().orElseThrow()).isGreaterThanOrEqualTo(map.bucketCount() / newCount);
  }

  @Property
  void movesAreExactlyTheChangedBuckets(@ForAll("maps") BucketMap map, @ForAll @IntRange(min = 1, max = 1024) int m) {
    BucketPlan plan = BucketPlanner.plan(map, Math.min(m, map.bucketCount()));
    int changed = 0;
    for (int b = 0; b < map.bucketCount(); b++) {
      if (map.target(b) != plan.next().target(b)) {
        changed++;
      }
    }
    assertThat(plan.moves()).hasSize(changed);
    for (BucketMove move : plan.moves()) {
      assertThat(move.from()).isEqualTo(map.target(move.bucket()));
      assertThat(move.to()).isEqualTo(plan.next().target(move.bucket()));
    }
  }

  /** Minimal: no plan meeting the quotas keeps more buckets than the planner. */
  @Property
  void movesAreTheLeastTheQuotasAllow(@ForAll("maps") BucketMap map, @ForAll @IntRange(min = 1, max = 1024) int m) {
    int newCount = Math.min(m, map.bucketCount());
    int buckets = map.bucketCount();
    int[] held = new int[Math.max(newCount, map.targetCount())];
    for (int t : map.targets()) {
      held[t]++;
    }
    // the best any plan can keep: floor quota for each kept target, plus one for the (2^G mod M) biggest
    int[] keepable = new int[newCount];
    int floor = buckets / newCount;
    for (int t = 0; t < newCount; t++) {
      keepable[t] = Math.min(held[t], floor);
    }
    Integer[] gains = new Integer[newCount];
    for (int t = 0; t < newCount; t++) {
      gains[t] = held[t] > floor ? 1 : 0;
    }
    Arrays.sort(gains, (a, b) -> b - a);
    int bestKept = Arrays.stream(keepable).sum();
    for (int i = 0; i < buckets % newCount; i++) {
      bestKept += gains[i];
    }
    assertThat(BucketPlanner.plan(map, newCount).moves()).hasSize(buckets - bestKept);
  }

  @Property
  void fromAnEvenMapAtMostOneMinusNOverMMove(@ForAll("modMaps") BucketMap map,
      @ForAll @IntRange(min = 1, max = 1024) int extra) {
    int n = map.targetCount();
    int m = Math.min(n + extra, map.bucketCount());
    BucketPlan plan = BucketPlanner.plan(map, m);
    assertThat((double) plan.moves().size()).isLessThanOrEqualTo((1.0 - (double) n / m) * map.bucketCount() + 1e-9);
    // and a second plan to the same count moves nothing
    assertThat(BucketPlanner.plan(plan.next(), m).moves()).isEmpty();
  }

  @Property
  void doublingAPowerOfTwoSplitsEveryShard(@ForAll @IntRange(min = 1, max = 12) int g,
      @ForAll @IntRange(min = 0, max = 11) int log2n) {
    if (log2n >= g) {
      return;
    }
    int n = 1 << log2n;
    BucketPlan plan = BucketPlanner.plan(BucketMap.ofMod(g, n, 1), 2 * n);
    assertThat(plan.next().targets()).containsExactly(BucketMap.ofMod(g, 2 * n, 1).targets());
    assertThat(plan.moves()).hasSize(1 << (g - 1));
    for (BucketMove move : plan.moves()) {
      assertThat(move.bucket() % (2 * n)).isEqualTo(move.bucket() % n + n);
      assertThat(move.to()).isEqualTo(move.from() + n);
    }
  }

  @Property
  void textFormRoundTrips(@ForAll("maps") BucketMap map) {
    assertThat(BucketMap.parse(map.geneBits(), map.format())).isEqualTo(map);
  }

  @Property
  void spreadEvenly(@ForAll("modMaps") BucketMap map, @ForAll @IntRange(min = 1, max = 1024) int extra) {
    // each old target gives up its share evenly: between two buckets it gives up, it keeps at most ceil(kept/given)
    int m = Math.min(map.targetCount() + extra, map.bucketCount());
    BucketPlan plan = BucketPlanner.plan(map, m);
    for (int t = 0; t < map.targetCount(); t++) {
      var own = map.bucketsOf(t);
      long given = own.stream().filter(b -> plan.next().target(b) != map.target(b)).count();
      if (given == 0) {
        continue;
      }
      long kept = own.size() - given;
      long maxRun = 0;
      long run = 0;
      for (int b : own) {
        run = plan.next().target(b) == map.target(b) ? run + 1 : 0;
        maxRun = Math.max(maxRun, run);
      }
      assertThat(maxRun).isLessThanOrEqualTo((kept + given - 1) / given);
    }
  }
}
