package io.geneid.benchmarks.report;

/**
 * What a generator's bits allow one worker to issue per millisecond, for one benchmark.
 *
 * @param generator who made the ids
 * @param call what the benchmark calls
 * @param layout the bit layout, e.g. {@code T41 W8 S8 G6}
 * @param opsPerMs the most ids per millisecond the layout allows one worker (one generator instance) in this
 *     benchmark, without borrowing time from the future
 * @param basis how {@code opsPerMs} follows from the bits, e.g. {@code 2^S per gene}
 * @param borrows whether the generator may issue ids ahead of the clock, and how far
 */
public record Ceiling(String generator, String call, String layout, double opsPerMs, String basis, String borrows) {}
