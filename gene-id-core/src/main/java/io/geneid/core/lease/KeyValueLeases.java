package io.geneid.core.lease;

import io.geneid.core.GeneIdException;
import io.geneid.core.lease.LeaseKeyValueStore.Create;
import io.geneid.core.lease.LeaseKeyValueStore.Delete;
import io.geneid.core.lease.LeaseKeyValueStore.Entry;
import io.geneid.core.lease.LeaseKeyValueStore.Kind;
import io.geneid.core.lease.LeaseKeyValueStore.Put;
import io.geneid.core.lease.LeaseKeyValueStore.Touch;
import io.geneid.core.lease.LeaseKeyValueStore.Write;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Acquire, renew and release of worker-id leases over a {@link LeaseKeyValueStore}: the {@link LeaseLoop}, the
 * {@link LeasePlanner}'s decisions, and the entries' text, so that a ZooKeeper or etcd assigner only reads and
 * writes entries.
 *
 * <p>Per worker id: a record {@code mark=<ms>;state=held|released;owner=<holder>} and, while held, a claim
 * {@code token=<token>;owner=<holder>}. A grant is one commit: the claim created (an expired one deleted under its
 * version first) and the record created or rewritten under its version, so two acquirers never both get one worker
 * id. A renewal finds its claim (same token, this client's session), keeps it alive, and rewrites the record with the
 * higher mark in one commit under both versions; a release deletes the claim and writes the record
 * {@code released} with the exact mark.
 */
public final class KeyValueLeases {

  private final LeaseKeyValueStore store;
  private final WorkerIdAssigners.LeaseSettings settings;
  private final Duration claimTtl;
  private final String description;
  private final System.Logger log;
  private final LeaseLoop loop;

  /**
   * @param settings the pool's settings
   * @param claimTtl how long a claim lasts from its grant (the TTL, or the TTL rounded up to what the store keeps)
   * @param description the store, for messages (never a password)
   * @param logger the name of the logger to log debug and warning lines to (the assigner's class)
   */
  public KeyValueLeases(LeaseKeyValueStore store, WorkerIdAssigners.LeaseSettings settings, Duration claimTtl,
      String description, String logger) {
    this.store = Objects.requireNonNull(store, "store");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.claimTtl = Objects.requireNonNull(claimTtl, "claimTtl");
    this.description = Objects.requireNonNull(description, "description");
    this.log = System.getLogger(logger);
    this.loop = new LeaseLoop(settings, () -> description);
  }

  /** {@link WorkerIdAssigner#acquire(long, Duration)}. */
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    WorkerLease lease = loop.acquire(layoutMaxWorkerId, borrowSlack, this::attempt);
    log.log(Level.DEBUG, () -> "acquired worker id " + lease.workerId() + " of space '" + settings.space() + "' at "
        + description + "; previous holder's mark " + lease.previousHighWaterMark());
    return lease;
  }

  private LeaseLoop.Attempt attempt(long lo, long hi, long slack) {
    store.check();
    long now = store.now();
    Map<Long, Entry> records = inRange(store.list(Kind.RECORD), lo, hi);
    Map<Long, Entry> claims = inRange(store.list(Kind.CLAIM), lo, hi);
    Map<Long, LeasePlanner.Slot> slots = new HashMap<>();
    for (Entry r : records.values()) {
      Map<String, String> f = fields(r.value());
      slots.put(r.id(), new LeasePlanner.Slot(r.id(),
          new LeasePlanner.Mark(num(f.get("mark")), "released".equals(f.get("state")), r.lastWritten()), null));
    }
    for (Entry c : claims.values()) {
      LeasePlanner.Slot s = slots.get(c.id());
      LeasePlanner.Claim claim = new LeasePlanner.Claim(fields(c.value()).getOrDefault("owner", ""),
          store.expiresAt(c));
      slots.put(c.id(), new LeasePlanner.Slot(c.id(), s == null ? null : s.record(), claim));
    }
    LeasePlanner.Plan plan = LeasePlanner.plan(lo, hi, now, slack, slots.values());
    for (LeasePlanner.Candidate c : plan.candidates()) {
      long token = LeaseLoop.newToken();
      String owner = settings.owner();
      List<Write> writes = new ArrayList<>();
      String record = record(c.previousMark(), "held", owner);
      Entry r = records.get(c.workerId());
      writes.add(r == null ? new Create(Kind.RECORD, c.workerId(), record)
          : new Put(Kind.RECORD, c.workerId(), record, r.version()));
      Entry expired = claims.get(c.workerId());
      if (expired != null) {
        writes.add(new Delete(Kind.CLAIM, c.workerId(), expired.version()));
      }
      writes.add(new Create(Kind.CLAIM, c.workerId(), claim(token, owner)));
      if (store.commit(writes) >= 0) {
        return LeaseLoop.Attempt.granted(new WorkerLease(settings.space(), c.workerId(), token, owner,
            Instant.ofEpochMilli(c.previousMark()), Instant.ofEpochMilli(c.previousMark()),
            Instant.ofEpochMilli(now + claimTtl.toMillis())));
      }
    }
    return LeaseLoop.Attempt.busy(() -> {
      List<String> holders = new ArrayList<>();
      for (LeasePlanner.Slot s : plan.holders()) {
        holders.add(s.workerId() + " by " + Objects.requireNonNull(s.claim()).owner() + " until "
            + store.describeExpiry(Objects.requireNonNull(claims.get(s.workerId()))));
      }
      return holders;
    }, !plan.candidates().isEmpty());
  }

  /** {@link WorkerIdAssigner#renew(WorkerLease, Instant)}. */
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    long id = lease.workerId();
    for (int races = 0; ; races++) {
      store.check();
      Entry claim = ownClaim(lease);
      long until;
      try {
        until = store.keepAlive(claim);
      } catch (LeaseKeyValueStore.Gone e) {
        throw lost(lease, e.getMessage());
      }
      Entry r = store.get(Kind.RECORD, id);
      if (r == null) {
        throw lost(lease, "its record " + store.where(Kind.RECORD, id) + " is gone (deleted, or the store lost data)");
      }
      long mark = Math.max(num(fields(r.value()).get("mark")), highWaterMark.toEpochMilli());
      long at = store.commit(List.of(new Touch(Kind.CLAIM, id, claim.value(), claim.version()),
          new Put(Kind.RECORD, id, record(mark, "held", lease.owner()), r.version())));
      if (at >= 0) {
        return lease.renewed(Instant.ofEpochMilli(mark),
            Instant.ofEpochMilli(until >= 0 ? until : at + claimTtl.toMillis()));
      }
      if (races >= LeaseLoop.RACES) {
        throw new GeneIdException("renewing worker id " + id + " of space '" + settings.space() + "' at "
            + description + " kept losing races (it kept changing)");
      }
      // re-read: the claim may have been taken over, or only the record was written meanwhile
    }
  }

  /** {@link WorkerIdAssigner#release(WorkerLease, Instant)}. */
  public void release(WorkerLease lease, Instant highWaterMark) {
    long id = lease.workerId();
    for (int races = 0; races < LeaseLoop.RACES; races++) {
      Entry claim;
      try {
        claim = ownClaim(lease);
      } catch (WorkerLeaseLostException e) {
        log.log(Level.WARNING, () -> "worker id " + id + " of space '" + settings.space() + "' at " + description
            + " was not released: " + e.getMessage());
        return;
      }
      Entry r = store.get(Kind.RECORD, id);
      String released = record(highWaterMark.toEpochMilli(), "released", lease.owner());
      Write mark = r == null ? new Create(Kind.RECORD, id, released)
          : new Put(Kind.RECORD, id, released, r.version());
      if (store.commit(List.of(new Delete(Kind.CLAIM, id, claim.version()), mark)) >= 0) {
        store.released(claim);
        log.log(Level.DEBUG, () -> "released worker id " + id + " of space '" + settings.space() + "' at "
            + description + " with high-water mark " + highWaterMark);
        return;
      }
      // changed meanwhile: look again
    }
    throw new GeneIdException("releasing worker id " + id + " of space '" + settings.space() + "' at " + description
        + " kept losing races; it expires by itself");
  }

  /** The claim of {@code lease}, checked: same token, this client's session. */
  private Entry ownClaim(WorkerLease lease) {
    Entry c = store.get(Kind.CLAIM, lease.workerId());
    if (c == null) {
      throw lost(lease, "the store has no claim for it (released, taken over after expiry, or its session or store "
          + "lease ended)");
    }
    long token = num(fields(c.value()).get("token"));
    if (token != lease.token()) {
      throw lost(lease, "it was taken over (token " + token + ")");
    }
    String foreign = store.foreign(c);
    if (foreign != null) {
      throw lost(lease, foreign);
    }
    return c;
  }

  private WorkerLeaseLostException lost(WorkerLease lease, @Nullable String why) {
    return new WorkerLeaseLostException(settings.space(), lease.workerId(), "worker id " + lease.workerId()
        + " of space '" + settings.space() + "' is no longer leased under token " + lease.token() + " in "
        + description + ": " + why, null);
  }

  private static Map<Long, Entry> inRange(List<Entry> entries, long lo, long hi) {
    Map<Long, Entry> in = new HashMap<>();
    for (Entry e : entries) {
      if (e.id() >= lo && e.id() <= hi) {
        in.put(e.id(), e);
      }
    }
    return in;
  }

  /** A record's text: its high-water mark, {@code held} or {@code released}, and its last holder. */
  static String record(long mark, String state, String holder) {
    return "mark=" + mark + ";state=" + state + ";owner=" + holder;
  }

  /** A claim's text: the holder's fencing token and name. */
  static String claim(long token, String holder) {
    return "token=" + token + ";owner=" + holder;
  }

  /** The fields of an entry's text; {@code owner} comes last and may hold any character. */
  static Map<String, String> fields(String text) {
    Map<String, String> f = new LinkedHashMap<>();
    int ownerAt = text.indexOf("owner=");
    String head = ownerAt < 0 ? text : text.substring(0, ownerAt);
    for (String part : head.split(";")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        f.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    if (ownerAt >= 0) {
      f.put("owner", text.substring(ownerAt + "owner=".length()));
    }
    return f;
  }

  static long num(@Nullable String text) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
