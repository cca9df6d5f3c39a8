package io.geneid.core.lease;

import io.geneid.core.GeneIdException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The acquire loop every store-backed {@link WorkerIdAssigner} runs: one {@link Step} (the store's atomic unit: a
 * Lua script, a transaction, a compare-and-set per {@link LeasePlanner.Candidate}) tries to grant a worker id; a
 * step that lost a race to another acquirer is tried again at once (up to {@link #RACES} times), a busy pool is
 * waited for (a tenth of the TTL between tries) until the acquire timeout, and then
 * {@link WorkerIdExhaustedException} names the pool, its size and every holder.
 */
public final class LeaseLoop {

  /** How often one acquisition tries again at once after losing races, before it waits. */
  public static final int RACES = 16;

  private static final SecureRandom TOKENS = new SecureRandom();

  /** Waits before the next try; {@code remainingNanos} is what is left of the acquire timeout. */
  @FunctionalInterface
  interface Pause {
    void pause(String space, Duration ttl, long remainingNanos);
  }

  /** One try of the store to grant a worker id of the pool {@code [lo, hi]}. */
  @FunctionalInterface
  public interface Step {
    /**
     * Tries to grant a worker id; never waits for one to become free.
     *
     * @param borrowSlackMillis how far ahead of its clock a holder may issue (not negative)
     */
    Attempt attempt(long lo, long hi, long borrowSlackMillis);
  }

  /**
   * What one {@link Step} found.
   *
   * @param lease the lease granted, or null if none was
   * @param raced true if a worker id that looked free was taken by another acquirer first (try again at once)
   * @param holders the worker ids held, as {@code "<id> by <owner> until <expiry>"}, for the exhaustion message
   *     (asked for only then: describing a holder may cost a store call)
   * @param detail added to the exhaustion message after "are taken" (empty, or a note starting with a space)
   * @param freeInMillis when worker ids of unknown history become free, from the step's start; 0 if none waits.
   *     An acquisition with a non-zero timeout waits for them at least that long.
   */
  public record Attempt(@Nullable WorkerLease lease, boolean raced, Supplier<List<String>> holders, String detail,
      long freeInMillis) {

    /** Checks the holders and the detail. */
    public Attempt {
      Objects.requireNonNull(holders, "holders");
      Objects.requireNonNull(detail, "detail");
    }

    /** A worker id was granted. */
    public static Attempt granted(WorkerLease lease) {
      return new Attempt(Objects.requireNonNull(lease, "lease"), false, List::of, "", 0);
    }

    /** None was granted: every worker id is held ({@code raced} false) or was taken first ({@code raced} true). */
    public static Attempt busy(Supplier<List<String>> holders, boolean raced) {
      return new Attempt(null, raced, holders, "", 0);
    }
  }

  private final WorkerIdAssigners.LeaseSettings settings;
  private final Supplier<String> where;
  private final LongSupplier nanoTime;
  private final Pause pause;

  /**
   * A loop for the pool of {@code settings}.
   *
   * @param where names the store in the exhaustion message ({@code "... in <where> after waiting ..."})
   */
  public LeaseLoop(WorkerIdAssigners.LeaseSettings settings, Supplier<String> where) {
    this(settings, where, System::nanoTime, WorkerIdAssigners::pauseBeforeRetry);
  }

  LeaseLoop(WorkerIdAssigners.LeaseSettings settings, Supplier<String> where, LongSupplier nanoTime, Pause pause) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.where = Objects.requireNonNull(where, "where");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.pause = Objects.requireNonNull(pause, "pause");
  }

  /**
   * Runs {@code step} until it grants a worker id of the pool cut to {@code layoutMaxWorkerId}. The lease returned
   * carries the send time of the attempt that granted it ({@link WorkerLease#grantSentNanos()}, on this loop's
   * {@code nanoTime}, {@link System#nanoTime()} outside tests), so that its holder counts the TTL from the grant
   * rather than from its first try.
   *
   * @throws WorkerIdExhaustedException when no worker id became free within the acquire timeout (extended to cover
   *     worker ids of unknown history that a step says become free later)
   * @throws IllegalArgumentException when the pool starts above {@code layoutMaxWorkerId}
   * @throws GeneIdException if interrupted while waiting, or what the step throws
   */
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack, Step step) {
    Objects.requireNonNull(borrowSlack, "borrowSlack");
    long[] range = WorkerIdAssigners.poolRange(settings.space(), settings.minWorkerId(), settings.maxWorkerId(),
        layoutMaxWorkerId);
    long slack = Math.max(0, borrowSlack.toMillis());
    Duration timeout = settings.acquireTimeout();
    long deadline = nanoTime.getAsLong() + timeout.toNanos();
    for (int races = 0; ; ) {
      long sent = nanoTime.getAsLong();
      Attempt a = step.attempt(range[0], range[1], slack);
      WorkerLease lease = a.lease();
      if (lease != null) {
        // the TTL of this grant runs from this attempt's send, not from the first try: the loop may have waited up
        // to the acquire timeout for a free worker id before it (a step's reads come before its grant: earlier, safe)
        return lease.grantSentAt(sent);
      }
      if (a.raced() && ++races < RACES) {
        continue;
      }
      if (a.freeInMillis() > 0 && !timeout.isZero()) {
        // never let the default timeout fail the first start of a new pool (or the first after a restart)
        deadline = Math.max(deadline, sent + TimeUnit.MILLISECONDS.toNanos(a.freeInMillis() + 50));
      }
      long remaining = deadline - nanoTime.getAsLong();
      if (remaining <= 0) {
        List<String> holders = new ArrayList<>(a.holders().get());
        holders.sort(Comparator.comparingLong(LeaseLoop::leadingId));
        throw new WorkerIdExhaustedException(settings.space(), range[0], range[1], holders, a.detail() + " in "
            + where.get() + " after waiting " + timeout.toMillis() + " ms");
      }
      races = 0;
      pause.pause(settings.space(), settings.ttl(), remaining);
    }
  }

  /** A random non-zero fencing token: it never repeats across a store's history, whatever the store forgets. */
  public static long newToken() {
    long token;
    do {
      token = TOKENS.nextLong();
    } while (token == 0);
    return token;
  }

  /** {@code "<id> by ..."}: the id, for sorting holders. */
  private static long leadingId(String holder) {
    int space = holder.indexOf(' ');
    try {
      return Long.parseLong(space < 0 ? holder : holder.substring(0, space));
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }
}
