package io.geneid.server;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one path of every request, HTTP or gRPC. A protocol parses its request into a {@link Request} and renders the
 * {@link Result}; everything between is here: the rate limit, the request size and authentication, in that order
 * (wrong tokens use up the rate limit too); the request's checks (its parse runs after them, so a client without a
 * token learns nothing of its mistakes); running it on the calling event loop, or on the blocking pool when it may
 * wait; the metrics and the access log. A bug is answered {@code internal} and logged here with its stack trace,
 * once.
 */
final class Requests {
  private static final Logger LOG = LoggerFactory.getLogger(Requests.class);

  /**
   * What a protocol knows of a call besides its request.
   *
   * @param endpoint the metrics' endpoint label ({@code ids}, {@code segment-ids}, ...; {@code ops} is not counted)
   * @param method what the access log names the method ({@code GET}, {@code POST} for gRPC)
   * @param path what the access log names the target (no query: no token or parameter value is ever logged)
   * @param headBytes the request line and headers (HTTP) or the metadata (gRPC), bounded by max-request-bytes
   * @param guarded whether the rate limit and authentication apply (the API: yes; health, metrics: no)
   */
  record Call(String protocol, String endpoint, String method, String path, String client,
      @Nullable String authorization, long headBytes, boolean guarded) {}

  private final IdService ids;
  private final ClientGuard guard;
  private final ServerMetrics metrics;
  private final Executor blocking;
  private final @Nullable AccessLog accessLog;
  private final int maxRequestBytes;
  private final AtomicInteger inFlight = new AtomicInteger();

  Requests(IdService ids, ClientGuard guard, ServerMetrics metrics, Executor blocking, @Nullable AccessLog accessLog,
      int maxRequestBytes) {
    this.ids = ids;
    this.guard = guard;
    this.metrics = metrics;
    this.blocking = blocking;
    this.accessLog = accessLog;
    this.maxRequestBytes = maxRequestBytes;
  }

  /**
   * Runs one call and hands its result to {@code reply}, exactly once: on this thread, or on a thread of the
   * blocking pool when the request may wait.
   *
   * @param parse the protocol's parse of the request; throws {@link ApiException} for a bad one
   */
  void run(Call call, Supplier<Request> parse, Consumer<Result> reply) {
    long start = System.nanoTime();
    inFlight.incrementAndGet();
    Request request;
    try {
      if (call.guarded()) {
        guard.admit(call.client());
      }
      if (call.headBytes() > maxRequestBytes) {
        throw new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, (call.protocol().equals("grpc")
            ? "the request metadata is " + call.headBytes() + " bytes, above max-request-bytes "
            : "the request line and headers exceed max-request-bytes ") + maxRequestBytes);
      }
      if (call.guarded()) {
        guard.authenticate(call.authorization());
      }
      request = parse.get();
    } catch (RuntimeException e) {
      finish(call, start, failure(call, e), reply);
      return;
    }
    if (!request.mayWait(ids)) {
      finish(call, start, answer(call, request), reply);
      return;
    }
    try {
      blocking.execute(() -> finish(call, start, answer(call, request), reply));
    } catch (RejectedExecutionException full) {
      finish(call, start, new Result.Failure(IdService.unavailable("the server is overloaded: too many requests "
          + "waiting")), reply);
    }
  }

  /** Calls received and not answered yet, over both protocols. */
  int inFlight() {
    return inFlight.get();
  }

  private Result answer(Call call, Request request) {
    try {
      return request.run(ids);
    } catch (RuntimeException e) {
      return failure(call, e);
    }
  }

  private static Result failure(Call call, RuntimeException e) {
    if (e instanceof ApiException refused) {
      return new Result.Failure(refused);
    }
    LOG.error("{} {} failed", call.protocol(), ParentKey.clip(call.path()), e); // a bug: logged with its trace
    return new Result.Failure(new ApiException(ErrorCode.INTERNAL, "internal error (" + e.getClass().getSimpleName()
        + "); the server logged it"));
  }

  private void finish(Call call, long start, Result result, Consumer<Result> reply) {
    try {
      long nanos = System.nanoTime() - start;
      ApiException error = result instanceof Result.Failure f ? f.error() : null;
      String outcome = error == null ? "ok" : error.code().code();
      if (!call.endpoint().equals("ops")) {
        metrics.request(call.endpoint(), call.protocol(), outcome, nanos, result.kind(), result.issued());
      }
      if (accessLog != null) {
        int status;
        if (call.protocol().equals("grpc")) {
          status = error == null ? 0 : error.code().grpcStatus().value();
        } else {
          status = error != null ? error.code().httpStatus()
              : result instanceof Result.Ready r && r.notReady() != null ? 503 : 200;
        }
        accessLog.line(call.protocol(), call.client(), call.method(), call.path(), status, outcome,
            result.issued(), nanos);
      }
      reply.accept(result);
    } finally {
      inFlight.decrementAndGet();
    }
  }
}
