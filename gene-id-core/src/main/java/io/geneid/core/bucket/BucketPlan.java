package io.geneid.core.bucket;

import java.util.List;

/**
 * What {@link BucketPlanner#plan(BucketMap, int)} found: the moves from {@code current} to {@code next}.
 *
 * @param current the map the plan starts from
 * @param next the map once every move is done: {@code current}'s version + 1, every bucket {@link BucketState#NORMAL}
 * @param moves the buckets that change target, ascending by bucket
 */
public record BucketPlan(BucketMap current, BucketMap next, List<BucketMove> moves) {

  /** Copies the moves. */
  public BucketPlan {
    moves = List.copyOf(moves);
  }

  /** The share of buckets that move, in {@code [0, 1]}: with evenly filled buckets, the share of rows. */
  public double movedShare() {
    return (double) moves.size() / current.bucketCount();
  }

  /** The moves leaving {@code from} for {@code to}. */
  public List<BucketMove> movesBetween(int from, int to) {
    return moves.stream().filter(m -> m.from() == from && m.to() == to).toList();
  }
}
