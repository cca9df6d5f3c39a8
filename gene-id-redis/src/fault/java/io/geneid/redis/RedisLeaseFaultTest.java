package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The store faults of issue 11 on Redis: a Redis that goes back in time (scenario 1), that loses single keys
 * (scenario 2), a holder that borrowed further ahead than the old fixed slack (scenario 5). Each test breaks a
 * {@link PrivateRedis} of its own, or deletes keys under a prefix of its own on the shared Redis, and counts what two
 * holders of one worker id could both do.
 */
class RedisLeaseFaultTest {

  /**
   * Short on purpose (the tests wait for leases to lapse), at the tests' time scale: the assigner's command time-out is
   * a third of it, which a busy machine must still meet.
   */
  private static final Duration TTL = TestTime.ofMillis(500);
  private static final Duration SLACK = Duration.ofMillis(10);
  private static final String PREFIX = "gid_fault";

  private static TestRedis shared;

  @TempDir Path dir;

  @BeforeAll
  static void connect() {
    shared = new TestRedis("lease_fault");
  }

  @AfterAll
  static void disconnect() {
    shared.close();
  }

  private static String space() {
    return "f" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  private static RedisWorkerIdAssigner.Builder assigner(String uri, String prefix, String space, String owner) {
    return RedisWorkerIdAssigner.builder().redisUri(uri).keyPrefix(prefix).space(space).workerIds(0, 1).ttl(TTL)
        .acquireTimeout(Duration.ZERO).owner(owner);
  }

  /**
   * Whether the store accepts a renewal of {@code lease}: true or false once it answered, retried while it cannot be
   * reached (a reconnecting client must not count as a refusal).
   */
  private static boolean renews(RedisWorkerIdAssigner a, WorkerLease lease, Instant mark) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    for (;;) {
      try {
        a.renew(lease, mark);
        return true;
      } catch (WorkerLeaseLostException e) {
        return false;
      } catch (GeneIdException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        sleep(20);
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  enum Rollback { RDB_SNAPSHOT, AOF_COPY, FAILOVER_TO_LAGGING_REPLICA }

  /**
   * Scenario 1: the grant to A is lost by the rollback; B then asks for the same worker id. Before the fix B got it at
   * once under A's own token (a counter in Redis), and A's renewal still succeeded: two live holders of one worker id.
   */
  @ParameterizedTest
  @EnumSource(Rollback.class)
  void aStoreThatGoesBackInTimeNeverLetsTwoHoldersRenewOneWorkerId(Rollback kind) {
    PrivateRedis.Persistence persistence = kind == Rollback.AOF_COPY ? PrivateRedis.Persistence.AOF_EVERYSEC
        : PrivateRedis.Persistence.RDB;
    PrivateRedis replica = null;
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("primary"), persistence)) {
      String space = space();
      TestRedis.agePool(redis.redis(), PREFIX, space);
      redis.save();
      Path before = redis.copyFiles(dir.resolve("before"));
      try (RedisWorkerIdAssigner a = assigner(redis.uri(), PREFIX, space, "A").build()) {
        WorkerLease la = a.acquire(255, SLACK);
        la = a.renew(la, Instant.now().plusMillis(300));
        if (kind == Rollback.FAILOVER_TO_LAGGING_REPLICA) {
          redis.kill9();
          replica = PrivateRedis.start(dir.resolve("replica"), PrivateRedis.Persistence.RDB, redis.port(), before);
        } else {
          redis.restartFrom(before);
        }
        try (RedisWorkerIdAssigner b = assigner(redis.uri(), PREFIX, space, "B")
            .workerIds(la.workerId(), la.workerId()).acquireTimeout(Duration.ofSeconds(10)).build()) {
          WorkerLease lb = b.acquire(255, SLACK);
          boolean aRenewed = renews(a, la, la.highWaterMark());
          assertThat(aRenewed).as("A (token %s) renewed worker id %s after B (token %s) got it", la.token(),
              la.workerId(), lb.token()).isFalse();
          assertThat(lb.token()).isNotEqualTo(la.token());
          assertThat(lb.previousHighWaterMark()).isAfterOrEqualTo(la.highWaterMark());
          assertThat(renews(b, lb, Instant.EPOCH)).isTrue();
        }
      }
    } finally {
      if (replica != null) {
        replica.close();
      }
    }
  }

  /**
   * Scenario 1, the decision for a restart that kept everything: a renewal with a matching token is still refused,
   * because Redis cannot prove that the record it reloaded is the latest one (it may be a rollback).
   */
  @Test
  void aRestartThatKeptEverythingStillStartsANewGeneration() {
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("kept"), PrivateRedis.Persistence.AOF_EVERYSEC)) {
      String space = space();
      TestRedis.agePool(redis.redis(), PREFIX, space);
      try (RedisWorkerIdAssigner a = assigner(redis.uri(), PREFIX, space, "A").ttl(Duration.ofSeconds(5)).build()) {
        WorkerLease la = a.acquire(255, SLACK);
        String before = redis.runId();
        redis.save(); // the grant is on disk
        redis.kill9();
        redis.restart();
        assertThat(redis.runId()).isNotEqualTo(before);
        assertThat(redis.redis().hget(TestRedis.leaseKey(PREFIX, space, "w:" + la.workerId()), "token"))
            .isEqualTo(Long.toString(la.token()));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (;;) {
          try {
            a.renew(la, Instant.EPOCH);
            throw new AssertionError("a renewal in the generation before the restart was accepted");
          } catch (WorkerLeaseLostException e) {
            assertThat(e).hasMessage("worker id " + la.workerId() + " of space '" + space + "' is no longer leased "
                + "under token " + la.token() + " in Redis at redis://127.0.0.1:" + redis.port() + "/0: the store "
                + "restarted, failed over or lost the pool's meta since it was granted, so every worker id of the "
                + "pool has an unknown history again");
            break;
          } catch (GeneIdException e) {
            assertThat(System.nanoTime()).as("reconnected within 10 s").isLessThan(deadline);
            sleep(20);
          }
        }
      }
    }
  }

  /**
   * Scenario 1 with generators: A issues on worker id 0 of a pool of two, Redis restarts from an older snapshot (the
   * pool without records), B starts. Before the fix B got worker id 0 under A's token and both issued the same ids.
   */
  @Test
  void twoGeneratorsAcrossARestartFromAnOlderSnapshotIssueNoDuplicate() throws Exception {
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("gen"), PrivateRedis.Persistence.RDB)) {
      String space = space();
      TestRedis.agePool(redis.redis(), PREFIX, space);
      redis.save();
      Path before = redis.copyFiles(dir.resolve("before"));
      Duration ttl = Duration.ofSeconds(2);
      List<Long> idsA = new ArrayList<>();
      List<Long> idsB = new ArrayList<>();
      AtomicBoolean stop = new AtomicBoolean();
      try (LeasedGeneGenerator ga = LeasedGeneGenerator.builder().renewInterval(Duration.ofMillis(1500))
          .assigner(assigner(redis.uri(), PREFIX, space, "A").workerIds(0, 1).ttl(ttl).build()).build()) {
        Thread issuerA = issuer(ga, idsA, stop);
        sleep(100);
        redis.restartFrom(before);
        long restarted = System.nanoTime();
        try (LeasedGeneGenerator gb = LeasedGeneGenerator.builder()
            .assigner(assigner(redis.uri(), PREFIX, space, "B").workerIds(0, 1).ttl(ttl)
                .acquireTimeout(Duration.ofSeconds(10)).build()).build()) {
          System.out.printf("B started %d ms after the rollback%n", (System.nanoTime() - restarted) / 1_000_000);
          Thread issuerB = issuer(gb, idsB, stop);
          sleep(1_500);
          stop.set(true);
          issuerA.join();
          issuerB.join();
        }
      }
      Set<Long> a = new HashSet<>(idsA);
      long duplicates = idsB.stream().filter(a::contains).count();
      System.out.printf("rollback: A issued %d ids, B %d, duplicates %d%n", idsA.size(), idsB.size(), duplicates);
      assertThat(duplicates).as("ids issued by both A and B").isZero();
      assertThat(idsB).isNotEmpty();
    }
  }

  private static Thread issuer(LeasedGeneGenerator g, List<Long> ids, AtomicBoolean stop) {
    Thread t = new Thread(() -> {
      while (!stop.get()) {
        try {
          long id = g.nextId();
          synchronized (ids) {
            ids.add(id);
          }
        } catch (GeneIdException e) {
          sleep(1); // fenced: try again
        }
      }
    });
    t.start();
    return t;
  }

  /**
   * Scenario 2: losing only the expiry index (eviction, DEL). Before the fix A's live worker id looked never used and
   * was granted to B at once.
   */
  @Test
  void losingOnlyTheExpiryIndexNeverGrantsALiveHoldersWorkerId() {
    String space = space();
    shared.agePool(space);
    Duration ttl = Duration.ofSeconds(5); // no lease of this test expires, however slow the machine
    try (RedisWorkerIdAssigner a = assigner(TestRedis.URI, shared.prefix, space, "A").ttl(ttl).build();
        RedisWorkerIdAssigner b = assigner(TestRedis.URI, shared.prefix, space, "B").ttl(ttl).build()) {
      WorkerLease la = a.acquire(255, SLACK);
      shared.redis().del(shared.leaseKey(space, "expiry"));
      WorkerLease lb = b.acquire(255, SLACK);
      assertThat(lb.workerId()).as("B's worker id while A holds %s", la.workerId()).isNotEqualTo(la.workerId());
      assertThat(renews(a, la, Instant.EPOCH)).isTrue();
      assertThatThrownBy(() -> b.acquire(255, SLACK)).isInstanceOf(WorkerIdExhaustedException.class);
    }
  }

  /**
   * Scenario 2: the lost index is rebuilt from the worker records (a bounded chunk per call), so a released worker
   * id is found again, and live holders' ids are never handed out meanwhile.
   */
  @Test
  void aLostIndexIsRebuiltFromTheRecords() {
    String space = space();
    shared.agePool(space);
    try (RedisWorkerIdAssigner a = assigner(TestRedis.URI, shared.prefix, space, "A").workerIds(0, 2)
        .ttl(Duration.ofSeconds(5)).build()) {
      WorkerLease l0 = a.acquire(255, SLACK);
      WorkerLease l1 = a.acquire(255, SLACK);
      WorkerLease l2 = a.acquire(255, SLACK);
      Instant exact = Instant.now().minusMillis(5);
      a.release(l1, exact);
      shared.redis().del(shared.leaseKey(space, "expiry"));
      WorkerLease again = a.acquire(255, SLACK);
      assertThat(again.workerId()).isEqualTo(l1.workerId());
      assertThat(again.previousHighWaterMark()).isEqualTo(Instant.ofEpochMilli(exact.toEpochMilli()));
      assertThat(shared.redis().zcard(shared.leaseKey(space, "expiry"))).isEqualTo(3);
      assertThatThrownBy(() -> a.acquire(255, SLACK)).isInstanceOf(WorkerIdExhaustedException.class);
      assertThat(renews(a, l0, Instant.EPOCH)).isTrue();
      assertThat(renews(a, l2, Instant.EPOCH)).isTrue();
    }
  }

  /** A busy pool names at most 16 holders, whatever its size (the reply is bounded too). */
  @Test
  void aBusyReplyNamesAtMostSixteenHolders() {
    String space = space();
    shared.agePool(space);
    try (RedisWorkerIdAssigner a = assigner(TestRedis.URI, shared.prefix, space, "A").workerIds(0, 39)
        .ttl(Duration.ofSeconds(10)).build()) {
      for (int i = 0; i < 40; i++) {
        a.acquire(255, SLACK);
      }
      assertThatThrownBy(() -> a.acquire(255, SLACK)).isInstanceOf(WorkerIdExhaustedException.class)
          .hasMessageStartingWith("no free worker id in space '" + space + "': all 40 worker ids of the pool [0, 39] "
              + "are taken in Redis at redis://127.0.0.1:6379/0 after waiting 0 ms; holders: 0 by A until ")
          .satisfies(e -> assertThat(((WorkerIdExhaustedException) e).holders()).hasSize(16));
    }
  }

  /**
   * Scenario 2: losing only the pool's meta hash. Before the fix the token counter restarted, so the next grant of A's
   * worker id carried A's old token and A's renewal was accepted again beside the new holder.
   */
  @Test
  void losingOnlyTheMetaHashNeverAcceptsAnOldTokenAgain() {
    String space = space();
    shared.agePool(space);
    try (RedisWorkerIdAssigner a = assigner(TestRedis.URI, shared.prefix, space, "A").workerIds(0, 0).build();
        RedisWorkerIdAssigner b = assigner(TestRedis.URI, shared.prefix, space, "B").workerIds(0, 0)
            .acquireTimeout(Duration.ofSeconds(10)).build()) {
      WorkerLease la = a.acquire(255, SLACK);
      shared.redis().del(shared.leaseKey(space, "meta"));
      sleep(TTL.toMillis() + 50); // A stops renewing: its lease expires
      WorkerLease lb = b.acquire(255, SLACK);
      assertThat(lb.workerId()).isEqualTo(la.workerId());
      assertThat(lb.token()).isNotEqualTo(la.token());
      assertThat(renews(a, la, Instant.EPOCH)).as("A's old token %s accepted again", la.token()).isFalse();
      assertThat(renews(b, lb, Instant.EPOCH)).isTrue();
    }
  }

  /**
   * Scenario 2: losing one worker id's record while its holder lives. Before the fix the id went to B as soon as its
   * index entry expired, with "now" as the previous mark, below the mark A had recorded (A may have issued up to it).
   */
  @Test
  void losingOneWorkerRecordNeverGrantsItBelowItsHoldersMark() {
    String space = space();
    shared.agePool(space);
    try (RedisWorkerIdAssigner a = assigner(TestRedis.URI, shared.prefix, space, "A").workerIds(0, 0).build();
        RedisWorkerIdAssigner b = assigner(TestRedis.URI, shared.prefix, space, "B").workerIds(0, 0)
            .acquireTimeout(Duration.ofSeconds(10)).build()) {
      WorkerLease la = a.acquire(255, SLACK);
      Instant markA = Instant.now().plusMillis(TTL.toMillis() + 300);
      la = a.renew(la, markA); // A issues up to markA (recorded ahead of use)
      loseRecord(space, la.workerId());
      assertThat(renews(a, la, Instant.EPOCH)).as("A's renewal after its record was lost").isFalse();
      WorkerLease lb = b.acquire(255, SLACK);
      assertThat(lb.previousHighWaterMark()).as("B's previous mark").isAfterOrEqualTo(markA);
      assertThat(lb.token()).isNotEqualTo(la.token());
    }
  }

  private static void loseRecord(String space, long workerId) {
    String id = Long.toString(workerId);
    shared.redis().del(shared.leaseKey(space, "w:" + id));
    for (String part : List.of("holder", "token", "mark")) { // the layout before issue 11
      shared.redis().hdel(shared.leaseKey(space, part), id);
    }
  }

  /**
   * Scenario 5: a holder that borrowed further ahead than the old fixed 2 s, then Redis restarted empty. Before the
   * fix its worker id came back with a mark only TTL + 2 s after the restart, below what the holder had issued.
   */
  @Test
  void aRestartWithoutDataCoversEveryBorrowedMillisecond() {
    Duration borrow = Duration.ofSeconds(3);
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("empty"), PrivateRedis.Persistence.NONE)) {
      String space = space();
      TestRedis.agePool(redis.redis(), PREFIX, space);
      try (RedisWorkerIdAssigner a = assigner(redis.uri(), PREFIX, space, "A").workerIds(0, 0).build()) {
        WorkerLease la = a.acquire(255, borrow);
        Instant markA = Instant.now().plus(borrow);
        la = a.renew(la, markA); // A issues up to 3 s ahead of its clock
        redis.restartEmpty();
        try (RedisWorkerIdAssigner b = assigner(redis.uri(), PREFIX, space, "B").workerIds(0, 0)
            .acquireTimeout(Duration.ofSeconds(15)).build()) {
          WorkerLease lb = b.acquire(255, borrow);
          assertThat(lb.previousHighWaterMark()).as("B's previous mark").isAfterOrEqualTo(markA);
          assertThat(renews(a, la, Instant.EPOCH)).isFalse();
        }
      }
    }
  }
}
