package io.geneid.server;

import io.geneid.server.grpc.v1.DecodeReply;
import io.geneid.server.grpc.v1.DecodeRequest;
import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.IdsReply;
import io.geneid.server.grpc.v1.InfoReply;
import io.geneid.server.grpc.v1.InfoRequest;
import io.geneid.server.grpc.v1.NextIdsRequest;
import io.geneid.server.grpc.v1.NextSegmentIdsRequest;
import io.geneid.server.grpc.v1.NextStringsRequest;
import io.geneid.server.grpc.v1.RouteReply;
import io.geneid.server.grpc.v1.RouteRequest;
import io.geneid.server.grpc.v1.StringsReply;
import io.geneid.core.GeneIdLayout;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The gRPC API ({@code geneid/v1/gene_id.proto}): the operations of {@link IdService}, as the HTTP API has them. */
final class GrpcApi extends GeneIdServiceGrpc.GeneIdServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcApi.class);
  /** The trailer holding the HTTP API's error code. */
  static final Metadata.Key<String> ERROR_CODE = Metadata.Key.of("gene-id-error-code",
      Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization",
      Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<String> CLIENT = Context.key("gene-id-client");

  private final IdService ids;
  private final ServerMetrics metrics;
  private final @Nullable AccessLog accessLog;
  private final String version;
  private final java.util.concurrent.Executor blocking;

  GrpcApi(IdService ids, ServerMetrics metrics, @Nullable AccessLog accessLog, String version,
      java.util.concurrent.Executor blocking) {
    this.blocking = blocking;
    this.ids = ids;
    this.metrics = metrics;
    this.accessLog = accessLog;
    this.version = version;
  }

  /**
   * The rate limit, the metadata size and authentication, in that order, before any call reaches the service: wrong
   * tokens are rate-limited too.
   */
  static ServerInterceptor guard(ClientGuard guard, int maxRequestBytes) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        String client = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR) instanceof InetSocketAddress a
            && a.getAddress() != null ? a.getAddress().getHostAddress() : "unknown";
        if (call.getMethodDescriptor().getServiceName() != null
            && call.getMethodDescriptor().getServiceName().startsWith("geneid.")) {
          try {
            guard.admit(client);
            long size = metadataBytes(headers);
            if (size > maxRequestBytes) {
              throw new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, "the request metadata is " + size
                  + " bytes, above max-request-bytes " + maxRequestBytes);
            }
            guard.authenticate(headers.get(AUTHORIZATION));
          } catch (ApiException e) {
            call.close(status(e), trailers(e));
            return new ServerCall.Listener<>() {};
          }
        }
        return Contexts.interceptCall(Context.current().withValue(CLIENT, client), call, headers, next);
      }
    };
  }

  /** The metadata's size as HTTP/2 counts a header list: name and value bytes plus 32 per entry. */
  static long metadataBytes(Metadata headers) {
    long n = 0;
    byte[][] raw = io.grpc.InternalMetadata.serialize(headers);
    for (byte[] b : raw) {
      n += b.length;
    }
    return n + 16L * raw.length;
  }

  /**
   * The service with every request parsed here: a message that is not valid protobuf ends the call with
   * INVALID_ARGUMENT naming the message type (grpc-java would answer UNKNOWN and log a SEVERE stack trace).
   */
  static io.grpc.ServerServiceDefinition parseErrorsAsInvalidArgument(io.grpc.ServerServiceDefinition service) {
    io.grpc.ServerServiceDefinition.Builder b = io.grpc.ServerServiceDefinition.builder(
        service.getServiceDescriptor().getName());
    for (io.grpc.ServerMethodDefinition<?, ?> m : service.getMethods()) {
      b.addMethod(rawRequests(m));
    }
    return b.build();
  }

  private static final io.grpc.MethodDescriptor.Marshaller<java.io.InputStream> RAW =
      new io.grpc.MethodDescriptor.Marshaller<>() {
        @Override
        public java.io.InputStream stream(java.io.InputStream value) {
          return value;
        }

        @Override
        public java.io.InputStream parse(java.io.InputStream stream) {
          return stream;
        }
      };

  private static <Q, R> io.grpc.ServerMethodDefinition<java.io.InputStream, R> rawRequests(
      io.grpc.ServerMethodDefinition<Q, R> def) {
    io.grpc.MethodDescriptor<Q, R> method = def.getMethodDescriptor();
    io.grpc.MethodDescriptor<java.io.InputStream, R> raw = method.toBuilder(RAW, method.getResponseMarshaller())
        .build();
    String type = method.getFullMethodName().substring(method.getFullMethodName().indexOf('/') + 1) + "Request";
    ServerCallHandler<java.io.InputStream, R> handler = (call, headers) -> {
      ServerCall<Q, R> typed = new io.grpc.ForwardingServerCall.SimpleForwardingServerCall<Q, R>(
          uncheckedCast(call)) {
        @Override
        public io.grpc.MethodDescriptor<Q, R> getMethodDescriptor() {
          return method;
        }
      };
      ServerCall.Listener<Q> inner = def.getServerCallHandler().startCall(typed, headers);
      return new ServerCall.Listener<>() {
        private boolean failed;

        @Override
        public void onMessage(java.io.InputStream message) {
          if (failed) {
            return;
          }
          Q request;
          try {
            request = method.parseRequest(message);
          } catch (RuntimeException e) {
            failed = true;
            ApiException bad = ApiException.invalid("the request is not a valid " + type + " protobuf message: "
                + (e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage()
                : String.valueOf(e.getMessage())));
            call.close(status(bad), trailers(bad));
            return;
          }
          inner.onMessage(request);
        }

        @Override
        public void onHalfClose() {
          if (!failed) {
            inner.onHalfClose();
          }
        }

        @Override
        public void onCancel() {
          inner.onCancel();
        }

        @Override
        public void onComplete() {
          inner.onComplete();
        }

        @Override
        public void onReady() {
          if (!failed) {
            inner.onReady();
          }
        }
      };
    };
    return io.grpc.ServerMethodDefinition.create(raw, handler);
  }

  @SuppressWarnings("unchecked")
  private static <Q, R> ServerCall<Q, R> uncheckedCast(ServerCall<?, R> call) {
    return (ServerCall<Q, R>) call;
  }

  private static Status status(ApiException e) {
    return Status.fromCode(e.code().grpcStatus()).withDescription(e.reason());
  }

  private static Metadata trailers(ApiException e) {
    Metadata m = new Metadata();
    m.put(ERROR_CODE, e.code().code());
    return m;
  }

  private <T> void call(String endpoint, String kind, StreamObserver<T> out, Supplier<T> body) {
    long start = System.nanoTime();
    String outcome = "ok";
    int n = 0;
    try {
      T reply;
      try {
        reply = body.get();
      } catch (ApiException e) {
        throw e;
      } catch (RuntimeException e) {
        LOG.error("gRPC {} failed", endpoint, e);
        throw new ApiException(ErrorCode.INTERNAL, "internal error (" + e.getClass().getSimpleName()
            + "); the server logged it");
      }
      if (reply instanceof IdsReply r) {
        n = r.getIdsCount();
      } else if (reply instanceof StringsReply r) {
        n = r.getIdsCount();
      }
      out.onNext(reply);
      out.onCompleted();
    } catch (ApiException e) {
      outcome = e.code().code();
      out.onError(new StatusRuntimeException(status(e), trailers(e)));
    }
    long nanos = System.nanoTime() - start;
    metrics.request(endpoint, "grpc", outcome, nanos, kind, n);
    if (accessLog != null) {
      String client = CLIENT.get();
      accessLog.line("grpc", client == null ? "unknown" : client, "POST", "/geneid.v1.GeneIdService/" + endpoint,
          outcome.equals("ok") ? 200 : 0, outcome, n, nanos);
    }
  }

  private int count(int count) {
    return ids.checkCount(count == 0 ? 1 : Integer.toUnsignedLong(count));
  }

  private static IdsReply idsReply(long[] out, @Nullable ParentKey parent) {
    IdsReply.Builder b = IdsReply.newBuilder().setGene(parent == null ? -1 : (int) parent.gene());
    for (long id : out) {
      b.addIds(id);
    }
    return b.build();
  }

  /** Runs {@code task} here, or on the blocking executor when it may take long (a big batch, the clock behind). */
  private <T> void dispatch(boolean offload, StreamObserver<T> out, Runnable task) {
    if (!offload) {
      task.run();
      return;
    }
    try {
      blocking.execute(Context.current().wrap(task));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      ApiException busy = IdService.unavailable("the server is overloaded: too many requests waiting");
      out.onError(new StatusRuntimeException(status(busy), trailers(busy)));
    }
  }

  private boolean offload(int count) {
    return Integer.toUnsignedLong(count) > HttpApi.LOOP_MAX_COUNT || ids.clockBehind();
  }

  @Override
  public void nextIds(NextIdsRequest req, StreamObserver<IdsReply> out) {
    dispatch(offload(req.getCount()), out, () -> call("ids", "snowflake", out, () -> {
      ParentKey parent = ParentKey.of(req.hasParent() ? req.getParent() : null, ids.layout());
      return idsReply(ids.nextIds(parent, count(req.getCount())), parent);
    }));
  }

  @Override
  public void nextSegmentIds(NextSegmentIdsRequest req, StreamObserver<IdsReply> out) {
    Context context = Context.current();
    Runnable task = context.wrap(() -> call("segment-ids", "segment", out, () -> {
      ParentKey parent = ParentKey.of(req.hasParent() ? req.getParent() : null, ids.layout());
      return idsReply(ids.nextSegmentIds(req.getKey(), parent, count(req.getCount())), parent);
    }));
    try {
      blocking.execute(task); // a segment call may wait for the store: off the event loop
    } catch (java.util.concurrent.RejectedExecutionException e) {
      ApiException busy = IdService.unavailable("the server is overloaded: too many segment requests waiting");
      out.onError(new StatusRuntimeException(status(busy), trailers(busy)));
    }
  }

  @Override
  public void nextStrings(NextStringsRequest req, StreamObserver<StringsReply> out) {
    dispatch(offload(req.getCount()), out, () -> call("strings", "string", out, () -> {
      ParentKey parent = ParentKey.of(req.hasParent() ? req.getParent() : null, ids.layout());
      String[] s = ids.nextStrings(parent, count(req.getCount()), req.getPrefix(), req.getDate());
      return StringsReply.newBuilder().addAllIds(Arrays.asList(s)).setGene(parent == null ? -1 : (int) parent.gene())
          .build();
    }));
  }

  @Override
  public void decode(DecodeRequest req, StreamObserver<DecodeReply> out) {
    call("decode", "", out, () -> {
      IdService.Decoded d = switch (req.getIdCase()) {
        case NUMBER -> ids.decode(req.getNumber());
        case TEXT -> ids.decode(req.getText(), req.getPrefix(), req.getDate());
        case ID_NOT_SET -> throw ApiException.invalid("give the id to decode: number or text");
      };
      DecodeReply.Builder b = DecodeReply.newBuilder().setId(d.id()).setTimestamp(d.timestamp())
          .setWorkerId(d.workerId()).setSequence(d.sequence()).setGene(d.gene());
      try {
        b.setTimestampMillis(Long.parseLong(d.timestampMillis()));
      } catch (NumberFormatException beyondLong) {
        b.setTimestampMillis(Long.MAX_VALUE); // only for T = 63 ids far past the year 292 million
      }
      return b.build();
    });
  }

  @Override
  public void route(RouteRequest req, StreamObserver<RouteReply> out) {
    call("route", "", out, () -> {
      GeneIdLayout layout = ids.layout();
      long gene = switch (req.getSubjectCase()) {
        case ID -> {
          if (req.getId() < 0) {
            throw ApiException.invalid("an id must not be negative but was " + req.getId());
          }
          yield layout.geneOf(req.getId());
        }
        case PARENT -> {
          ParentKey p = ParentKey.of(req.getParent(), layout);
          if (p == null) {
            throw ApiException.invalid("give what to route: an id or a parent");
          }
          yield p.gene();
        }
        case SUBJECT_NOT_SET -> throw ApiException.invalid("give what to route: an id or a parent");
      };
      long divisor = req.getGeneDivisor() == 0 ? 1 : Integer.toUnsignedLong(req.getGeneDivisor());
      long[] r = ids.route(gene, Integer.toUnsignedLong(req.getShardingCount()), divisor);
      return RouteReply.newBuilder().setGene(r[0]).setIndex((int) r[1]).build();
    });
  }

  @Override
  public void info(InfoRequest req, StreamObserver<InfoReply> out) {
    call("info", "", out, () -> {
      GeneIdLayout l = ids.layout();
      return InfoReply.newBuilder().setEpochMillis(l.epoch().toEpochMilli()).setTimestampBits(l.timestampBits())
          .setWorkerBits(l.workerBits()).setSequenceBits(l.sequenceBits()).setGeneBits(l.geneBits())
          .setWorkerId(ids.workerId()).setIssuing(ids.notReady() == null).setMaxCount(ids.maxCount())
          .setVersion(version).build();
    });
  }
}
