package io.geneid.jdbc;

import static io.geneid.jdbc.AbstractJdbcBucketMoverScenarioTest.sql;
import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** The fence review of issue #38 on MariaDB, and what is MariaDB's own: three triggers per table. */
class MariaDbFenceReviewTest extends AbstractFenceReviewTest {
  @Override
  SegmentDatabase.Kind kind() {
    return SegmentDatabase.Kind.MARIADB;
  }

  @Test
  @Disabled("repro (MariaDB 10.11): on MariaDB the fence is three CREATE TRIGGER statements (_bi, _bu, _bd) and triggerExists()"
      + " answers true as soon as ONE of them exists (LIKE 'gid\\_fence\\_t\\_order\\_b_'), so a mover killed, or"
      + " stopped by a lock timeout past --router-wait, after its first CREATE TRIGGER leaves the table with the"
      + " INSERT trigger only, and every later run keeps it. (A lock-timeout retry of create() itself fails on"
      + " the first statement with 'Trigger already exists', not a lock timeout, so it is not retried.) Failed"
      + " with: [a plain UPDATE of FROZEN bucket 5 with only the _bi trigger present] expected: \"40001\" but"
      + " was: null")
  void aHalfInstalledFenceIsTakenForAWholeOne() throws Exception {
    BucketFence fence = new BucketFence("orders", G, Duration.ofSeconds(2));
    fence.install(ds0, 0, List.of(new BucketFence.Fenced("t_order", "id")));
    // what a mover killed right after its first CREATE TRIGGER leaves
    sql(ds0, "DROP TRIGGER gid_fence_t_order_bu");
    sql(ds0, "DROP TRIGGER gid_fence_t_order_bd");
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
