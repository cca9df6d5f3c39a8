package io.geneid.core.snowflake;

import io.geneid.core.GeneClock;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdLayout;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The recent reading a generator on {@link GeneClock#system()} issues most ids at: never ahead of the exact clock,
 * never far behind it, kept by a thread that runs only while ids are issued.
 */
class RecentMillisTest {

  @Test
  void aRecentReadingIsNeverAheadOfTheClockNorFarBehindIt() {
    for (int i = 0; i < 200_000; i++) {
      long before = GeneClock.system().currentTimeMillis();
      long recent = RecentMillis.read();
      long after = GeneClock.system().currentTimeMillis();
      assertThat(recent).isLessThanOrEqualTo(after);
      // about a millisecond behind; a second covers a loaded machine that did not schedule the ticker for a while
      assertThat(recent).isGreaterThan(before - 1_000);
    }
  }

  @Test
  void idsOfTheSystemClockCarryTimestampsBetweenTheRecentPastAndTheBorrowingBound() {
    GeneIdLayout layout = GeneIdLayout.defaults();
    GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().layout(layout).workerId(7).buildUnshared();
    for (int i = 0; i < 300_000; i++) {
      long before = GeneClock.system().currentTimeMillis();
      long id = ids.nextId(i & layout.maxGene());
      long after = GeneClock.system().currentTimeMillis();
      long at = layout.decode(id).timestamp().toEpochMilli();
      assertThat(at).as("id %d", id).isLessThanOrEqualTo(after + ids.maxBorrowMillis())
          .isGreaterThan(before - 1_000);
    }
  }

  @Test
  void theClockThreadStopsWhenNoIdIsIssuedAndStartsAgainOnTheNextOne() throws Exception {
    RecentMillis.read();
    assertThat(clockThreadAlive()).isTrue();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (clockThreadAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100); // no read: the thread stops after about a second
    }
    assertThat(clockThreadAlive()).as("gene-id-clock still running after 20 s without reads").isFalse();
    long before = GeneClock.system().currentTimeMillis();
    assertThat(RecentMillis.read()).isGreaterThanOrEqualTo(before); // read at once from the clock itself
    assertThat(clockThreadAlive()).isTrue();
  }

  private static boolean clockThreadAlive() {
    Thread[] threads = new Thread[Thread.activeCount() * 2 + 16];
    int n = Thread.enumerate(threads);
    return Arrays.stream(threads, 0, n).anyMatch(t -> t.getName().equals("gene-id-clock") && t.isAlive());
  }
}
