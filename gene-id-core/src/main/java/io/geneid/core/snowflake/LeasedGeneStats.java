package io.geneid.core.snowflake;


import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a {@link LeasedGeneGenerator}, from {@link LeasedGeneGenerator#stats()}: the id figures of every
 * worker id it has held, and the state of its lease. The figures to export as metrics and to judge health by.
 *
 * <p>Counters only grow from one snapshot to the next, also across a move to another worker id: the figures of a
 * worker id given up are kept in running totals.
 *
 * @param ids the id figures summed over every worker id this generator has held: ids, clock step-backs and waits
 *     are sums, the largest step back is the largest of all, and the borrowed-time debt is the current worker id's.
 *     Ids made by a worker id at the very moment it was given up, and then refused by fencing, may be counted
 * @param workerId the worker id held now; {@code -1} if none is held (a re-acquisition after a lost lease failed)
 * @param leaseRemaining how long ids may still be issued without another successful renewal: the local fencing
 *     deadline minus now; {@link Duration#ZERO} once fenced (lapsed, lost, closed). In normal operation it moves
 *     between about 95 % and 62 % of the TTL (renewals every third of it)
 * @param ttl the lease time to live of the assigner
 * @param renewalFailures renewal rounds that failed: the store could not be reached or refused the lease, or a
 *     worker id could not be re-acquired after a lost one
 * @param fencings leases lost: the local deadline passed without a successful renewal, or the store refused a
 *     renewal (the id was taken over or forgotten). A lapse is counted once, by whichever sees it first: this
 *     snapshot, an id call or the keeper thread (which looks at least every quarter of the renewal interval while
 *     failing)
 * @param workerSwitches times a clock step back moved this generator to a fresh worker id
 * @param issuing whether ids can be issued right now (see {@link LeasedGeneGenerator#isIssuing()})
 * @param lastRenewalError the message of the last failed renewal, cleared by the next success; {@code null} if the
 *     last renewal succeeded
 */
public record LeasedGeneStats(
    GeneSnowflakeStats ids,
    long workerId,
    Duration leaseRemaining,
    Duration ttl,
    long renewalFailures,
    long fencings,
    long workerSwitches,
    boolean issuing,
    @Nullable String lastRenewalError) {}
