package io.geneid.server;

import io.geneid.server.grpc.v1.DecodeReply;
import io.geneid.server.grpc.v1.DecodeRequest;
import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.IdsReply;
import io.geneid.server.grpc.v1.InfoReply;
import io.geneid.server.grpc.v1.Parent;
import io.geneid.server.grpc.v1.RouteReply;
import io.geneid.server.grpc.v1.RouteRequest;
import io.geneid.server.grpc.v1.StringsReply;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC API ({@code geneid/v1/gene_id.proto}): each method parses its request message into a {@link Request},
 * {@link Requests} runs it as it runs HTTP's, and the {@link Result} becomes the reply message or a status. A method
 * takes its message as bytes and parses it itself, so a message that is not valid protobuf is INVALID_ARGUMENT naming
 * its type (grpc-java would answer UNKNOWN and log a SEVERE stack trace), reported after the rate limit and
 * authentication like any bad request.
 */
final class GrpcApi {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcApi.class);
  /** The trailer holding the HTTP API's error code. */
  static final Metadata.Key<String> ERROR_CODE = Metadata.Key.of("gene-id-error-code",
      Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization",
      Metadata.ASCII_STRING_MARSHALLER);

  private final Requests requests;
  private final IdService ids;

  GrpcApi(Requests requests, IdService ids) {
    this.requests = requests;
    this.ids = ids;
  }

  /** The service {@code geneid.v1.GeneIdService}. */
  ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(GeneIdServiceGrpc.SERVICE_NAME)
        .addMethod(unary(GeneIdServiceGrpc.getNextIdsMethod(), "ids",
            q -> ids.ids(parent(q.hasParent() ? q.getParent() : null), count(q.getCount())),
            r -> ids((Result.Ids) r)))
        .addMethod(unary(GeneIdServiceGrpc.getNextSegmentIdsMethod(), "segment-ids",
            q -> ids.segmentIds(q.getKey(), parent(q.hasParent() ? q.getParent() : null), count(q.getCount())),
            r -> ids((Result.Ids) r)))
        .addMethod(unary(GeneIdServiceGrpc.getNextStringsMethod(), "strings",
            q -> ids.strings(parent(q.hasParent() ? q.getParent() : null), count(q.getCount()), q.getPrefix(),
                q.getDate()),
            r -> StringsReply.newBuilder().addAllIds(Arrays.asList(((Result.Strings) r).ids()))
                .setGene(gene(((Result.Strings) r).parent())).build()))
        .addMethod(unary(GeneIdServiceGrpc.getDecodeMethod(), "decode", this::decoding,
            r -> decoded((Result.Decoded) r)))
        .addMethod(unary(GeneIdServiceGrpc.getRouteMethod(), "route", this::routing,
            r -> RouteReply.newBuilder().setGene(((Result.Routed) r).gene()).setIndex(((Result.Routed) r).index())
                .build()))
        .addMethod(unary(GeneIdServiceGrpc.getInfoMethod(), "info", q -> new Request.Info(), r -> info((Result.Info) r)))
        .build();
  }

  // ---------------------------------------------------------------- requests

  private @Nullable ParentKey parent(@Nullable Parent parent) {
    return ParentKey.of(parent, ids.layout());
  }

  /** The proto's count: 0 means 1. */
  private static long count(int count) {
    return count == 0 ? 1 : Integer.toUnsignedLong(count);
  }

  private Request decoding(DecodeRequest q) {
    return switch (q.getIdCase()) {
      case NUMBER -> ids.decoding(q.getNumber());
      case TEXT -> ids.decoding(q.getText(), q.getPrefix(), q.getDate());
      case ID_NOT_SET -> throw ApiException.invalid("give the id to decode: number or text");
    };
  }

  private Request routing(RouteRequest q) {
    ParentKey parent = q.getSubjectCase() == RouteRequest.SubjectCase.PARENT ? parent(q.getParent()) : null;
    long gene;
    if (q.getSubjectCase() == RouteRequest.SubjectCase.ID) {
      gene = ids.geneOfId(q.getId());
    } else if (parent != null) {
      gene = parent.gene();
    } else {
      throw ApiException.invalid("give what to route: an id or a parent");
    }
    return ids.routing(gene, Integer.toUnsignedLong(q.getShardingCount()), count(q.getGeneDivisor()));
  }

  // ---------------------------------------------------------------- replies

  private static int gene(@Nullable ParentKey parent) {
    return parent == null ? -1 : (int) parent.gene();
  }

  private static IdsReply ids(Result.Ids r) {
    IdsReply.Builder b = IdsReply.newBuilder().setGene(gene(r.parent()));
    for (long id : r.ids()) {
      b.addIds(id);
    }
    return b.build();
  }

  private static DecodeReply decoded(Result.Decoded d) {
    DecodeReply.Builder b = DecodeReply.newBuilder().setId(d.id()).setTimestamp(d.timestamp())
        .setWorkerId(d.workerId()).setSequence(d.sequence()).setGene(d.gene());
    try {
      b.setTimestampMillis(Long.parseLong(d.timestampMillis()));
    } catch (NumberFormatException beyondLong) {
      b.setTimestampMillis(Long.MAX_VALUE); // only for T = 63 ids far past the year 292 million
    }
    return b.build();
  }

  private static InfoReply info(Result.Info i) {
    var l = i.layout();
    return InfoReply.newBuilder().setEpochMillis(l.epoch().toEpochMilli()).setTimestampBits(l.timestampBits())
        .setWorkerBits(l.workerBits()).setSequenceBits(l.sequenceBits()).setGeneBits(l.geneBits())
        .setWorkerId(i.workerId()).setIssuing(i.issuing()).setMaxCount(i.maxCount()).setVersion(i.version())
        .build();
  }

  // ---------------------------------------------------------------- the calls

  private static final MethodDescriptor.Marshaller<InputStream> RAW = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(InputStream value) {
      return value;
    }

    @Override
    public InputStream parse(InputStream stream) {
      return stream;
    }
  };

  /**
   * A unary method whose request arrives as bytes: parsed when it arrives (grpc-java closes the stream after
   * {@code onMessage}), checked and run by {@link Requests} once the client has half-closed.
   */
  private <Q, R> ServerMethodDefinition<InputStream, R> unary(MethodDescriptor<Q, R> method, String endpoint,
      Function<Q, Request> parse, Function<Result, R> render) {
    MethodDescriptor<InputStream, R> raw = method.toBuilder(RAW, method.getResponseMarshaller()).build();
    String name = method.getFullMethodName();
    String type = name.substring(name.indexOf('/') + 1) + "Request";
    ServerCallHandler<InputStream, R> handler = (call, headers) -> {
      call.request(2); // one message, and room to see a second one and refuse it
      return new ServerCall.Listener<InputStream>() {
        private int messages;
        private @Nullable Q request;
        private @Nullable RuntimeException unreadable;

        @Override
        public void onMessage(InputStream message) {
          if (++messages == 1) {
            try {
              request = method.parseRequest(message);
            } catch (RuntimeException e) {
              unreadable = e;
            }
          }
        }

        @Override
        public void onHalfClose() {
          Requests.Call c = new Requests.Call("grpc", endpoint, "POST", "/" + name, client(call),
              headers.get(AUTHORIZATION), metadataBytes(headers), true);
          requests.run(c, () -> parse.apply(request()), result -> reply(call, result, render));
        }

        private Q request() {
          RuntimeException e = unreadable;
          if (e != null) {
            throw ApiException.invalid("the request is not a valid " + type + " protobuf message: "
                + (e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage()
                : String.valueOf(e.getMessage())));
          }
          Q q = request;
          if (messages != 1 || q == null) {
            throw ApiException.invalid("a unary call carries one request message, not " + messages);
          }
          return q;
        }
      };
    };
    return ServerMethodDefinition.create(raw, handler);
  }

  private static <R> void reply(ServerCall<InputStream, R> call, Result result, Function<Result, R> render) {
    try {
      if (call.isCancelled()) {
        return;
      }
      if (result instanceof Result.Failure f) {
        call.close(status(f.error()), trailers(f.error()));
        return;
      }
      R message = render.apply(result);
      call.sendHeaders(new Metadata());
      call.sendMessage(message);
      call.close(Status.OK, new Metadata());
    } catch (IllegalStateException cancelledMeanwhile) {
      LOG.debug("gRPC call {} ended before its answer: {}", call.getMethodDescriptor().getFullMethodName(),
          cancelledMeanwhile.toString());
    }
  }

  private static String client(ServerCall<?, ?> call) {
    return call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR) instanceof InetSocketAddress a
        && a.getAddress() != null ? a.getAddress().getHostAddress() : "unknown";
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

  static Status status(ApiException e) {
    return Status.fromCode(e.code().grpcStatus()).withDescription(e.reason());
  }

  static Metadata trailers(ApiException e) {
    Metadata m = new Metadata();
    m.put(ERROR_CODE, e.code().code());
    return m;
  }
}
