package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdException;
import io.geneid.core.segment.Segment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review w39r2 of #39 (segment last end, ARGV[4]). docs/segments.md and the CHANGELOG say a counter that went back
 * with its guard is refused "from the first claim of a store that was handed a range above the restored counter", so
 * "the first claim of a store that was handed a range the rollback lost stops every process", and that a store never
 * handed one is handed those ranges again only "until then". But the script compares the counter with the store's end
 * <em>before</em> this claim, and other stores move the counter on meanwhile: when the stores that know nothing of the
 * lost ranges claim past the end of the store that does before that store claims again (it lives on a buffer, a large
 * step, little traffic), the counter is no longer below its end, its claim passes, and nobody is ever refused. The
 * lost ranges were handed out twice and no process, now or later, notices.
 *
 * <p>Private redis-server only (free port, killed by pid); the shared Redis is never touched.
 */
class RedisSegmentEndOvertakenReviewTest {

  private static final String TAG = "order";

  private static RedisSegmentStore store(PrivateRedis redis) {
    return RedisSegmentStore.builder().redisUri(redis.uri()).allowWithoutPersistence(true)
        .commandTimeout(Duration.ofSeconds(1)).build();
  }

  /** A claim, retried while the client reconnects after a restart (at most 10 s); other failures are thrown. */
  private static Segment claim(RedisSegmentStore s) {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    for (;;) {
      try {
        return s.nextSegment(TAG, 10);
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

  @Test
  void aStoreHandedTheLostRangesIsRefusedEvenWhenOthersClaimedPastItsEndFirst(@TempDir Path dir) {
    try (PrivateRedis redis = PrivateRedis.start(dir.resolve("live"), PrivateRedis.Persistence.AOF_EVERYSEC);
        RedisSegmentStore a = store(redis);
        RedisSegmentStore b = store(redis)) {
      List<Segment> ofA = new ArrayList<>();
      List<Segment> ofB = new ArrayList<>();
      ofA.add(a.nextSegment(TAG, 10)); // [1,10]
      ofB.add(b.nextSegment(TAG, 10)); // [11,20]: both know the generation
      redis.awaitAofWritten();
      Path copy = redis.copyFiles(dir.resolve("copy")); // counter 20, the live guard
      for (int i = 0; i < 3; i++) {
        ofA.add(a.nextSegment(TAG, 10)); // [21,30] [31,40] [41,50], lost by the rollback
      }
      redis.restartFrom(copy);
      assertThat(redis.redis().get(a.key(TAG))).as("the counter after the rollback").isEqualTo("20");
      // B is busy, A serves from its buffer: B claims four times before A claims again
      List<String> refusalsOfB = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        try {
          ofB.add(claim(b));
        } catch (GeneIdException e) {
          refusalsOfB.add(e.getMessage());
        }
      }
      String refusalOfA = null;
      Segment nextOfA = null;
      try {
        nextOfA = claim(a);
      } catch (GeneIdException e) {
        refusalOfA = e.getMessage();
      }
      String refusalOfB = refusal(() -> claim(b));
      long twice = ofA.stream().filter(ofB::contains).count();
      System.out.println("[w39r2 end overtaken] A " + ofA + ", B " + ofB + "; ranges handed to both: " + twice
          + "; A's next claim: " + (refusalOfA == null ? nextOfA : "refused") + "; B's next: "
          + (refusalOfB == null ? "handed" : "refused") + "; B refused " + refusalsOfB.size() + "x; guard " + redis.redis().get(a.guardKey(TAG)));
      // before the fix: B was handed [21,30]..[51,60], A then [61,70], nobody refused (3 ranges handed to both).
      // Now B's first claim finds the server restarted (another run_id) on an appendfsync everysec server, and the
      // counter may have come back from an older copy: it lays the tombstone before any range is handed again
      assertThat(twice).as("ranges handed to A before the rollback and to B after it").isZero();
      assertThat(refusalsOfB).as("B's claims after the rollback").hasSize(4).allSatisfy(m ->
          assertThat(m).contains("was lost").contains("is now on the server"));
      assertThat(refusalOfA).as("A, which was handed the lost ranges [21,50], claims after the rollback: docs say"
          + " its first claim lays the tombstone").isNotNull().contains("was lost");
      assertThat(refusalOfB).as("and B is refused from then on").isNotNull().contains("was lost");
    }
  }

  private static @Nullable String refusal(Runnable claim) {
    try {
      claim.run();
      return null;
    } catch (GeneIdException e) {
      return e.getMessage();
    }
  }
}
