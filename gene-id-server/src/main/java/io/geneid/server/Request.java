package io.geneid.server;

import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.GeneRouting;
import org.jspecify.annotations.Nullable;

/**
 * One request of the API, parsed by its protocol and checked by {@link IdService}'s factories ({@code ids},
 * {@code strings}, {@code route}, ...), so a request that exists is valid: {@link Requests} runs it the same way for
 * HTTP and gRPC.
 */
sealed interface Request {
  /** The largest count answered on an event loop; larger batches are made on the blocking pool. */
  int LOOP_MAX_COUNT = 1000;

  /** Answers the request; throws {@link ApiException} for what the client sees as an error. */
  Result run(IdService ids);

  /** Whether it may wait or take long (the store, a big batch, the clock behind): it then runs off the loop. */
  default boolean mayWait(IdService ids) {
    return false;
  }

  record NextIds(@Nullable ParentKey parent, int count) implements Request {
    @Override
    public Result run(IdService ids) {
      return new Result.Ids(null, ids.nextIds(parent, count), parent);
    }

    @Override
    public boolean mayWait(IdService ids) {
      return count > LOOP_MAX_COUNT || ids.clockBehind();
    }
  }

  record NextStrings(@Nullable ParentKey parent, int count, GeneIdStringFormat format) implements Request {
    @Override
    public Result run(IdService ids) {
      long[] values = ids.nextIds(parent, count);
      String[] out = new String[values.length];
      for (int i = 0; i < values.length; i++) {
        out[i] = format.format(values[i]);
      }
      return new Result.Strings(out, parent);
    }

    @Override
    public boolean mayWait(IdService ids) {
      return count > LOOP_MAX_COUNT || ids.clockBehind();
    }
  }

  record NextSegmentIds(String key, @Nullable ParentKey parent, int count) implements Request {
    @Override
    public Result run(IdService ids) {
      return new Result.Ids(key, ids.nextSegmentIds(key, parent, count), parent);
    }

    @Override
    public boolean mayWait(IdService ids) {
      return true; // the store may be slow
    }
  }

  record ListSegments() implements Request {
    @Override
    public Result run(IdService ids) {
      return new Result.Segments(ids.segmentStates());
    }
  }

  record Decode(long id) implements Request {
    @Override
    public Result run(IdService ids) {
      return ids.decode(id);
    }
  }

  record Route(long gene, GeneRouting routing) implements Request {
    @Override
    public Result run(IdService ids) {
      return new Result.Routed(gene, routing.index(gene));
    }
  }

  record Info() implements Request {
    @Override
    public Result run(IdService ids) {
      return ids.info();
    }
  }

  /** {@code /health/live} or, with {@code ready}, {@code /health/ready}. */
  record Health(boolean ready) implements Request {
    @Override
    public Result run(IdService ids) {
      return ready ? new Result.Ready(ids.notReady(), ids.workerId()) : new Result.Live();
    }
  }

  record Metrics() implements Request {
    @Override
    public Result run(IdService ids) {
      return new Result.Scrape(ids.metricsText());
    }
  }
}
