package io.geneid.jdbc;

import static io.geneid.jdbc.AbstractJdbcBucketMoverScenarioTest.sql;
import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The fence review of issue #38 on MariaDB, and what is MariaDB's own: three triggers per table. */
class MariaDbFenceReviewTest extends AbstractFenceReviewTest {
  @Override
  SegmentDatabase.Kind kind() {
    return SegmentDatabase.Kind.MARIADB;
  }

  @Test
  void aHalfInstalledFenceIsTakenForAWholeOne() throws Exception {
    BucketFence fence = new BucketFence("orders", G, Duration.ofSeconds(2));
    BucketFence.Fenced table = new BucketFence.Fenced("t_order", "id");
    fence.fence(ds0, 0, BUCKET, 1, "review", List.of(table));
    fence.releaseStale(ds0, 0, map()); // bucket 5 NORMAL on target 0: the fence row goes, the triggers stay
    // what a mover killed right after its first CREATE TRIGGER leaves (before #38's review: taken for a whole fence,
    // a plain UPDATE of FROZEN bucket 5 went through)
    sql(ds0, "DROP TRIGGER " + fence.triggerName(table) + "_bu");
    sql(ds0, "DROP TRIGGER " + fence.triggerName(table) + "_bd");
    AtomicReference<String> during = new AtomicReference<>("not run");
    String outcome;
    try {
      mover().progressListener(p -> {
        if (map().state(BUCKET) == BucketState.FROZEN && "not run".equals(during.get())) {
          during.set(plainWrite(ds0, "UPDATE t_order SET customer = 'during' WHERE id = " + (3L << G | BUCKET)));
        }
      }).build().move(new BucketMove(BUCKET, 0, 1));
      outcome = "moved";
    } catch (RuntimeException e) {
      outcome = e.getMessage();
    }
    assertThat(during.get()).as("a plain UPDATE of FROZEN bucket 5 with only the _bi trigger present (the move: %s)",
        outcome).isEqualTo("40001");
  }
}
