package io.geneid.core.snowflake;

import java.time.Duration;

/**
 * A snapshot of what a {@link GeneSnowflakeGenerator} has done, from {@link GeneSnowflakeGenerator#stats()}: the
 * figures to export as metrics (see the {@code gene-id-micrometer} module).
 *
 * <p>Counters only grow from one snapshot to the next. A snapshot taken while other threads issue ids may lag them
 * by the ids issued in the last moments; it never counts an id that was not issued.
 *
 * @param idsIssued ids issued since the generator was built
 * @param borrowDebt how far the furthest gene is ahead of the clock right now (borrowed time, or a high-water mark
 *     inherited from an earlier holder of the worker id); {@link Duration#ZERO} when no gene is ahead. A debt that
 *     stays near {@code maxBorrowMillis} means the generator runs at its capacity and callers wait for the clock
 * @param clockStepBacks times the clock was seen reading earlier than it had read before (a wall clock stepped back
 *     by NTP or an operator; the default clock never does). A thread delayed between reading the clock and using
 *     it is not mistaken for a step (the clock is read again to confirm). Each step is counted once, except in a
 *     rare race: a thread that read the clock just before a step and reports it just after can make the next
 *     reading count the same step again. Steps are seen when a gene enters a new millisecond, borrows or waits
 * @param largestClockStepBack the largest of those steps; {@link Duration#ZERO} if there was none
 * @param clockWaits times a caller had to wait for the clock: its gene had borrowed as far ahead as it may, or the
 *     clock had stepped back further than the generator may borrow
 */
public record GeneSnowflakeStats(
    long idsIssued, Duration borrowDebt, long clockStepBacks, Duration largestClockStepBack, long clockWaits) {}
