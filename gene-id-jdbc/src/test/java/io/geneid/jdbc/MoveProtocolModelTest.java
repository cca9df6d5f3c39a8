package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The online move of {@link JdbcBucketMover} (issue #38) as a small state machine, explored by many seeded random
 * schedules: two databases (OLD, NEW) with a routed table, a staging and a side table and a fence row each; a map
 * store with the bucket's target, state and version; two routers that follow it at their own pace; three client
 * sessions running READ COMMITTED or REPEATABLE READ transactions (a snapshot per database, taken at its first
 * statement there) of reads by key, scans over both databases and writes by key, each statement routed at one time
 * and run later, within {@code settle} for a plain statement and at any later time for a JDBC batch, or sent by
 * plain JDBC to any database while the fence rule applies; the mover, step for step as {@code move(BucketMove, Run)}
 * and {@code finishSwitch} do them, moving the bucket to NEW and back, crashing and rerun; and {@code cleanup},
 * concurrently with it.
 *
 * <p>The rule it checks. A write to the bucket can commit only on the database the map names, because the fence row
 * is written on every database before the freeze, stays on every database but the owner until cleanup, and every
 * transaction open when it was written (whose snapshot may not show it) is waited for before the copy is read: so the
 * copy holds every acknowledged write and none can land behind it. A read by key never misses, because the copy is
 * in NEW's routed table before a router names NEW and every transaction whose snapshot of NEW predates it has ended
 * by then, and the old rows are set aside only once every router (and every statement it routed, {@code settle})
 * names NEW. A scan never counts a row twice, because it is refused while the bucket is SWITCHING (the only time both
 * routed tables hold it) and every snapshot taken before the set-aside has ended before MOVED. Cleanup deletes on a
 * node only under the fence row the finished move left, so a move back that fenced it again is left alone.
 *
 * <p>Every step checks: each router's node holds exactly the acknowledged rows of the bucket; each read by key
 * returns the acknowledged value at its snapshot; no scan counts a row twice; the copy is never read while a
 * transaction could still commit a write to the bucket on either node. At the end (sessions finished, mover rerun to
 * the end, cleanup run) the owner's routed table equals the acknowledged state and nothing of the bucket is left
 * elsewhere. {@link Broken} removes one rule at a time, and each removal must be caught.
 */
class MoveProtocolModelTest {

  static final int OLD = 0;
  static final int NEW = 1;
  /** The bucket that moves; keys 1..3 are in it, key 10 is in a bucket that stays on OLD, 11 in one on NEW. */
  static final int MOVING = 0;
  static final int[] KEYS = {1, 2, 3, 10, 11};
  static final int DELETE = -1;
  static final int SCHEDULES = 1_000;

  /** One rule of the protocol removed. */
  enum Broken {
    NOTHING,
    /** The old node is unfenced together with the new one at MOVED. */
    OLD_UNFENCED_AT_MOVED,
    /** No wait for the transactions open on old and new after the fence and the freeze. */
    NO_WAIT_AFTER_FENCE,
    /** No wait for the transactions open at the publication of the copy before the map names the new node. */
    NO_WAIT_AFTER_PUBLISH,
    /** No wait for the transactions open at the set-aside before MOVED. */
    NO_WAIT_AFTER_SET_ASIDE,
    /** Cleanup deletes without checking that the fence row is still the finished move's. */
    CLEANUP_WITHOUT_FENCE_CHECK,
    /**
     * Cleanup deletes from the routed table also where the bucket has no fence row (before 796b3a8): a move back that
     * finished after cleanup read the map lifted it there as its destination, and cleanup empties the new owner.
     */
    CLEANUP_WITHOUT_A_FENCE_ROW,
    /**
     * {@code finishSwitch} waits for the routers and sets the old rows aside at once, without the {@code settle} that
     * {@code move} waits after the same wait: a read by key a lagging router routed to the old node just before it saw
     * the switch arrives after the set-aside and misses (found by this model in the mover as first written).
     */
    NO_SETTLE_IN_FINISH_SWITCH
  }

  enum State { NORMAL, FROZEN, SWITCHING, MOVED }

  /** A version of the map: the moving bucket's target and state (the other buckets never move). */
  record MapVersion(int version, int target, State state) {
    int target(int bucket) {
      return bucket == MOVING ? target : bucket == 1 ? OLD : NEW;
    }
  }

  static int bucketOf(int key) {
    return key < 10 ? MOVING : key == 10 ? 1 : 2;
  }

  /** One committed state of a database's tables: key to value, and the moving bucket's fence row (its version). */
  static final class Tables {
    final TreeMap<Integer, Integer> routed = new TreeMap<>();
    final TreeMap<Integer, Integer> staging = new TreeMap<>();
    final TreeMap<Integer, Integer> aside = new TreeMap<>();
    @Nullable Integer fence;

    Tables copy() {
      Tables t = new Tables();
      t.routed.putAll(routed);
      t.staging.putAll(staging);
      t.aside.putAll(aside);
      t.fence = fence;
      return t;
    }
  }

  static TreeMap<Integer, Integer> bucketRows(Map<Integer, Integer> table) {
    TreeMap<Integer, Integer> rows = new TreeMap<>();
    table.forEach((k, v) -> {
      if (bucketOf(k) == MOVING) {
        rows.put(k, v);
      }
    });
    return rows;
  }

  static void removeBucket(Map<Integer, Integer> table) {
    table.keySet().removeIf(k -> bucketOf(k) == MOVING);
  }

  /** A database: every committed state, so that a snapshot is an index. */
  static final class Database {
    final List<Tables> history = new ArrayList<>(List.of(new Tables()));

    Tables now() {
      return history.get(history.size() - 1);
    }

    void commit(Consumer<Tables> change) {
      Tables next = now().copy();
      change.accept(next);
      history.add(next);
    }
  }

  /** A client transaction's part on one database. */
  record SubTx(long id, int snapshot, int snapshotAt, TreeMap<Integer, Integer> writes) {}

  enum Kind { READ, WRITE, SCAN }

  /** A statement routed (and audited) at one time, run later on {@code dbs}, one at a time. */
  static final class Statement {
    Kind kind = Kind.READ;
    int key;
    int value;
    int version;
    int issuedAt;
    boolean batch;
    boolean direct;
    final Deque<Integer> dbs = new ArrayDeque<>();
    final List<Integer> counted = new ArrayList<>();

    @Override
    public String toString() {
      String what = switch (kind) {
        case READ -> "read key " + key;
        case WRITE -> (value == DELETE ? "delete key " : "write key ") + key + (value == DELETE ? "" : " = " + value);
        case SCAN -> "scan";
      };
      return (batch ? "batch " : direct ? "plain JDBC " : "") + what + " (routed with map v" + version + ") on db"
          + dbs;
    }
  }

  static final class Session {
    final int id;
    boolean open;
    boolean repeatable;
    final Map<Integer, SubTx> sub = new TreeMap<>();
    @Nullable Statement pending;

    Session(int id) {
      this.id = id;
    }
  }

  /** A step of the mover or of cleanup: runs when {@code enabled} (a wait), then may queue more steps. */
  record Step(Supplier<String> name, BooleanSupplier enabled, Runnable run) {}

  /** A violated rule, with the schedule that led to it. */
  static final class Counterexample extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Counterexample(String message) {
      super(message, null, false, false);
    }
  }

  /** What a schedule did, for the coverage checks. */
  enum Seen {
    MOVE_DONE, MOVE_BACK_DONE, CRASH, FINISH_SWITCH, CLEANUP_LEFT_ALONE, CLEANUP_DELETED, FENCE_REFUSED,
    FENCE_REFUSED_AFTER_MOVED, AUDIT_REFUSED, STALE_FENCE_RELEASED, SCAN_REFUSED, SCAN_DONE, RR_SNAPSHOT_WAITED, VERIFY_FAILED, MAP_RACE
  }

  /** One schedule: the world and its random choices. */
  static final class Model {
    final Broken broken;
    /** Whether to keep the trace (a schedule is replayed with it once it has failed). */
    final boolean record;
    final Random random;
    final List<String> trace = new ArrayList<>();
    final Set<Seen> seen = java.util.EnumSet.noneOf(Seen.class);
    int clock;
    final Database[] db = {new Database(), new Database()};
    final List<MapVersion> store = new ArrayList<>(List.of(new MapVersion(0, OLD, State.NORMAL)));
    final int[] routers = new int[2];
    /** Per key, the acknowledged value (null: no row) from each commit's time on. */
    final Map<Integer, TreeMap<Integer, @Nullable Integer>> acked = new HashMap<>();
    final Session[] sessions = {new Session(0), new Session(1), new Session(2)};
    int values = 100;
    long txIds;

    // the mover: moveTo(NEW), then moveTo(OLD) (the move back)
    final Deque<Step> mover = new ArrayDeque<>();
    final int[] script = {NEW, OLD};
    int scriptAt;
    boolean moverStopped;
    MapVersion map = store.get(0);
    int copyAfter;
    Set<Long> awaited = Set.of();

    // cleanup, concurrently
    final Deque<Step> cleanup = new ArrayDeque<>();
    MapVersion cleanupRead = store.get(0);
    boolean cleanupComplete;

    Model(Broken broken, long seed, boolean record) {
      this.broken = broken;
      this.record = record;
      this.random = new Random(seed);
      for (int key : KEYS) {
        int value = values++;
        db[key == 11 ? NEW : OLD].now().routed.put(key, value);
        acked.computeIfAbsent(key, k -> new TreeMap<>()).put(0, value);
      }
      mover.add(loadForMoveTo(script[0]));
      // each schedule draws its paces, so that rare interleavings (a router or cleanup that lags through a whole
      // move, a transaction held across several steps, a crash in a short window) come up often enough
      laggingRouter = pick(0.08, 0.4, 1.5);
      cleanupPace = pick(0.03, 0.3, 2);
      for (int i = random.nextInt(3); i > 0; i--) {
        if (random.nextBoolean()) {
          crashPoints.add(1 + random.nextInt(110)); // the mover crashes before its n-th step
        } else {
          crashAfterPublish.add(1 + random.nextInt(9)); // or right after its n-th change of the map
        }
      }
      for (int i = 0; i < commitPace.length; i++) {
        commitPace[i] = pick(0.15, 1, 2);
      }
    }

    double laggingRouter;
    double cleanupPace;
    final Set<Integer> crashPoints = new HashSet<>();
    final Set<Integer> crashAfterPublish = new HashSet<>();
    int moverSteps;
    int publishes;
    boolean crashNext;
    final double[] commitPace = new double[3];

    double pick(double... paces) {
      return paces[random.nextInt(paces.length)];
    }

    MapVersion current() {
      return store.get(store.size() - 1);
    }

    @Nullable Integer ackedAt(int key, int time) {
      return acked.get(key).floorEntry(time).getValue();
    }

    void note(String what) {
      if (record) {
        trace.add("      " + what);
      }
    }

    // ----- the mover, as JdbcBucketMover.moveTo / move / finishSwitch do it

    Step step(String name, Runnable run) {
      return new Step(() -> name, () -> true, run);
    }

    void first(List<Step> steps) {
      for (int i = steps.size() - 1; i >= 0; i--) {
        mover.addFirst(steps.get(i));
      }
    }

    Step loadForMoveTo(int dest) {
      return step("mover: moveTo(db" + dest + "): load the map", () -> {
        map = current();
        List<Step> next = new ArrayList<>();
        if (map.state() == State.SWITCHING) {
          next.addAll(finishSwitch());
        }
        next.add(step("mover: releaseStaleFences", () -> {
          MapVersion read = map;
          first(releaseStaleFences(() -> read));
        }));
        next.add(step("mover: plan the moves to db" + dest, () -> {
          Step done = step("mover: moveTo(db" + dest + ") returns", () -> {
            seen.add(dest == NEW ? Seen.MOVE_DONE : Seen.MOVE_BACK_DONE);
            scriptAt++;
            if (scriptAt < script.length) {
              mover.addFirst(loadForMoveTo(script[scriptAt]));
            }
          });
          if (map.target() != dest) {
            first(List.of(step("mover: move the bucket to db" + dest + ": load the map", () -> move(dest)), done));
          } else {
            mover.addFirst(done);
          }
        }));
        first(next);
      });
    }

    void move(int to) {
      map = current();
      int from = map.target();
      int fenceVersion = map.version() + 1;
      List<Step> s = new ArrayList<>();
      for (int d : new int[] {OLD, NEW}) {
        s.add(step("mover: fence the bucket on db" + d + " (version " + fenceVersion + ")",
            () -> db[d].commit(t -> t.fence = fenceVersion)));
      }
      if (map.state() != State.FROZEN) {
        s.add(step("mover: drop stale copies on db" + to, () -> db[to].commit(t -> {
          removeBucket(t.staging);
          removeBucket(t.routed);
          removeBucket(t.aside);
        })));
        s.add(publish(from, State.FROZEN));
      }
      s.addAll(awaitRoutersAndSettle(true));
      if (broken != Broken.NO_WAIT_AFTER_FENCE) {
        s.addAll(awaitTransactions("its fence", from, to));
      }
      s.add(step("mover: copy: resume after the last staged row", () -> {
        copyAfter = bucketRows(db[to].now().staging).keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        mover.addFirst(copyBatch(from, to));
      }));
      s.add(step("mover: verify", () -> {
        checkNoWriterOfTheBucket("verify", from, to);
        if (!bucketRows(db[from].now().routed).equals(bucketRows(db[to].now().staging))) {
          seen.add(Seen.VERIFY_FAILED);
          stop("verify found a difference: the bucket stays frozen");
        }
      }));
      s.add(publish(from, State.SWITCHING));
      s.addAll(awaitRoutersAndSettle(true));
      s.add(step("mover: publish the copy on db" + to, () -> db[to].commit(t -> {
        removeBucket(t.routed);
        t.routed.putAll(bucketRows(t.staging));
        removeBucket(t.staging);
      })));
      if (broken != Broken.NO_WAIT_AFTER_PUBLISH) {
        s.addAll(awaitTransactions("the publication", to, from));
      }
      s.add(publish(to, State.SWITCHING));
      s.addAll(awaitRoutersAndSettle(true));
      s.add(setAside(from));
      if (broken != Broken.NO_WAIT_AFTER_SET_ASIDE) {
        s.addAll(awaitTransactions("the set-aside", from, to));
      }
      s.add(unfence(to));
      if (broken == Broken.OLD_UNFENCED_AT_MOVED) {
        s.add(unfence(from));
      }
      s.add(publish(to, State.MOVED));
      first(s);
    }

    List<Step> finishSwitch() {
      seen.add(Seen.FINISH_SWITCH);
      int owner = map.target();
      int other = 1 - owner;
      int fenceVersion = map.version();
      List<Step> s = new ArrayList<>(awaitRoutersAndSettle(broken != Broken.NO_SETTLE_IN_FINISH_SWITCH));
      s.add(step("mover: finishSwitch: fence the bucket on db" + other + " (version " + fenceVersion + ")",
          () -> db[other].commit(t -> t.fence = fenceVersion)));
      s.add(setAside(other));
      if (broken != Broken.NO_WAIT_AFTER_SET_ASIDE) {
        s.addAll(awaitTransactions("the set-aside", other, owner));
      }
      s.add(unfence(owner));
      if (broken == Broken.OLD_UNFENCED_AT_MOVED) {
        s.add(unfence(other));
      }
      s.add(publish(owner, State.MOVED));
      return s;
    }

    Step copyBatch(int from, int to) {
      return step("mover: copy a batch from db" + from + " to db" + to, () -> {
        checkNoWriterOfTheBucket("the copy", from, to);
        Map.Entry<Integer, Integer> row = bucketRows(db[from].now().routed).higherEntry(copyAfter);
        if (row != null) {
          db[to].commit(t -> t.staging.put(row.getKey(), row.getValue()));
          copyAfter = row.getKey();
          mover.addFirst(copyBatch(from, to));
        }
      });
    }

    Step setAside(int on) {
      return step("mover: set the old rows aside on db" + on, () -> db[on].commit(t -> {
        t.aside.putAll(bucketRows(t.routed));
        removeBucket(t.routed);
      }));
    }

    Step unfence(int on) {
      return step("mover: unfence db" + on, () -> db[on].commit(t -> t.fence = null));
    }

    Step publish(int target, State state) {
      return step("mover: publish " + state + " on db" + target, () -> {
        if (current().version() != map.version()) {
          seen.add(Seen.MAP_RACE);
          if (state == State.FROZEN) { // the fence of a freeze that never was, lifted where the owner is
            releaseStale(OLD, current());
            releaseStale(NEW, current());
          }
          stop("the map changed under the mover");
          return;
        }
        map = new MapVersion(map.version() + 1, target, state);
        store.add(map);
        crashNext = crashAfterPublish.remove(++publishes);
        note("map v" + map.version() + ": " + state + " on db" + target);
      });
    }

    /** awaitRouters(map version), then (in move, not in finishSwitch) settle. */
    List<Step> awaitRoutersAndSettle(boolean settle) {
      List<Step> s = new ArrayList<>();
      s.add(new Step(() -> "mover: await routers at v" + map.version(),
          () -> routers[0] >= map.version() && routers[1] >= map.version(), () -> {}));
      if (settle) {
        // settle: a plain statement routed before the routers saw this version has reached its database
        s.add(new Step(() -> "mover: settle", () -> !plainStatementRoutedBefore(map.version()), () -> {}));
      }
      return s;
    }

    boolean plainStatementRoutedBefore(int version) {
      for (Session session : sessions) {
        Statement st = session.pending;
        if (st != null && !st.batch && !st.direct && st.version < version) {
          return true;
        }
      }
      return false;
    }

    List<Step> awaitTransactions(String after, int... on) {
      List<Step> s = new ArrayList<>();
      for (int d : on) {
        s.add(step("mover: list the transactions open on db" + d + " at " + after, () -> {
          awaited = openOn(d);
          note("open: " + awaited);
          if (!awaited.isEmpty() && after.equals("its fence")) {
            seen.add(Seen.RR_SNAPSHOT_WAITED);
          }
        }));
        s.add(new Step(() -> "mover: wait for them to end (db" + d + ")", () -> openOn(d).stream()
            .noneMatch(awaited::contains), () -> {}));
      }
      return s;
    }

    Set<Long> openOn(int d) {
      Set<Long> open = new HashSet<>();
      for (Session session : sessions) {
        SubTx x = session.sub.get(d);
        if (x != null) {
          open.add(x.id());
        }
      }
      return open;
    }

    void stop(String why) {
      moverStopped = true;
      mover.clear();
      note("mover stops: " + why);
    }

    // ----- cleanup, as JdbcBucketMover.cleanup / cleanupOn / markNormal do it

    Step cleanupStart() {
      return step("cleanup: load the map", () -> {
        cleanupRead = current();
        MapVersion read = cleanupRead;
        for (Step release : releaseStaleFences(() -> read)) {
          cleanup.add(new Step(() -> "cleanup: " + release.name().get(), () -> true, release.run()));
        }
        if (cleanupRead.state() != State.MOVED) {
          return;
        }
        int owner = cleanupRead.target();
        int other = 1 - owner;
        cleanupComplete = true;
        cleanup.add(new Step(() -> "cleanup: on db" + other + " (read map v" + cleanupRead.version() + ")",
            () -> !writeOfTheBucketSentTo(other), () -> cleanupOn(other)));
        cleanup.add(step("cleanup: mark NORMAL if still MOVED on db" + owner, () -> {
          MapVersion now = current();
          if (cleanupComplete && now.state() == State.MOVED && now.target() == owner) {
            store.add(new MapVersion(now.version() + 1, owner, State.NORMAL));
            note("map v" + current().version() + ": NORMAL on db" + owner);
          }
        }));
      });
    }

    /** cleanupOn: in one transaction holding the fence row's lock. */
    void cleanupOn(int d) {
      Integer fence = db[d].now().fence;
      boolean check = broken != Broken.CLEANUP_WITHOUT_FENCE_CHECK;
      if (check && fence != null && fence > cleanupRead.version()) {
        seen.add(Seen.CLEANUP_LEFT_ALONE);
        cleanupComplete = false;
        note("fenced again at version " + fence + ": left alone");
        return;
      }
      // the routed table only under the fence row the finished move left; set-aside rows are never read
      boolean fenceRow = fence != null || !check || broken == Broken.CLEANUP_WITHOUT_A_FENCE_ROW;
      seen.add(fenceRow ? Seen.CLEANUP_DELETED : Seen.CLEANUP_LEFT_ALONE);
      db[d].commit(t -> {
        if (fenceRow) {
          removeBucket(t.routed);
          t.fence = null;
        }
        removeBucket(t.aside);
      });
    }

    /**
     * releaseStaleFences(read): on each node, the bucket's fence row is lifted if that node owns it in {@code read},
     * which has it NORMAL or MOVED, and the row is not newer than {@code read} (a mover that lost its freeze or died
     * between its fence and its freeze).
     */
    List<Step> releaseStaleFences(Supplier<MapVersion> read) {
      List<Step> s = new ArrayList<>();
      for (int d : new int[] {OLD, NEW}) {
        s.add(step("release stale fences on db" + d, () -> releaseStale(d, read.get())));
      }
      return s;
    }

    void releaseStale(int d, MapVersion read) {
      Integer fence = db[d].now().fence;
      if (fence != null && read.target() == d && fence <= read.version()
          && (read.state() == State.NORMAL || read.state() == State.MOVED)) {
        seen.add(Seen.STALE_FENCE_RELEASED);
        db[d].commit(t -> t.fence = null);
        note("released the fence of version " + fence + " (map v" + read.version() + ")");
      }
    }

    /** Cleanup is run once the writes already sent to the old node have run there ("refused until cleanup"). */
    boolean writeOfTheBucketSentTo(int d) {
      for (Session session : sessions) {
        Statement st = session.pending;
        if (st != null && st.kind == Kind.WRITE && bucketOf(st.key) == MOVING && st.dbs.contains(d)) {
          return true;
        }
      }
      return false;
    }

    // ----- clients

    boolean fenceRuleApplies() {
      return current().state() != State.NORMAL && (db[OLD].now().fence != null || db[NEW].now().fence != null);
    }

    /**
     * The rule holds for a transaction that sees the fence (a REPEATABLE READ snapshot of before it is waited for,
     * and is the client's own business before that).
     */
    boolean seesTheFence(Session s, int d) {
      SubTx x = s.sub.get(d);
      return !s.repeatable || x == null || db[d].history.get(x.snapshot()).fence != null;
    }

    void issue(Session s) {
      int r = random.nextInt(2);
      MapVersion m = store.get(routers[r]);
      Statement st = new Statement();
      st.version = m.version();
      st.issuedAt = clock;
      int roll = random.nextInt(100);
      st.key = KEYS[random.nextInt(KEYS.length)];
      if (roll < 40) {
        st.kind = Kind.READ;
        st.dbs.add(m.target(bucketOf(st.key)));
      } else if (roll < 85) {
        st.kind = Kind.WRITE;
        st.value = random.nextInt(5) == 0 ? DELETE : values++;
        st.batch = roll >= 72;
        int elsewhere = 1 - current().target();
        if (!st.batch && bucketOf(st.key) == MOVING && fenceRuleApplies() && seesTheFence(s, elsewhere)
            && random.nextInt(4) == 0) {
          st.direct = true; // plain JDBC, no auditor, to the node that does not own the bucket
          st.dbs.add(elsewhere);
        } else if (bucketOf(st.key) == MOVING && (m.state() == State.FROZEN || m.state() == State.SWITCHING)) {
          seen.add(Seen.AUDIT_REFUSED);
          rollback(s, "refused by GENE_BUCKET_FREEZE (router " + r + " at v" + m.version() + ")");
          return;
        } else {
          st.dbs.add(m.target(bucketOf(st.key)));
        }
      } else {
        st.kind = Kind.SCAN;
        if (m.state() == State.SWITCHING) {
          seen.add(Seen.SCAN_REFUSED);
          rollback(s, "scan refused (40001) by router " + r + " at v" + m.version());
          return;
        }
        int firstDb = random.nextInt(2);
        st.dbs.add(firstDb);
        st.dbs.add(1 - firstDb);
      }
      s.pending = st;
      note("session " + s.id + ": " + st + " via router " + r);
    }

    void execute(Session s) {
      Statement st = Objects.requireNonNull(s.pending);
      int d = st.dbs.poll();
      SubTx x = s.sub.computeIfAbsent(d, k -> new SubTx(++txIds, db[d].history.size() - 1, clock, new TreeMap<>()));
      Tables view = s.repeatable ? db[d].history.get(x.snapshot()) : db[d].now();
      int viewAt = s.repeatable ? x.snapshotAt() : clock;
      switch (st.kind) {
        case READ -> {
          if (!wrote(s, st.key)) {
            Integer got = view.routed.get(st.key);
            Integer want = ackedAt(st.key, viewAt);
            if (!Objects.equals(got, want)) {
              throw new Counterexample("session " + s.id + " (" + (s.repeatable ? "REPEATABLE READ" : "READ COMMITTED")
                  + ") read key " + st.key + " on db" + d + " and got " + got + ", but " + want
                  + " was acknowledged at its snapshot (t" + viewAt + ")");
            }
          }
        }
        case WRITE -> {
          if (bucketOf(st.key) == MOVING && view.fence != null) {
            seen.add(Seen.FENCE_REFUSED);
            if (current().state() == State.MOVED || current().state() == State.NORMAL) {
              seen.add(Seen.FENCE_REFUSED_AFTER_MOVED);
            }
            rollback(s, "refused by the fence on db" + d + " (40001)");
            return;
          }
          x.writes().put(st.key, st.value);
        }
        case SCAN -> {
          TreeMap<Integer, Integer> rows = new TreeMap<>(view.routed);
          x.writes().forEach((k, v) -> {
            if (v == DELETE) {
              rows.remove(k);
            } else {
              rows.put(k, v);
            }
          });
          st.counted.addAll(rows.keySet());
          if (st.dbs.isEmpty()) {
            seen.add(Seen.SCAN_DONE);
            Set<Integer> once = new HashSet<>();
            for (int key : st.counted) {
              if (!once.add(key)) {
                throw new Counterexample("session " + s.id + "'s scan counted key " + key + " twice: " + st.counted);
              }
            }
          }
        }
      }
      if (st.dbs.isEmpty()) {
        s.pending = null;
      }
    }

    boolean wrote(Session s, int key) {
      return s.sub.values().stream().anyMatch(x -> x.writes().containsKey(key));
    }

    void commit(Session s) {
      s.sub.forEach((d, x) -> {
        if (!x.writes().isEmpty()) {
          db[d].commit(t -> x.writes().forEach((k, v) -> {
            if (v == DELETE) {
              t.routed.remove(k);
            } else {
              t.routed.put(k, v);
            }
          }));
          x.writes().forEach((k, v) -> acked.get(k).put(clock, v == DELETE ? null : v));
        }
      });
      note("session " + s.id + " committed " + s.sub.values().stream().map(SubTx::writes).toList());
      end(s);
    }

    void rollback(Session s, String why) {
      note("session " + s.id + " rolls back: " + why);
      end(s);
    }

    void end(Session s) {
      s.open = false;
      s.sub.clear();
      s.pending = null;
    }

    // ----- checks

    /** Every router's node for the bucket holds exactly its acknowledged rows. */
    void checkRouters() {
      TreeMap<Integer, Integer> want = new TreeMap<>();
      for (int key : KEYS) {
        Integer v = acked.get(key).lastEntry().getValue();
        if (v != null && bucketOf(key) == MOVING) {
          want.put(key, v);
        }
      }
      for (int r = 0; r < 2; r++) {
        MapVersion m = store.get(routers[r]);
        TreeMap<Integer, Integer> has = bucketRows(db[m.target()].now().routed);
        if (!has.equals(want)) {
          throw new Counterexample("router " + r + " (map v" + m.version() + ") reads the bucket on db" + m.target()
              + ", which holds " + has + ", but " + want + " is acknowledged");
        }
      }
    }

    /** The copy is read only when no transaction can still commit a write to the bucket on either node. */
    void checkNoWriterOfTheBucket(String step, int... on) {
      for (int d : on) {
        for (Session s : sessions) {
          SubTx x = s.sub.get(d);
          if (x == null) {
            continue;
          }
          for (int key : x.writes().keySet()) {
            if (bucketOf(key) == MOVING) {
              throw new Counterexample(step + " read while session " + s.id + " holds an uncommitted write of key "
                  + key + " on db" + d);
            }
          }
          if (s.repeatable && db[d].history.get(x.snapshot()).fence == null) {
            throw new Counterexample(step + " read while session " + s.id + " has a snapshot of db" + d
                + " without the fence row: a write of the bucket would pass");
          }
        }
      }
    }

    /** After everything settled: the owner has the acknowledged rows, nothing of the bucket is elsewhere. */
    void checkFinal() {
      MapVersion m = current();
      if (m.state() != State.NORMAL) {
        throw new Counterexample("after cleanup the bucket is " + m.state());
      }
      for (int key : KEYS) {
        int owner = m.target(bucketOf(key));
        Integer want = acked.get(key).lastEntry().getValue();
        if (!Objects.equals(db[owner].now().routed.get(key), want) || db[1 - owner].now().routed.containsKey(key)) {
          throw new Counterexample("after cleanup key " + key + " is " + db[owner].now().routed.get(key) + " on its"
              + " owner db" + owner + " and " + db[1 - owner].now().routed.get(key) + " on db" + (1 - owner)
              + ", but " + want + " is acknowledged");
        }
      }
      for (Database d : db) {
        if (!bucketRows(d.now().staging).isEmpty() || !bucketRows(d.now().aside).isEmpty() || d.now().fence != null) {
          throw new Counterexample("after cleanup a side table or a fence row of the bucket is left");
        }
      }
    }

    // ----- the schedule

    record Action(Supplier<String> name, double weight, Runnable run) {}

    List<Action> enabled(boolean clients) {
      List<Action> a = new ArrayList<>();
      Step next = mover.peek();
      if (clients && !moverStopped && next != null && (crashNext || crashPoints.contains(moverSteps + 1))) {
        a.add(new Action(() -> "mover CRASHES", 4, () -> {
          seen.add(Seen.CRASH);
          crashPoints.remove(moverSteps + 1);
          crashNext = false;
          stop("crash");
        }));
      } else if (!moverStopped && next != null && next.enabled().getAsBoolean()) {
        a.add(new Action(next.name(), 4, () -> {
          mover.poll();
          moverSteps++;
          next.run().run();
        }));
      }
      if (moverStopped && scriptAt < script.length) {
        a.add(new Action(() -> "mover reruns", clients ? 0.5 : 1, () -> {
          moverStopped = false;
          mover.add(loadForMoveTo(script[scriptAt]));
        }));
      }
      for (int r = 0; r < 2; r++) {
        int router = r;
        if (routers[r] < current().version()) {
          a.add(new Action(() -> "router " + router + " refreshes to v" + current().version(), r == 0 ? 1.5 : laggingRouter,
              () -> routers[router] = current().version()));
        }
      }
      Step cleanupStep = cleanup.peek();
      if (cleanupStep == null) {
        if (clients) {
          a.add(new Action(() -> "cleanup starts", cleanupPace / 2, () -> cleanup.add(cleanupStart())));
        }
      } else if (cleanupStep.enabled().getAsBoolean()) {
        a.add(new Action(cleanupStep.name(), cleanupPace, () -> {
          cleanup.poll();
          cleanupStep.run().run();
        }));
      }
      for (Session s : sessions) {
        if (s.pending != null) {
          Statement st = s.pending;
          a.add(new Action(() -> "session " + s.id + ": run " + st, st.batch ? 0.25 : 2, () -> execute(s)));
        } else if (!s.open) {
          if (clients) {
            a.add(new Action(() -> "session " + s.id + ": begin", 1, () -> {
              s.open = true;
              s.repeatable = random.nextBoolean();
              note(s.repeatable ? "REPEATABLE READ" : "READ COMMITTED");
            }));
          }
        } else {
          if (clients) {
            a.add(new Action(() -> "session " + s.id + ": issue a statement", 3, () -> issue(s)));
            a.add(new Action(() -> "session " + s.id + ": rollback", 0.2, () -> rollback(s, "by the client")));
          }
          a.add(new Action(() -> "session " + s.id + ": commit", clients ? commitPace[s.id] : 10, () -> commit(s)));
        }
      }
      return a;
    }

    boolean act(List<Action> actions) {
      if (actions.isEmpty()) {
        return false;
      }
      double total = actions.stream().mapToDouble(Action::weight).sum();
      double pick = random.nextDouble() * total;
      Action chosen = actions.get(actions.size() - 1);
      for (Action action : actions) {
        pick -= action.weight();
        if (pick < 0) {
          chosen = action;
          break;
        }
      }
      clock++;
      if (record) {
        trace.add("t" + clock + " " + chosen.name().get());
      }
      chosen.run().run();
      checkRouters();
      return true;
    }

    /** Runs one schedule; the counterexample, or null. */
    @Nullable Counterexample run() {
      try {
        for (int i = 0; i < 600 && act(enabled(true)); i++) {
          if (scriptAt == script.length && cleanup.isEmpty() && i > 200) {
            break;
          }
        }
        // quiesce: no new statements, no crash; everything pending runs, the mover finishes, cleanup runs
        for (int i = 0; i < 2_000 && (scriptAt < script.length || !cleanup.isEmpty() || busy()); i++) {
          for (int r = 0; r < 2; r++) {
            routers[r] = current().version();
          }
          if (!act(enabled(false))) {
            break;
          }
        }
        if (scriptAt < script.length) {
          if (seen.contains(Seen.VERIFY_FAILED) || seen.contains(Seen.MAP_RACE)) {
            return null; // stopped safely; nothing to compare
          }
          throw new Counterexample("the mover did not finish: " + mover.peek());
        }
        for (int round = 0; round < 2; round++) { // a cleanup run (twice: a first one may find the map moving)
          cleanup.add(cleanupStart());
          while (!cleanup.isEmpty()) {
            act(List.of(new Action(cleanup.peek().name(), 1, () -> cleanup.poll().run().run())));
          }
        }
        finalCheck = true;
        checkFinal();
        return null;
      } catch (Counterexample e) {
        return e;
      }
    }

    boolean finalCheck;

    boolean busy() {
      for (Session s : sessions) {
        if (s.open || s.pending != null) {
          return true;
        }
      }
      return false;
    }
  }

  record Outcome(long seed, Counterexample counterexample, List<String> trace) {}

  /**
   * Runs the schedules of seeds 0, 1, ... up to {@code schedules} or until {@code enough} counterexamples; the
   * shortest of them, replayed with its trace, or null.
   */
  static @Nullable Outcome shortestCounterexample(Broken broken, int schedules, int enough,
      Map<Seen, Integer> seen) {
    long shortest = -1;
    int steps = Integer.MAX_VALUE;
    int found = 0;
    for (long seed = 0; seed < schedules && found < enough; seed++) {
      Model model = new Model(broken, seed, false);
      Counterexample counterexample = model.run();
      model.seen.forEach(s -> seen.merge(s, 1, Integer::sum));
      // prefer a rule broken while the move runs to a leftover found by the final check
      int length = model.clock + (model.finalCheck ? 1_000_000 : 0);
      if (counterexample != null && length < steps) {
        shortest = seed;
        steps = length;
      }
      found += counterexample == null ? 0 : 1;
    }
    if (shortest < 0) {
      return null;
    }
    Model replay = new Model(broken, shortest, true);
    return new Outcome(shortest, Objects.requireNonNull(replay.run()), replay.trace);
  }

  static String describe(@Nullable Outcome o) {
    return o == null ? "none" : "seed " + o.seed() + ": " + o.counterexample().getMessage() + "\n  "
        + String.join("\n  ", o.trace());
  }

  @Test
  void theProtocolKeepsEveryRule() {
    Map<Seen, Integer> seen = new EnumMap<>(Seen.class);
    Outcome found = shortestCounterexample(Broken.NOTHING, SCHEDULES, 1, seen);
    assertThat(found).as(() -> describe(found)).isNull();
    System.out.println("MoveProtocolModelTest: " + SCHEDULES + " schedules, " + seen);
    // the schedules reach what the rules are about (a verify failure only with a rule removed; a mover that loses
    // the map's compare-and-set to cleanup stops, and its rerun finishes the move)
    assertThat(seen.keySet()).containsAll(List.of(Seen.values()).subList(0, Seen.VERIFY_FAILED.ordinal()));
  }

  @Test
  void eachRuleRemovedIsCaught() {
    for (Broken broken : Broken.values()) {
      if (broken != Broken.NOTHING) {
        Outcome found = shortestCounterexample(broken, 3 * SCHEDULES, 5, new EnumMap<>(Seen.class));
        assertThat(found).as(broken + " was not caught").isNotNull();
        System.out.println("MoveProtocolModelTest " + broken + ": " + describe(found));
      }
    }
  }
}
