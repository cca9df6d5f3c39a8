package io.geneid.core.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.lease.LeaseKeyValueStore.Entry;
import io.geneid.core.lease.LeaseKeyValueStore.Kind;
import io.geneid.core.lease.LeaseKeyValueStore.Write;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The protocol over a key-value store, on an in-memory one that times claims by their last write (as ZooKeeper). */
class KeyValueLeasesTest {

  private static final Duration TTL = Duration.ofSeconds(1);

  /** An in-memory versioned store with a settable clock; {@link #stolen} makes the next claim creations fail. */
  static final class MemoryStore implements LeaseKeyValueStore {
    final Map<String, Entry> entries = new HashMap<>();
    long now = 1_000_000;
    long version;
    final AtomicInteger stolen = new AtomicInteger();
    final List<String> commits = new ArrayList<>();

    @Override
    public long now() {
      return now;
    }

    @Override
    public List<Entry> list(Kind kind) {
      List<Entry> out = new ArrayList<>();
      entries.forEach((k, e) -> {
        if (k.startsWith(kind.name())) {
          out.add(e);
        }
      });
      return out;
    }

    @Override
    public @Nullable Entry get(Kind kind, long id) {
      return entries.get(where(kind, id));
    }

    @Override
    public long commit(List<Write> writes) {
      Map<String, Entry> next = new HashMap<>(entries);
      for (Write w : writes) {
        String key = where(w.kind(), w.id());
        Entry e = next.get(key);
        if (w instanceof Create c) {
          if (e != null || (c.kind() == Kind.CLAIM && stolen.getAndUpdate(n -> Math.max(0, n - 1)) > 0)) {
            return -1;
          }
          next.put(key, new Entry(w.id(), c.value(), ++version, now, 1));
        } else if (w instanceof Put p) {
          if (e == null || e.version() != p.version()) {
            return -1;
          }
          next.put(key, new Entry(w.id(), p.value(), ++version, now, e.session()));
        } else if (w instanceof Touch t) {
          if (e == null || e.version() != t.version()) {
            return -1;
          }
          next.put(key, new Entry(w.id(), t.value(), ++version, now, e.session()));
        } else if (w instanceof Delete d) {
          if (e == null || e.version() != d.version()) {
            return -1;
          }
          next.remove(key);
        }
      }
      entries.clear();
      entries.putAll(next);
      commits.add(writes.toString());
      return now;
    }

    @Override
    public long expiresAt(Entry claim) {
      return claim.lastWritten() + TTL.toMillis();
    }

    @Override
    public String where(Kind kind, long id) {
      return kind.name() + "/" + id;
    }
  }

  private final MemoryStore store = new MemoryStore();

  private KeyValueLeases leases(String owner, long min, long max) {
    return new KeyValueLeases(store, new WorkerIdAssigners.LeaseSettings("s", min, max, TTL, Duration.ZERO, owner),
        TTL, "memory", KeyValueLeasesTest.class.getName());
  }

  @Test
  void aGrantWritesRecordAndClaimInOneCommitAndExpiresOneTtlLater() {
    WorkerLease l = leases("alpha", 0, 3).acquire(255, Duration.ofMillis(10));
    assertThat(l.workerId()).isZero();
    assertThat(l.previousHighWaterMark()).isEqualTo(Instant.EPOCH);
    assertThat(l.expiresAt()).isEqualTo(Instant.ofEpochMilli(store.now + 1_000));
    assertThat(store.get(Kind.RECORD, 0).value()).isEqualTo("mark=0;state=held;owner=alpha");
    assertThat(store.get(Kind.CLAIM, 0).value()).isEqualTo("token=" + l.token() + ";owner=alpha");
    assertThat(store.commits).hasSize(1);
  }

  @Test
  void anExpiredClaimIsTakenOverAboveNowPlusSlackAndItsHolderIsRefused() {
    KeyValueLeases old = leases("old", 0, 0);
    WorkerLease lease = old.acquire(255, Duration.ofMillis(10));
    old.renew(lease, Instant.ofEpochMilli(store.now + 100));
    store.now += 1_000; // the claim expires
    WorkerLease taken = leases("next", 0, 0).acquire(255, Duration.ofMillis(10));
    assertThat(taken.previousHighWaterMark()).isEqualTo(Instant.ofEpochMilli(store.now + 10));
    assertThatThrownBy(() -> old.renew(lease, Instant.EPOCH)).isInstanceOf(WorkerLeaseLostException.class)
        .hasMessage("worker id 0 of space 's' is no longer leased under token " + lease.token() + " in memory: it "
            + "was taken over (token " + taken.token() + ")");
    old.release(lease, Instant.EPOCH); // not ours any more: nothing happens
    assertThat(store.get(Kind.CLAIM, 0).value()).contains("owner=next");
  }

  @Test
  void renewalKeepsTheHighestMarkAndReleaseRecordsTheExactOne() {
    KeyValueLeases a = leases("a", 0, 1);
    WorkerLease l = a.acquire(255, Duration.ZERO);
    store.now += 300;
    WorkerLease r = a.renew(l, Instant.ofEpochMilli(5_000_000));
    assertThat(r.expiresAt()).isEqualTo(Instant.ofEpochMilli(store.now + 1_000));
    assertThat(a.renew(r, Instant.ofEpochMilli(1)).highWaterMark()).isEqualTo(Instant.ofEpochMilli(5_000_000));
    a.release(r, Instant.ofEpochMilli(4_000_000));
    assertThat(store.get(Kind.CLAIM, 0)).isNull();
    assertThat(store.get(Kind.RECORD, 0).value()).isEqualTo("mark=4000000;state=released;owner=a");
    // worker id 1 was never used: it comes before the released one
    assertThat(leases("b", 0, 1).acquire(255, Duration.ZERO).workerId()).isEqualTo(1);
    WorkerLease back = leases("c", 0, 1).acquire(255, Duration.ZERO);
    assertThat(back.workerId()).isZero();
    assertThat(back.previousHighWaterMark()).isEqualTo(Instant.ofEpochMilli(4_000_000));
  }

  @Test
  void aLostRaceMovesToTheNextCandidate() {
    store.stolen.set(1);
    assertThat(leases("a", 0, 3).acquire(255, Duration.ZERO).workerId()).isEqualTo(1);
  }

  @Test
  void aRecordGoneUnderItsHolderLosesTheLease() {
    KeyValueLeases a = leases("a", 0, 0);
    WorkerLease l = a.acquire(255, Duration.ZERO);
    store.entries.remove("RECORD/0");
    assertThatThrownBy(() -> a.renew(l, Instant.EPOCH)).isInstanceOf(WorkerLeaseLostException.class)
        .hasMessageEndingWith("its record RECORD/0 is gone (deleted, or the store lost data)");
  }

  @Test
  void exhaustionNamesTheHoldersWithTheirExpiry() {
    leases("alpha", 4, 5).acquire(255, Duration.ZERO);
    leases("beta", 4, 5).acquire(255, Duration.ZERO);
    assertThatThrownBy(() -> leases("gamma", 4, 5).acquire(255, Duration.ZERO))
        .isInstanceOf(WorkerIdExhaustedException.class)
        .hasMessageContaining("all 2 worker ids of the pool [4, 5] are taken in memory after waiting 0 ms; holders: "
            + "4 by alpha until " + Instant.ofEpochMilli(store.now + 1_000) + ", 5 by beta until ");
  }
}
