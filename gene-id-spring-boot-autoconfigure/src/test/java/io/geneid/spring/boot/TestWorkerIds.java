package io.geneid.spring.boot;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Worker ids for tests that build JVM-wide generators: one counter for every test class of a test JVM, so that no two
 * tests claim one worker id with different layouts, whatever order the classes run in (each starter runs these tests,
 * and its own, in one JVM).
 */
public final class TestWorkerIds {

  private static final AtomicLong NEXT = new AtomicLong(100);

  private TestWorkerIds() {}

  /** A worker id no other test of this JVM took, in [100, 255]. */
  public static long next() {
    long id = NEXT.getAndIncrement();
    if (id > 255) {
      throw new IllegalStateException("the tests took more than 156 worker ids: widen TestWorkerIds' range");
    }
    return id;
  }
}
