package io.geneid.core.bucket;

import io.geneid.core.internal.Checks;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Plans the fewest bucket moves that spread a map's buckets evenly over a new number of targets.
 *
 * <p>Each of the {@code M} new targets gets a quota of {@code floor(2^G / M)} or {@code ceil(2^G / M)} buckets; the
 * {@code 2^G mod M} larger quotas go to the targets that hold the most buckets now, so fewer buckets leave them.
 * A target keeps up to its quota of its own buckets and gives up the rest; a target above index {@code M - 1} gives
 * up everything. The buckets a target gives up are taken evenly across its own (every other one when it gives up
 * half), and go to the targets below quota in index order, new targets first. So:
 * <ul>
 *   <li>no target ends with more than {@code ceil(2^G / M)} buckets, and every bucket has exactly one target;
 *   <li>the number of moves is the least any plan meeting those quotas can make; from an even map of {@code N}
 *       targets it is at most {@code (1 - N/M) * 2^G};
 *   <li>from {@code GENE_MOD} with {@code N} dividing {@code 2^G} to {@code 2N} targets, target {@code i} gives its
 *       buckets {@code b} with {@code b % 2N == i + N} to target {@code i + N}: each shard splits in two, and the
 *       result is the {@code GENE_MOD} map of {@code 2N}.
 * </ul>
 */
public final class BucketPlanner {

  private BucketPlanner() {}

  /**
   * The moves from {@code current} to {@code newTargetCount} even targets.
   *
   * @param newTargetCount M, in {@code [1, 2^G]}
   * @throws IllegalArgumentException {@code "target count must be in [1, <2^G>] but was <M>"}
   */
  public static BucketPlan plan(BucketMap current, int newTargetCount) {
    int buckets = current.bucketCount();
    Checks.range("target count", newTargetCount, 1, buckets);
    int oldCount = current.targetCount();
    int span = Math.max(oldCount, newTargetCount);
    int[] held = new int[span];
    for (int b = 0; b < buckets; b++) {
      held[current.target(b)]++;
    }
    // quotas: the larger ones to the targets holding most now (ties: lower index)
    int[] quota = new int[span];
    List<Integer> order = new ArrayList<>();
    for (int t = 0; t < newTargetCount; t++) {
      order.add(t);
      quota[t] = buckets / newTargetCount;
    }
    order.sort(Comparator.comparingInt((Integer t) -> -held[t]).thenComparingInt(t -> t));
    for (int i = 0; i < buckets % newTargetCount; i++) {
      quota[order.get(i)]++;
    }
    // the buckets each target gives up, spread evenly over its own
    List<Integer> leaving = new ArrayList<>();
    List<Integer> leavingFrom = new ArrayList<>();
    for (int t = 0; t < span; t++) {
      int surplus = held[t] - quota[t];
      if (surplus <= 0) {
        continue;
      }
      List<Integer> own = current.bucketsOf(t);
      int c = own.size();
      for (int j = 0; j < c; j++) {
        if ((long) (j + 1) * surplus / c > (long) j * surplus / c) {
          leaving.add(own.get(j));
          leavingFrom.add(t);
        }
      }
    }
    // the targets below quota, new ones first, each filled in turn
    List<Integer> receivers = new ArrayList<>();
    for (int t = oldCount; t < newTargetCount; t++) {
      receivers.add(t);
    }
    for (int t = 0; t < Math.min(oldCount, newTargetCount); t++) {
      receivers.add(t);
    }
    int[] targets = current.targets();
    List<BucketMove> moves = new ArrayList<>();
    int r = 0;
    int[] count = held.clone();
    for (int i = 0; i < leaving.size(); i++) {
      while (count[receivers.get(r)] >= quota[receivers.get(r)]) {
        r++;
      }
      int to = receivers.get(r);
      int bucket = leaving.get(i);
      moves.add(new BucketMove(bucket, leavingFrom.get(i), to));
      targets[bucket] = to;
      count[to]++;
    }
    moves.sort(Comparator.comparingInt(BucketMove::bucket));
    BucketMap next = BucketMap.of(current.geneBits(), targets).withVersion(current.version() + 1);
    return new BucketPlan(current, next, moves);
  }
}
