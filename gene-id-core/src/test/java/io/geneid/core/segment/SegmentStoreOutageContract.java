package io.geneid.core.segment;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneClock;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.testing.TestTime;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The part of the segment contract for stores a test can cut off from this process (a service behind a
 * {@link TcpProxy}, or a test store told to fail): an outage is ridden out while values remain, then fails clearly,
 * then issuance resumes without reusing a value. Implemented beside {@link AbstractSegmentStoreContractTest} by every
 * backend but an embedded database, which cannot be cut off.
 */
public interface SegmentStoreOutageContract {

  /** A store whose backend the test can take away and give back; a call while it is down fails within seconds. */
  Outage outage() throws Exception;

  /** Closes {@code closeable} after the test (see {@link AbstractSegmentStoreContractTest#track}). */
  <T extends AutoCloseable> T track(T closeable);

  /**
   * A store that goes down and comes back, and what its failure says.
   *
   * @param store the store, reaching the backend only while it is up
   * @param down takes the backend away
   * @param up gives it back
   * @param storeName the store as the generator names it: the exact text after "the segment store "
   * @param failurePrefix how the store's own failure to hand out 100 values of tag 'order' starts
   * @param failsWithin how long that failure may take at most, or null where the backend promises nothing
   */
  record Outage(SegmentStore store, Action down, Action up, String storeName, String failurePrefix,
      @Nullable Duration failsWithin) {

    /** The backend behind {@code proxy}: down is {@link TcpProxy#stop()}, up {@link TcpProxy#start()}. */
    public static Outage behind(TcpProxy proxy, SegmentStore store, String storeName, String failurePrefix,
        @Nullable Duration failsWithin) {
      return new Outage(store, proxy::stop, proxy::start, storeName, failurePrefix, failsWithin);
    }
  }

  /** A step of an outage. */
  @FunctionalInterface
  interface Action {
    void run() throws Exception;
  }

  @Test
  default void anOutageIsRiddenOutThenFailsClearlyThenResumesWithoutReuse() throws Exception {
    Outage outage = outage();
    GeneClock stopped = () -> 1_800_000_000_000L; // prefetch retries stand still
    GeneSegmentGenerator g = track(GeneSegmentGenerator.builder(outage.store(), "order").minStep(100).maxStep(100)
        .clock(stopped).build());
    Set<Long> values = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      values.add(g.valueOf(g.nextId()));
    }
    Await.until(() -> g.status().nextReady(), AbstractSegmentStoreContractTest.TIMEOUT, "the next segment");

    outage.down().run();
    for (int i = 0; i < 190; i++) { // the rest of the current segment and all of the prefetched one
      assertThat(values.add(g.valueOf(g.nextId()))).isTrue();
    }
    long start = System.nanoTime();
    assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith("no ids left for tag 'order': its segments are used up and the segment store "
            + outage.storeName() + " failed to hand out the next segment: ")
        .cause().isInstanceOf(GeneIdException.class)
        .hasMessageStartingWith(outage.failurePrefix());
    Duration limit = outage.failsWithin();
    if (limit != null) {
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(limit);
    }

    outage.up().run();
    long resumed = issueOnceTheStoreIsBack(g);
    assertThat(values.add(resumed)).isTrue();
    for (int i = 0; i < 300; i++) {
      long v = g.valueOf(g.nextId());
      assertThat(v).isGreaterThan(200);
      assertThat(values.add(v)).as("value %d reused", v).isTrue();
    }
    assertThat(values).hasSize(501);
  }

  /** The client reconnects on its own schedule: each failure until then must be the clear one. */
  private static long issueOnceTheStoreIsBack(GeneSegmentGenerator g) {
    Duration timeout = TestTime.seconds(20);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        return g.valueOf(g.nextId());
      } catch (GeneIdException e) {
        assertThat(e).hasMessageStartingWith("no ids left for tag 'order'");
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the generator did not resume within " + timeout.toMillis() + " ms after the store"
              + " came back", e);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // polling for the reconnect
      }
    }
  }
}
