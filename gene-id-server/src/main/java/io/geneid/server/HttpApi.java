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
 * The HTTP API (docs/server.md) on one connection. One request at a time: while a request is answered (until its
 * answer is handed to the socket) the connection reads nothing more ({@code autoRead} off), so a client that
 * pipelines without reading its answers holds at most one answer in the server. Requests already decoded wait in
 * order. Snowflake ids, decoding and routing are answered on the event loop; what may wait or take long runs on
 * {@code blocking}: segment ids (the store), batches above {@value #LOOP_MAX_COUNT} ids, and id calls while the
 * clock is behind the ids already issued (the generator waits for it).
 */
final class HttpApi extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final String JSON = "application/json; charset=utf-8";
  /** The largest count answered on the event loop; larger batches are made on the blocking executor. */
  static final int LOOP_MAX_COUNT = 1000;

  private final Shared shared;
  private final ConnectionGuard connection;
  private final ArrayDeque<HttpRequest> queue = new ArrayDeque<>();
  private boolean busy;
  private boolean draining;

  /** What every connection shares. */
  record Shared(IdService ids, ClientGuard guard, ServerMetrics metrics, Executor blocking,
      @Nullable AccessLog accessLog, java.util.concurrent.atomic.AtomicInteger inFlight, String version,
      int maxRequestBytes) {}

  HttpApi(Shared shared, ConnectionGuard connection) {
    this.shared = shared;
    this.connection = connection;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpRequest req) {
        connection.requestReceived();
        ctx.channel().config().setAutoRead(false);
        queue.add(req);
        next(ctx);
      }
    } finally {
      ReferenceCountUtil.release(msg); // request bodies are refused; content parts are dropped
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    queue.clear();
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  /** Answers the queued requests in order, one at a time; reads again once none is left. */
  private void next(ChannelHandlerContext ctx) {
    if (draining) {
      return; // called from a write that completed at once: the loop below goes on
    }
    draining = true;
    try {
      while (!busy && !queue.isEmpty() && ctx.channel().isActive()) {
        handle(ctx, queue.poll());
      }
    } finally {
      draining = false;
    }
    if (!busy && queue.isEmpty() && ctx.channel().isActive()) {
      connection.idle();
      ctx.channel().config().setAutoRead(true);
    }
  }

  private void handle(ChannelHandlerContext ctx, HttpRequest req) {
    long start = System.nanoTime();
    busy = true;
    shared.inFlight().incrementAndGet();
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    Answer a;
    String endpoint = "other";
    String path = "-";
    if (req.decoderResult().isFailure()) {
      Throwable c = req.decoderResult().cause();
      a = Answer.error(c instanceof TooLongFrameException ? tooLarge() : ApiException.invalid("not a valid HTTP "
          + "request"));
      keepAlive = false;
    } else if (HttpUtil.getContentLength(req, 0L) > 0 || HttpUtil.isTransferEncodingChunked(req)) {
      a = Answer.error(new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, "a request body is not accepted: every "
          + "endpoint is a GET with query parameters"));
      keepAlive = false;
    } else if (headBytes(req) > shared.maxRequestBytes()) {
      a = Answer.error(tooLarge());
      keepAlive = false;
    } else {
      Target t = null;
      ApiException bad = null;
      try {
        t = Target.parse(req.uri());
      } catch (ApiException e) {
        bad = e;
      }
      if (t == null) {
        a = Answer.error(java.util.Objects.requireNonNull(bad));
      } else {
        Target target = t;
        path = target.path();
        endpoint = endpointOf(path);
        if (!req.method().equals(HttpMethod.GET)) {
          a = Answer.error(new ApiException(ErrorCode.METHOD_NOT_ALLOWED, "only GET is served, not "
              + req.method()));
        } else if (offload(endpoint, target)) {
          String e = endpoint;
          String p = path;
          boolean k = keepAlive;
          try {
            shared.blocking().execute(() -> {
              Answer answer = answer(ctx, req, target, e);
              ctx.executor().execute(() -> write(ctx, req, answer, e, p, start, k));
            });
            return;
          } catch (RejectedExecutionException full) {
            a = Answer.error(IdService.unavailable("the server is overloaded: too many requests waiting"));
          }
        } else {
          a = answer(ctx, req, target, endpoint);
        }
      }
    }
    write(ctx, req, a, endpoint, path, start, keepAlive);
  }

  private ApiException tooLarge() {
    return new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, "the request line and headers exceed max-request-bytes "
        + shared.maxRequestBytes());
  }

  /** The request line and headers as sent: method, target, version, each header line. */
  private static long headBytes(HttpRequest req) {
    long n = req.method().name().length() + 1 + req.uri().length() + 1 + req.protocolVersion().text().length() + 2;
    for (Map.Entry<String, String> h : req.headers()) {
      n += h.getKey().length() + 2 + h.getValue().length() + 2;
    }
    return n + 2;
  }

  /** Whether this request may wait or take long: it runs on the blocking executor. */
  private boolean offload(String endpoint, Target t) {
    switch (endpoint) {
      case "segment-ids":
        return true;
      case "ids", "strings": {
        if (shared.ids().clockBehind()) {
          return true;
        }
        List<String> count = t.parameters().get("count");
        if (count == null || count.size() != 1) {
          return false;
        }
        String c = count.get(0);
        return c.length() > 4 || c.length() == 4 && c.compareTo(Integer.toString(LOOP_MAX_COUNT)) > 0;
      }
      default:
        return false;
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
  private Answer answer(ChannelHandlerContext ctx, HttpRequest req, Target q, String endpoint) {
    try {
      String path = q.path();
      if (endpoint.equals("ops")) {
        return ops(path, q);
      }
      if (!path.startsWith("/v1/")) {
        throw new ApiException(ErrorCode.NOT_FOUND, "no endpoint " + ParentKey.clip(path) + "; see docs/server.md");
      }
      // the rate limit first: wrong tokens count too, so guessing is limited
      shared.guard().admit(client(ctx));
      shared.guard().authenticate(req.headers().get(HttpHeaderNames.AUTHORIZATION));
      return v1(path, new Params(q.parameters()));
    } catch (ApiException e) {
      return Answer.error(e);
    } catch (RuntimeException e) {
      LOG.error("request {} failed", ParentKey.clip(q.path()), e); // a bug: the one case logged with its trace
      return Answer.error(new ApiException(ErrorCode.INTERNAL, "internal error (" + e.getClass().getSimpleName()
          + "); the server logged it"));
    }
  }

  private Answer ops(String path, Target q) {
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
          .number("maxCount", ids.maxCount()).string("version", shared.version())
          .string("instance", ids.instance()).end(), 0, "");
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

  private void write(ChannelHandlerContext ctx, HttpRequest req, Answer a, String endpoint, String path, long start,
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
    f.addListener(x -> {
      shared.inFlight().decrementAndGet();
      busy = false;
      if (x.isSuccess() && keepAlive) {
        next(ctx); // the answer is in the socket: the next request
      }
    });
    if (!keepAlive) {
      queue.clear();
      f.addListener(ChannelFutureListener.CLOSE);
    }
    long nanos = System.nanoTime() - start;
    if (!endpoint.equals("ops")) {
      shared.metrics().request(endpoint, "http", a.outcome(), nanos, a.kind(), a.ids());
    }
    AccessLog log = shared.accessLog();
    if (log != null) {
      log.line("http", client(ctx), req.method().name(), path, a.status(), a.outcome(), a.ids(), nanos);
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
