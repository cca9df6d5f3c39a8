package io.geneid.benchmarks.report;

/**
 * What a generator's bits allow one worker to issue per millisecond, for one benchmark.
 *
 * @param generator who made the ids
 * @param call what the benchmark calls
 * @param layout the bit layout, e.g. {@code T41 W8 S8 G6}
 * @param opsPerMs the most ids per millisecond the layout allows one worker (one generator instance) in this
 *     benchmark, without borrowing time from the future; {@link Double#NaN} for ids without a bit ceiling
 *     (segment ids, see {@link #storeBound})
 * @param basis how {@code opsPerMs} follows from the bits, e.g. {@code 2^S per gene}, or what bounds the rate
 *     instead
 * @param borrows whether the generator may issue ids ahead of the clock, and how far
 */
public record Ceiling(String generator, String call, String layout, double opsPerMs, String basis, String borrows) {

  /**
   * The "ceiling" of ids that read no clock (segment ids): none from the bits; a real store sets the rate, one
   * round trip per segment. There is no ratio to compute.
   */
  public static Ceiling storeBound(String generator, String call, String layout, String basis) {
    return new Ceiling(generator, call, layout, Double.NaN, basis, "n/a (no clock)");
  }

  /** Whether the bits limit the rate, so that measured / {@link #opsPerMs} means something. */
  public boolean hasBitCeiling() {
    return !Double.isNaN(opsPerMs);
  }
}
