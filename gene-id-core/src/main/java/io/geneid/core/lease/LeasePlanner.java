package io.geneid.core.lease;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of the worker-id lease protocol, as pure functions of what a store holds: which worker ids a grant may
 * take and in which order, whether a worker id is held, expired, released or never used, and which previous
 * high-water mark a grant carries. The stores only read their records into {@link Slot}s and write what a
 * {@link Candidate} says in one atomic step (a transaction, a compare-and-set); {@link LeaseLoop} retries and waits.
 *
 * <p>The rules:
 * <ul>
 *   <li>A worker id is <b>held</b> while it has a claim whose expiry is after now, or a claim but no record (its
 *       holder writes the record again at its next renewal). Held ids are never candidates; they are the holders an
 *       exhaustion message names.
 *   <li>A worker id with neither record nor claim is <b>fresh</b> (never granted, or the store lost it: a store that
 *       does not vouch for its history covers that with the unknown-history wait). Fresh ids come first, lowest
 *       first, at most {@link #FRESH_PER_PLAN} of them; the previous mark is {@link java.time.Instant#EPOCH}.
 *   <li>Then every other worker id (released, or its claim expired or gone), <b>least recently used first</b> (by
 *       the store's order of last writes, then by id). One released with its exact mark and without a claim carries
 *       that mark; any other carries at least {@code now + borrowSlack}, since its holder may have issued up to its
 *       clock plus its borrowing bound before it stopped.
 * </ul>
 */
public final class LeasePlanner {

  /** How many fresh worker ids one plan offers (a pool may have 2^28): a grant that loses them all plans again. */
  public static final int FRESH_PER_PLAN = 64;

  private LeasePlanner() {}

  /**
   * A worker id's durable record: the high-water mark its last holder recorded, whether it released the id with its
   * exact mark, and when it was last written.
   *
   * @param mark the recorded high-water mark (ms since 1970)
   * @param released true if the last holder gave the id back with its exact mark
   * @param lastUsed the store's order of the record's last write (a store time or a revision): lower is older
   */
  public record Mark(long mark, boolean released, long lastUsed) {}

  /**
   * A worker id's claim: who holds it and until when.
   *
   * @param owner the holder's name, for messages
   * @param expiresAt when the claim expires, ms since 1970 in the store's time; {@link Long#MAX_VALUE} where the store
   *     deletes expired claims itself
   */
  public record Claim(String owner, long expiresAt) {
    /** Checks the owner. */
    public Claim {
      Objects.requireNonNull(owner, "owner");
    }
  }

  /**
   * What a store holds about one worker id: its record and its claim, either of which may be missing (a row that is
   * both, as in a table, gives both).
   */
  public record Slot(long workerId, @Nullable Mark record, @Nullable Claim claim) {}

  /**
   * One way to grant a worker id.
   *
   * @param workerId the worker id to take
   * @param previousMark the previous holder's high-water mark the grant carries (ms since 1970)
   * @param fresh true if the worker id has neither record nor claim (the grant creates them)
   * @param slot what the store held about it when planned; null for a fresh worker id
   */
  public record Candidate(long workerId, long previousMark, boolean fresh, @Nullable Slot slot) {}

  /**
   * What to try, in order, and who holds the rest.
   *
   * @param candidates the worker ids to try, in order: the first grant that succeeds wins
   * @param holders the slots held now (their claims are not null), by worker id
   */
  public record Plan(List<Candidate> candidates, List<Slot> holders) {}

  /** Whether {@code slot} is held at {@code now}: a live claim, or a claim without a record. */
  public static boolean held(Slot slot, long now) {
    Claim c = slot.claim();
    return c != null && (slot.record() == null || now < c.expiresAt());
  }

  /**
   * The previous high-water mark a grant of {@code slot} carries at {@code now}: its exact mark if released with it
   * and unclaimed, else at least {@code now + borrowSlack}. Zero for a slot with neither record nor claim.
   */
  public static long previousMark(Slot slot, long now, long borrowSlackMillis) {
    Mark m = slot.record();
    if (m == null && slot.claim() == null) {
      return 0;
    }
    long mark = m == null ? 0 : m.mark();
    if (m != null && m.released() && slot.claim() == null) {
      return mark;
    }
    return Math.max(mark, now + borrowSlackMillis);
  }

  /**
   * The plan for the pool {@code [lo, hi]} at store time {@code now}.
   *
   * @param slots what the store holds; slots outside {@code [lo, hi]} are ignored, one slot per worker id
   * @param borrowSlackMillis how far ahead of its clock a holder may issue (not negative)
   */
  public static Plan plan(long lo, long hi, long now, long borrowSlackMillis, Collection<Slot> slots) {
    if (lo < 0 || hi < lo) {
      throw new IllegalArgumentException("the pool must be [lo, hi] with 0 <= lo <= hi but was [" + lo + ", " + hi
          + "]");
    }
    if (borrowSlackMillis < 0) {
      throw new IllegalArgumentException("borrowSlackMillis must not be negative but was " + borrowSlackMillis);
    }
    Set<Long> known = new HashSet<>();
    List<Slot> free = new ArrayList<>();
    List<Slot> holders = new ArrayList<>();
    for (Slot s : slots) {
      long id = s.workerId();
      if (id < lo || id > hi || (s.record() == null && s.claim() == null) || !known.add(id)) {
        continue;
      }
      if (held(s, now)) {
        holders.add(s);
      } else {
        free.add(s);
      }
    }
    List<Candidate> candidates = new ArrayList<>();
    for (long id = lo; id <= hi && candidates.size() < FRESH_PER_PLAN; id++) {
      if (!known.contains(id)) {
        candidates.add(new Candidate(id, 0, true, null));
      }
      if (id == Long.MAX_VALUE) {
        break;
      }
    }
    free.sort(Comparator.comparingLong(LeasePlanner::lastUsed).thenComparingLong(Slot::workerId));
    for (Slot s : free) {
      candidates.add(new Candidate(s.workerId(), previousMark(s, now, borrowSlackMillis), false, s));
    }
    holders.sort(Comparator.comparingLong(Slot::workerId));
    return new Plan(List.copyOf(candidates), List.copyOf(holders));
  }

  /** A slot without a record (its claim expired) counts as used longest ago. */
  private static long lastUsed(Slot s) {
    Mark m = s.record();
    return m == null ? Long.MIN_VALUE : m.lastUsed();
  }
}
