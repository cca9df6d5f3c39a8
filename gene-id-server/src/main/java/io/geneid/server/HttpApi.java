package io.geneid.server;

import io.geneid.server.IdService.Decoded;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API (docs/server.md) on one connection. Snowflake ids, decoding and routing are answered on the event
 * loop (they never wait on a store); segment ids, which may wait for the segment store, run on {@code blocking}.
 * Requests of one connection are answered in order, pipelined or not.
 */
final class HttpApi extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final String JSON = "application/json; charset=utf-8";

  private final Shared shared;
  private final ArrayDeque<HttpRequest> queue = new ArrayDeque<>();
  private boolean busy;

  /** What every connection shares. */
  record Shared(IdService ids, ClientGuard guard, ServerMetrics metrics, Executor blocking, boolean accessLog,
      java.util.concurrent.atomic.AtomicInteger inFlight, String version) {}

  HttpApi(Shared shared) {
    this.shared = shared;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest req) {
        if (busy) {
          queue.add(req);
        } else {
          handle(ctx, req);
        }
      }
    } finally {
      ReferenceCountUtil.release(msg); // request bodies are refused; content parts are dropped
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  private void handle(ChannelHandlerContext ctx, HttpRequest req) {
    long start = System.nanoTime();
    shared.inFlight().incrementAndGet();
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    Answer a;
    String endpoint = "other";
    if (req.decoderResult().isFailure()) {
      Throwable c = req.decoderResult().cause();
      a = Answer.error(c instanceof TooLongFrameException
          ? new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, "the request line or headers exceed max-request-bytes")
          : ApiException.invalid("not a valid HTTP request"));
      keepAlive = false;
    } else if (HttpUtil.getContentLength(req, 0L) > 0 || HttpUtil.isTransferEncodingChunked(req)) {
      a = Answer.error(new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, "a request body is not accepted: every "
          + "endpoint is a GET with query parameters"));
      keepAlive = false;
    } else {
      QueryStringDecoder q = new QueryStringDecoder(req.uri(), StandardCharsets.UTF_8, true, 64);
      String path = q.path();
      endpoint = endpointOf(path);
      if (!req.method().equals(HttpMethod.GET)) {
        a = Answer.error(new ApiException(ErrorCode.METHOD_NOT_ALLOWED, "only GET is served, not " + req.method()));
      } else if (endpoint.equals("segment-ids")) {
        if (dispatchBlocking(ctx, req, q, endpoint, start, keepAlive)) {
          return;
        }
        a = Answer.error(IdService.unavailable("the server is overloaded: too many segment requests waiting"));
      } else {
        a = answer(ctx, req, q, endpoint);
      }
    }
    write(ctx, req, a, endpoint, start, keepAlive);
  }

  private boolean dispatchBlocking(ChannelHandlerContext ctx, HttpRequest req, QueryStringDecoder q, String endpoint,
      long start, boolean keepAlive) {
    busy = true;
    try {
      shared.blocking().execute(() -> {
        Answer a = answer(ctx, req, q, endpoint);
        ctx.executor().execute(() -> {
          write(ctx, req, a, endpoint, start, keepAlive);
          busy = false;
          drainQueue(ctx);
        });
      });
      return true;
    } catch (RejectedExecutionException e) {
      busy = false;
      return false;
    }
  }

  private void drainQueue(ChannelHandlerContext ctx) {
    while (!busy && !queue.isEmpty()) {
      handle(ctx, queue.poll());
    }
  }

  private static String endpointOf(String path) {
    if (path.equals("/v1/ids")) {
      return "ids";
    }
    if (path.startsWith("/v1/ids/")) {
      return path.endsWith("/route") ? "route" : "decode";
    }
    if (path.startsWith("/v1/segments/") && path.endsWith("/ids")) {
      return "segment-ids";
    }
    return switch (path) {
      case "/v1/strings" -> "strings";
      case "/v1/route" -> "route";
      case "/v1/segments" -> "segments";
      case "/v1/info" -> "info";
      case "/health/live", "/health/ready", "/metrics" -> "ops";
      default -> path.startsWith("/v1/strings/") ? "decode" : "other";
    };
  }

  /** Answers one request; never throws. */
  private Answer answer(ChannelHandlerContext ctx, HttpRequest req, QueryStringDecoder q, String endpoint) {
    try {
      String path = q.path();
      if (endpoint.equals("ops")) {
        return ops(path, q);
      }
      if (!path.startsWith("/v1/")) {
        throw new ApiException(ErrorCode.NOT_FOUND, "no endpoint " + ParentKey.clip(path) + "; see docs/server.md");
      }
      shared.guard().authenticate(req.headers().get(HttpHeaderNames.AUTHORIZATION));
      shared.guard().admit(client(ctx));
      return v1(path, new Params(q.parameters()));
    } catch (ApiException e) {
      return Answer.error(e);
    } catch (RuntimeException e) {
      LOG.error("request {} failed", ParentKey.clip(q.path()), e);
      return Answer.error(new ApiException(ErrorCode.INTERNAL, "internal error (" + e.getClass().getSimpleName()
          + "); the server logged it"));
    }
  }

  private Answer ops(String path, QueryStringDecoder q) {
    new Params(q.parameters()).only(Set.of());
    IdService ids = shared.ids();
    switch (path) {
      case "/health/live":
        return Answer.ok(Json.object(16).string("status", "UP").end(), 0, "");
      case "/health/ready": {
        String why = ids.notReady();
        if (why == null) {
          return Answer.ok(Json.object(32).string("status", "UP").number("workerId", ids.workerId()).end(), 0, "");
        }
        return new Answer(503, Json.object(64).string("status", "DOWN").string("reason", why).end(), JSON,
            "unavailable", 1, 0, "");
      }
      default:
        return new Answer(200, shared.metrics().scrape(), "text/plain; version=0.0.4; charset=utf-8", "ok", 0, 0, "");
    }
  }

  private Answer v1(String path, Params p) {
    IdService ids = shared.ids();
    String[] parts = path.substring(1).split("/", -1);
    if (path.equals("/v1/ids")) {
      p.only(Params.ID_PARAMS);
      ParentKey parent = p.parent(ids.layout());
      int n = ids.checkCount(p.count());
      long[] out = ids.nextIds(parent, n);
      return Answer.ok(idsJson(null, out, parent), out.length, "snowflake");
    }
    if (path.equals("/v1/strings")) {
      p.only(Params.STRING_PARAMS);
      ParentKey parent = p.parent(ids.layout());
      int n = ids.checkCount(p.count());
      String[] out = ids.nextStrings(parent, n, p.get("prefix", ""), p.bool("date"));
      Json j = Json.object(32 + out.length * 40).strings("ids", out);
      if (parent != null) {
        j.number("gene", parent.gene());
      }
      return Answer.ok(j.end(), out.length, "string");
    }
    if (parts.length == 4 && parts[1].equals("segments") && parts[3].equals("ids")) {
      p.only(Params.ID_PARAMS);
      ParentKey parent = p.parent(ids.layout());
      int n = ids.checkCount(p.count());
      long[] out = ids.nextSegmentIds(parts[2], parent, n);
      return Answer.ok(idsJson(parts[2], out, parent), out.length, "segment");
    }
    if (path.equals("/v1/segments")) {
      p.only(Set.of());
      StringBuilder b = new StringBuilder("[");
      for (IdService.SegmentState s : ids.segmentStates()) {
        b.append(b.length() > 1 ? "," : "").append(Json.object(96).string("key", s.key())
            .string("remaining", Long.toString(s.remaining())).string("step", Long.toString(s.step()))
            .bool("nextReady", s.nextReady()).end());
      }
      return Answer.ok(Json.object(b.length() + 16).raw("keys", b.append(']').toString()).end(), 0, "");
    }
    if (parts.length == 3 && parts[1].equals("ids")) {
      p.only(Set.of());
      return Answer.ok(decodedJson(ids.decode(IdService.parseId(parts[2]))), 0, "");
    }
    if (parts.length == 3 && parts[1].equals("strings")) {
      p.only(Set.of("prefix", "date"));
      return Answer.ok(decodedJson(ids.decode(parts[2], p.get("prefix", ""), p.bool("date"))), 0, "");
    }
    if (path.equals("/v1/route") || parts.length == 4 && parts[1].equals("ids") && parts[3].equals("route")) {
      long gene;
      if (parts.length == 4) {
        p.only(Set.of("shardingCount", "geneDivisor"));
        gene = ids.layout().geneOf(IdService.parseId(parts[2]));
      } else {
        p.only(Params.ROUTE_PARAMS);
        String id = p.getOrNull("id");
        ParentKey parent = p.parent(ids.layout());
        if (id != null && parent != null) {
          throw ApiException.invalid("give either id or one parent parameter, not both");
        }
        if (id == null && parent == null) {
          throw ApiException.invalid("give what to route: id, gene, parent, parentString or parentUuid");
        }
        gene = id != null ? ids.layout().geneOf(IdService.parseId(id)) : parent.gene();
      }
      long[] r = ids.route(gene, p.longValue("shardingCount", -1, true), p.longValue("geneDivisor", 1, false));
      return Answer.ok(Json.object(40).number("gene", r[0]).number("index", r[1]).end(), 0, "");
    }
    if (path.equals("/v1/info")) {
      p.only(Set.of());
      var l = ids.layout();
      return Answer.ok(Json.object(256).string("epochMillis", Long.toString(l.epoch().toEpochMilli()))
          .number("timestampBits", l.timestampBits()).number("workerBits", l.workerBits())
          .number("sequenceBits", l.sequenceBits()).number("geneBits", l.geneBits())
          .number("workerId", ids.workerId()).bool("issuing", ids.notReady() == null)
          .number("maxCount", ids.maxCount()).string("version", shared.version()).end(), 0, "");
    }
    throw new ApiException(ErrorCode.NOT_FOUND, "no endpoint " + ParentKey.clip(path) + "; see docs/server.md");
  }

  static String idsJson(@Nullable String key, long[] ids, @Nullable ParentKey parent) {
    Json j = Json.object(32 + ids.length * 22);
    if (key != null) {
      j.string("key", key);
    }
    j.idStrings("ids", ids);
    if (parent != null) {
      j.number("gene", parent.gene());
    }
    return j.end();
  }

  static String decodedJson(Decoded d) {
    return Json.object(200).string("id", Long.toString(d.id())).string("timestamp", d.timestamp())
        .string("timestampMillis", d.timestampMillis()).number("workerId", d.workerId())
        .number("sequence", d.sequence()).number("gene", d.gene()).end();
  }

  private static String client(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
        ? a.getAddress().getHostAddress() : String.valueOf(ctx.channel().remoteAddress());
  }

  private void write(ChannelHandlerContext ctx, HttpRequest req, Answer a, String endpoint, long start,
      boolean keepAlive) {
    ByteBuf body = ByteBufUtil.writeUtf8(ctx.alloc(), a.body());
    FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
        HttpResponseStatus.valueOf(a.status()), body);
    res.headers().set(HttpHeaderNames.CONTENT_TYPE, a.contentType())
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    if (a.status() == 401) {
      res.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
    } else if (a.status() == 405) {
      res.headers().set(HttpHeaderNames.ALLOW, "GET");
    }
    if (a.retryAfter() > 0) {
      res.headers().setInt(HttpHeaderNames.RETRY_AFTER, a.retryAfter());
    }
    if (!keepAlive) {
      res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (!req.protocolVersion().isKeepAliveDefault()) {
      res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    var f = ctx.writeAndFlush(res);
    f.addListener(x -> shared.inFlight().decrementAndGet());
    if (!keepAlive) {
      f.addListener(ChannelFutureListener.CLOSE);
    }
    long nanos = System.nanoTime() - start;
    if (!endpoint.equals("ops")) {
      shared.metrics().request(endpoint, "http", a.outcome(), nanos, a.kind(), a.ids());
    }
    if (shared.accessLog()) {
      AccessLog.line("http", client(ctx), req.method().name(), new QueryStringDecoder(req.uri()).path(), a.status(),
          a.outcome(), a.ids(), nanos);
    }
  }

  /** One answer: status, body and what the metrics need. */
  record Answer(int status, String body, String contentType, String outcome, int retryAfter, int ids, String kind) {
    static Answer ok(String json, int ids, String kind) {
      return new Answer(200, json, JSON, "ok", 0, ids, kind);
    }

    static Answer error(ApiException e) {
      return new Answer(e.code().httpStatus(), Json.error(e), JSON, e.code().code(), e.retryAfterSeconds(), 0, "");
    }
  }

  /** The query parameters of one request, read strictly. */
  static final class Params {
    static final Set<String> PARENT_PARAMS = Set.of("gene", "parent", "parentString", "parentUuid");
    static final Set<String> ID_PARAMS = Set.of("count", "gene", "parent", "parentString", "parentUuid");
    static final Set<String> STRING_PARAMS = Set.of("count", "gene", "parent", "parentString", "parentUuid",
        "prefix", "date");
    static final Set<String> ROUTE_PARAMS = Set.of("id", "gene", "parent", "parentString", "parentUuid",
        "shardingCount", "geneDivisor");

    private final Map<String, List<String>> values;

    Params(Map<String, List<String>> values) {
      this.values = values;
    }

    void only(Set<String> allowed) {
      for (Map.Entry<String, List<String>> e : values.entrySet()) {
        if (!allowed.contains(e.getKey())) {
          throw ApiException.invalid("unknown parameter '" + ParentKey.clip(e.getKey()) + "'"
              + (allowed.isEmpty() ? "; this endpoint takes none" : "; allowed: " + new java.util.TreeSet<>(allowed)));
        }
        if (e.getValue().size() > 1) {
          throw ApiException.invalid("parameter '" + e.getKey() + "' is given " + e.getValue().size()
              + " times; give it once");
        }
      }
    }

    @Nullable String getOrNull(String name) {
      List<String> v = values.get(name);
      return v == null ? null : v.get(0);
    }

    String get(String name, String defaultValue) {
      String v = getOrNull(name);
      return v == null ? defaultValue : v;
    }

    boolean bool(String name) {
      String v = getOrNull(name);
      if (v == null || v.equals("false")) {
        return false;
      }
      if (v.equals("true")) {
        return true;
      }
      throw ApiException.invalid(name + " must be true or false but was '" + ParentKey.clip(v) + "'");
    }

    long longValue(String name, long defaultValue, boolean required) {
      String v = getOrNull(name);
      if (v == null) {
        if (required) {
          throw ApiException.invalid(name + " is required");
        }
        return defaultValue;
      }
      try {
        return Long.parseLong(v);
      } catch (NumberFormatException e) {
        throw ApiException.invalid(name + " must be a whole number but was '" + ParentKey.clip(v) + "'");
      }
    }

    long count() {
      return longValue("count", 1, false);
    }

    @Nullable ParentKey parent(io.geneid.core.GeneIdLayout layout) {
      ParentKey found = null;
      for (ParentKey.Kind k : ParentKey.Kind.values()) {
        String v = getOrNull(k.param);
        if (v == null) {
          continue;
        }
        if (found != null) {
          throw ApiException.invalid("give at most one of gene, parent, parentString, parentUuid; got "
              + found.kind().param + " and " + k.param);
        }
        found = ParentKey.of(k, v, layout);
      }
      return found;
    }
  }
}
