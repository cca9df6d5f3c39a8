package io.geneid.core.lease;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A versioned key-value store, as much of one as {@link KeyValueLeases} needs to run the lease protocol on it
 * (ZooKeeper, etcd). Two kinds of entries per worker id: a durable {@link Kind#RECORD} (mark, state, last holder)
 * and a {@link Kind#CLAIM} that the store drops when its holder goes away (a ZooKeeper ephemeral node, a key on an
 * etcd lease). Every method talks to the store and throws {@link io.geneid.core.GeneIdException} naming it when it
 * cannot; none decides anything about leases.
 */
public interface LeaseKeyValueStore {

  /** The two entries a worker id may have. */
  enum Kind {
    /** Durable: the worker id's high-water mark, state and last holder. */
    RECORD,
    /** Ephemeral: the holder's fencing token and name, gone when the holder's session or store lease ends. */
    CLAIM
  }

  /**
   * An entry as read.
   *
   * @param id the worker id
   * @param value its text
   * @param version what a conditional write compares (a node version, a mod revision)
   * @param lastWritten the store's order of its last write (a store time or a revision)
   * @param session the session or store lease a claim is bound to (0 if none)
   */
  record Entry(long id, String value, long version, long lastWritten, long session) {
    /** Checks the value. */
    public Entry {
      Objects.requireNonNull(value, "value");
    }
  }

  /** One write of an atomic {@link #commit(List)}. */
  sealed interface Write {
    /** The kind of entry written. */
    Kind kind();

    /** The worker id whose entry is written. */
    long id();
  }

  /** Creates an entry that must be absent; a claim is bound to a session or store lease of this client. */
  record Create(Kind kind, long id, String value) implements Write {}

  /** Rewrites an entry that must be at {@code version}. */
  record Put(Kind kind, long id, String value, long version) implements Write {}

  /** Deletes an entry that must be at {@code version}. */
  record Delete(Kind kind, long id, long version) implements Write {}

  /**
   * Requires a claim at {@code version}; a store that times claims by their last write (ZooKeeper) rewrites it with
   * {@code value}, which renews it.
   */
  record Touch(Kind kind, long id, String value, long version) implements Write {}

  /** Thrown by {@link #keepAlive(Entry)} when the claim's session or store lease is gone. */
  final class Gone extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param why what is gone, for the lost-lease message */
    public Gone(String why) {
      super(why, null, false, false);
    }
  }

  /** Fails at once when the store cannot be trusted now (not connected); called before every acquire and renew try. */
  default void check() {}

  /** The store's time, ms since 1970 (the time a grant's expiry is counted from). */
  long now();

  /** Every entry of {@code kind} in the pool (the caller keeps those of its range). */
  List<Entry> list(Kind kind);

  /** One entry, or null if absent. */
  @Nullable Entry get(Kind kind, long id);

  /**
   * Applies every write, or none if a condition fails.
   *
   * @return the store time of the commit (0 if the store has none to tell), or -1 if a condition failed
   */
  long commit(List<Write> writes);

  /** When {@code claim} expires, store time; {@link Long#MAX_VALUE} where the store drops expired claims itself. */
  long expiresAt(Entry claim);

  /** {@link #expiresAt(Entry)} for a message; a store may ask for it (called only when a pool is exhausted). */
  default String describeExpiry(Entry claim) {
    return java.time.Instant.ofEpochMilli(expiresAt(claim)).toString();
  }

  /** Why {@code claim} does not belong to this client's current session, or null if it does (or sessions are moot). */
  default @Nullable String foreign(Entry claim) {
    return null;
  }

  /**
   * Keeps {@code claim}'s session or store lease alive before a renewal.
   *
   * @return the claim's new expiry (store time), or -1 if the renewal's commit sets it (its time + the TTL)
   * @throws Gone if the claim's session or store lease has ended
   */
  default long keepAlive(Entry claim) {
    return -1;
  }

  /** Called after {@code claim} was released (deleted), e.g. to revoke its store lease. */
  default void released(Entry claim) {}

  /** Where an entry lives (a path, a key), for messages. */
  String where(Kind kind, long id);
}
