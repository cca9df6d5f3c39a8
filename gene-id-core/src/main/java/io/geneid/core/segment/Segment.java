package io.geneid.core.segment;

/**
 * A range of values {@code [start, endInclusive]} handed out by a {@link SegmentStore} for one business tag. A
 * {@link GeneSegmentGenerator} turns each value into one id: {@code (value << G) | gene}.
 *
 * @param start the first value of the range, at least 1 (value 0 would make id 0 for gene 0, which many ORMs read
 *     as "no id")
 * @param endInclusive the last value of the range, not below {@code start}
 */
public record Segment(long start, long endInclusive) {

  /** Checks the bounds. */
  public Segment {
    if (start < 1) {
      throw new IllegalArgumentException("segment start must be at least 1 but was " + start);
    }
    if (endInclusive < start) {
      throw new IllegalArgumentException(
          "segment end must not be below its start but the segment was [" + start + ", " + endInclusive + "]");
    }
  }

  /** How many values the segment holds: {@code endInclusive - start + 1}. */
  public long size() {
    return endInclusive - start + 1;
  }

  @Override
  public String toString() {
    return "[" + start + ", " + endInclusive + "]";
  }
}
