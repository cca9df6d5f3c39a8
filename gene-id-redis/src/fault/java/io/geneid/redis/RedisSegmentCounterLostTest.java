package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.Segment;
import io.geneid.core.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #39, scenario 3: a segment counter lost while several processes share it. Two stores, each with its own
 * connection and generator (two processes' worth: nothing shared but the Redis), issue ids of one tag from a private
 * redis-server without persistence (started on a free port, {@code kill -9}ed by pid, restarted empty; the shared
 * Redis is never touched). Before the guard, each generator refused only segments below what it had seen, and took
 * the first range above it, which the other had issued: 60 and 80 duplicate ids in the issue's runs with gene-id-server.
 * Now the first claim after the loss finds the counter's generation gone, leaves a tombstone, and every claim of the
 * tag, by these stores or a store started later, is refused by name until an operator raises the counter and drops
 * the tombstone.
 */
class RedisSegmentCounterLostTest {

  private static final String TAG = "order";

  @Test
  void aCounterLostUnderTwoProcessesIsRefusedNotCountedAgain(@TempDir Path dir) throws Exception {
    try (PrivateRedis redis = PrivateRedis.start(dir, PrivateRedis.Persistence.NONE);
        RedisSegmentStore a = store(redis);
        RedisSegmentStore b = store(redis);
        GeneSegmentGenerator ga = generator(a);
        GeneSegmentGenerator gb = generator(b)) {
      Map<Long, String> issued = new HashMap<>();
      List<String> duplicates = new ArrayList<>();
      int[] before = issue(ga, gb, issued, duplicates, 400);
      redis.restartEmpty(); // kill -9 and start without data: every counter is gone
      int[] after = issue(ga, gb, issued, duplicates, 400);
      System.out.println("[segment counter lost] before the loss A/B issued " + before[0] + "/" + before[1]
          + ", after it " + after[0] + "/" + after[1] + " (refused " + after[2] + "), duplicate ids: "
          + duplicates.size() + (duplicates.isEmpty() ? "" : ", first " + duplicates.get(0)));
      assertThat(duplicates).as("ids issued by both processes").isEmpty();
      // a process started after the loss is refused too, by name, with what to do
      try (RedisSegmentStore late = store(redis)) {
        assertThatThrownBy(() -> late.nextSegment(TAG, 10)).isInstanceOf(GeneIdException.class)
            .hasMessageContaining("the segment counter " + a.key(TAG) + " of tag 'order'")
            .hasMessageContaining("was lost").hasMessageContaining("SET " + a.key(TAG))
            .hasMessageContaining("DEL " + a.guardKey(TAG));
        // the operator acts: the counter above every id in use, the tombstone dropped
        long highest = issued.keySet().stream().mapToLong(id -> id >>> 6).max().orElseThrow();
        redis.redis().set(a.key(TAG), Long.toString(highest));
        redis.redis().del(a.guardKey(TAG));
        Segment next = late.nextSegment(TAG, 10);
        assertThat(next.start()).isGreaterThan(highest);
      }
    }
  }

  @Test
  void aNewTagAndAKnownCounterClaimAsBefore(@TempDir Path dir) {
    try (PrivateRedis redis = PrivateRedis.start(dir, PrivateRedis.Persistence.NONE);
        RedisSegmentStore a = store(redis);
        RedisSegmentStore b = store(redis)) {
      assertThat(a.nextSegment("fresh", 10)).isEqualTo(new Segment(1, 10));
      assertThat(b.nextSegment("fresh", 10)).isEqualTo(new Segment(11, 20));
      redis.redis().set(b.key("old"), "500"); // a counter written before the guard existed
      assertThat(b.nextSegment("old", 10)).isEqualTo(new Segment(501, 510));
      assertThat(a.nextSegment("old", 10)).isEqualTo(new Segment(511, 520));
      redis.redis().del(b.key("old")); // an operator's DEL of a counter: the same refusal
      assertThatThrownBy(() -> a.nextSegment("old", 10)).isInstanceOf(GeneIdException.class)
          .hasMessageContaining("was lost");
      assertThatThrownBy(() -> b.nextSegment("old", 10)).isInstanceOf(GeneIdException.class)
          .hasMessageContaining("was lost");
    }
  }

  private static RedisSegmentStore store(PrivateRedis redis) {
    return RedisSegmentStore.builder().redisUri(redis.uri()).allowWithoutPersistence(true)
        .commandTimeout(TestTime.seconds(1)).build(); // at the time scale, as the fetch timeout
  }

  private static GeneSegmentGenerator generator(RedisSegmentStore store) {
    return GeneSegmentGenerator.builder(store, TAG).minStep(20).maxStep(20).prefetchRatio(0.5)
        .fetchTimeout(TestTime.ofMillis(300)).prefetchRetry(Duration.ofMillis(20)).build();
  }

  /**
   * A and B take turns until each issued {@code n} more ids, or both were refused for 5 s (at the tests' time scale)
   * on end (a deadline, not a sleep: each refusal is a fetch that failed). Returns {issued by A, issued by B, refusals}.
   */
  private static int[] issue(GeneSegmentGenerator ga, GeneSegmentGenerator gb, Map<Long, String> issued,
      List<String> duplicates, int n) {
    int[] counts = new int[3];
    long refusedSince = 0;
    while (counts[0] < n || counts[1] < n) {
      boolean progress = false;
      for (int p = 0; p < 2; p++) {
        if (counts[p] >= n) {
          continue;
        }
        try {
          long id = (p == 0 ? ga : gb).nextId(0);
          String who = p == 0 ? "A" : "B";
          String other = issued.putIfAbsent(id, who);
          if (other != null) {
            duplicates.add(id + " by " + other + " and " + who);
          }
          counts[p]++;
          progress = true;
        } catch (GeneIdException e) {
          counts[2]++;
        }
      }
      if (progress) {
        refusedSince = 0;
      } else if (refusedSince == 0) {
        refusedSince = System.nanoTime();
      } else if (System.nanoTime() - refusedSince > TestTime.seconds(5).toNanos()) {
        break;
      }
    }
    return counts;
  }
}
