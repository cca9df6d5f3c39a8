package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.segment.Segment;
import io.geneid.core.testing.TestTime;
import io.lettuce.core.cluster.SlotHash;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review of the issue #39 segment guard (w39r): cases the guard does not cover. Private redis-servers only (free
 * port, killed by pid); the shared Redis is never touched.
 */
class RedisSegmentGuardReviewTest {

  private static final String TAG = "order";

  private static RedisSegmentStore store(PrivateRedis redis) {
    return RedisSegmentStore.builder().redisUri(redis.uri()).allowWithoutPersistence(true)
        .commandTimeout(TestTime.seconds(1)).build();
  }


  /**
   * A claim, retried while the client reconnects after a restart (at most 10 s at the tests' time scale); other
   * failures are thrown.
   */
  private static Segment claim(RedisSegmentStore s, String tag) {
    long end = System.nanoTime() + TestTime.seconds(10).toNanos();
    for (;;) {
      try {
        return s.nextSegment(tag, 10);
      } catch (GeneIdException e) {
        if (!String.valueOf(e.getMessage()).contains("not connected") || System.nanoTime() - end > 0) {
          throw e;
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /**
   * A Redis that goes back in time with the guard intact (AOF everysec losing its last second, which the store
   * accepts without a word since appendonly is yes; or an RDB restored from the last snapshot): the guard's generation
   * is drawn once, when the counter is created, and never changes, so a copy taken after the first claim carries the
   * same generation as the live guard, and a claim after the rollback counts again through ranges that were handed
   * out. B is handed A's ranges. docs/segments.md's table admits "not if it brought back an older counter with the same
   * guard"; the A process itself (which could compare the counter with its own last end) does not notice either.
   */
  @Test
  @Disabled("repro: documented gap, still a duplicate. Observed: handed out [1,10] [11,20] (A, B), copy, then A"
      + " [21,30] [31,40] [41,50]; after restartFrom(copy): B got [21,30], A got [31,40], no refusal: 'ranges handed out"
      + " twice' = [[21, 30] overlaps [21, 30], [31, 40] overlaps [31, 40]]. Partial cheap close: pass the store's last"
      + " end per tag (ARGV) and tombstone when the counter is below it")
  void aRollbackThatKeepsTheGuardHandsOutRangesAgain(@TempDir Path dir) throws Exception {
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("live"), PrivateRedis.Persistence.AOF_EVERYSEC);
        RedisSegmentStore a = store(redis);
        RedisSegmentStore b = store(redis)) {
      List<Segment> handed = new ArrayList<>();
      handed.add(a.nextSegment(TAG, 10));
      handed.add(b.nextSegment(TAG, 10)); // both stores know the generation now
      redis.save();
      Thread.sleep(1_100); // everysec: the copy holds both claims and the guard
      Path copy = redis.copyFiles(dir.resolve("copy"));
      for (int i = 0; i < 3; i++) {
        handed.add(a.nextSegment(TAG, 10)); // the last second, lost by the crash
      }
      redis.restartFrom(copy);
      List<String> repeated = new ArrayList<>();
      List<Segment> after = new ArrayList<>();
      for (RedisSegmentStore s : List.of(b, a)) {
        Segment seg = claim(s, TAG);
        after.add(seg);
        for (Segment h : handed) {
          if (seg.start() <= h.endInclusive() && h.start() <= seg.endInclusive()) {
            repeated.add(seg + " overlaps " + h);
          }
        }
        handed.add(seg);
      }
      System.out.println("[guard review] before: " + handed.subList(0, 5) + ", after the rollback: " + after
          + ", repeated: " + repeated);
      assertThat(repeated).as("ranges handed out twice").isEmpty();
    }
  }

  /**
   * The guard key is {@code <counter key>:guard{<counter key>}} for a counter key without a hash tag, assumed to land
   * in the counter's slot. Redis Cluster hashes the first {@code {...}} with at least one character inside; a counter
   * key with a lone or empty brace (a tag such as {@code a}b}, {@code {}x}, {@code x{}) hashes as a whole, and its
   * guard's first {@code {} is then not the one the code appended, so the guard lands elsewhere and every claim of that
   * tag fails with CROSSSLOT in a Cluster (it worked before the guard: one key). Tags are not validated (only
   * non-empty).
   */
  @Test
  void theGuardIsInTheCountersSlotForEveryTagOrTheTagIsRefused(@TempDir Path dir) {
    // before the fix (review of #39): 'a}b' key slot 2678 vs guard slot 536; '{}x' 15791 vs 10236; 'x{' 1681 vs
    // 14233; 'x{}y{z}' 4097 vs 15766: every claim of such a tag failed with CROSSSLOT in a Cluster
    try (PrivateRedis redis = PrivateRedis.start(dir, PrivateRedis.Persistence.NONE);
        RedisSegmentStore s = store(redis)) {
      List<String> apart = new ArrayList<>();
      List<String> refused = new ArrayList<>();
      for (String tag : List.of("order", "{user}", "a}b", "{}x", "x{", "x{}y{z}")) {
        String guardKey;
        try {
          guardKey = s.guardKey(tag);
        } catch (IllegalArgumentException e) {
          assertThat(e.getMessage()).contains("'" + tag + "'").contains("not a Redis hash tag");
          refused.add(tag);
          continue;
        }
        if (SlotHash.getSlot(s.key(tag)) != SlotHash.getSlot(guardKey)) {
          apart.add(tag);
        }
      }
      assertThat(apart).as("tags whose guard is in another slot than the counter").isEmpty();
      assertThat(refused).containsExactly("a}b", "{}x", "x{", "x{}y{z}");
    }
  }

  /**
   * docs/segments.md's steps after a loss: 1. SET the counter, 2. DEL the guard, 3. restart the processes. A process
   * not yet restarted that claims between 2 and 3 (its generator's prefetch does so by itself) finds no guard where it
   * knew a generation and writes the tombstone again, so the operator's steps are undone and the processes restarted
   * in step 3 are refused again. Safe (nothing repeats), but the documented order does not bring the tag back; stop
   * the processes before step 2 (or restart them before DEL) is what works.
   */
  @Test
  void soundButTheOperatorsStepsAreUndoneByAProcessNotYetRestarted(@TempDir Path dir) {
    try (PrivateRedis redis = PrivateRedis.start(dir, PrivateRedis.Persistence.NONE);
        RedisSegmentStore old = store(redis)) {
      Segment before = old.nextSegment(TAG, 10);
      redis.restartEmpty();
      assertThatThrownBy(() -> claim(old, TAG)).hasMessageContaining("was lost");
      redis.redis().set(old.key(TAG), Long.toString(before.endInclusive() + 1_000)); // step 1
      redis.redis().del(old.guardKey(TAG)); // step 2
      assertThatThrownBy(() -> old.nextSegment(TAG, 10)).isInstanceOf(GeneIdException.class)
          .hasMessageContaining("was lost"); // the process not yet restarted claims
      try (RedisSegmentStore restarted = store(redis)) { // step 3
        assertThatThrownBy(() -> restarted.nextSegment(TAG, 10)).isInstanceOf(GeneIdException.class)
            .hasMessageContaining("was lost");
        System.out.println("[guard review] after steps 1-3 with one claim in between: guard = "
            + redis.redis().get(old.guardKey(TAG)));
      }
    }
  }
}
