package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Calls into a store that has gone silent (a black-holed or frozen proxy), for the JDBC fault tests. */
final class SilentCalls {

  private SilentCalls() {}

  /**
   * Runs {@code call}, which must fail with a {@link GeneIdException}, on a thread of its own; the time it took.
   *
   * @throws AssertionError if it succeeded, or hung past {@code cap}
   */
  static long failsWithin(Callable<?> call, Duration cap) throws InterruptedException {
    ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "silent-call");
      t.setDaemon(true);
      return t;
    });
    long start = System.nanoTime();
    Future<?> f = runner.submit(call);
    try {
      f.get(cap.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("the call succeeded through a silent database");
    } catch (TimeoutException e) {
      throw new AssertionError("the call hung: no answer after " + cap.toMillis() + " ms");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(GeneIdException.class);
      return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    } finally {
      runner.shutdownNow();
    }
  }
}
