package io.geneid.server;

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
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API (docs/server.md) on one connection: reads a request, parses it into a {@link Request}, hands it to
 * {@link Requests} and writes the {@link Result} as JSON. One request at a time: while a request is answered (until
 * its answer is handed to the socket) the connection reads nothing more ({@code autoRead} off), so a client that
 * pipelines without reading its answers holds at most one answer in the server. Requests already decoded wait in
 * order.
 */
final class HttpApi extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final String JSON = "application/json; charset=utf-8";

  private final Requests requests;
  private final IdService ids;
  private final ConnectionGuard connection;
  private final int maxRequestBytes;
  private final ArrayDeque<HttpRequest> queue = new ArrayDeque<>();
  private boolean busy;
  private boolean draining;

  HttpApi(Requests requests, IdService ids, ConnectionGuard connection, int maxRequestBytes) {
    this.requests = requests;
    this.maxRequestBytes = maxRequestBytes;
    this.ids = ids;
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
    busy = true;
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    ApiException unreadable = null; // the request cannot be read: answered, then the connection is closed
    if (req.decoderResult().isFailure()) {
      unreadable = req.decoderResult().cause() instanceof TooLongFrameException ? new ApiException(
          ErrorCode.PAYLOAD_TOO_LARGE, "the request line and headers exceed max-request-bytes "
          + maxRequestBytes) : ApiException.invalid("not a valid HTTP request");
    } else if (HttpUtil.getContentLength(req, 0L) > 0 || HttpUtil.isTransferEncodingChunked(req)) {
      unreadable = new ApiException(ErrorCode.PAYLOAD_TOO_LARGE, "a request body is not accepted: every endpoint "
          + "is a GET with query parameters");
    }
    Target target = null;
    ApiException bad = unreadable;
    if (bad == null) {
      try {
        target = Target.parse(req.uri());
      } catch (ApiException e) {
        bad = e;
      }
    }
    String path = target == null ? "-" : target.path();
    Requests.Call call = new Requests.Call("http", endpointOf(path), req.method().name(), path, client(ctx),
        req.headers().get(HttpHeaderNames.AUTHORIZATION), headBytes(req), bad == null && path.startsWith("/v1/"));
    ApiException refused = bad;
    Target t = target;
    boolean k = keepAlive && unreadable == null;
    requests.run(call, () -> {
      if (refused != null) {
        throw refused;
      }
      return parse(req.method(), java.util.Objects.requireNonNull(t));
    }, result -> {
      if (ctx.executor().inEventLoop()) {
        write(ctx, req, result, k);
      } else {
        ctx.executor().execute(() -> write(ctx, req, result, k));
      }
    });
  }

  /** The request line and headers as sent: method, target, version, each header line. */
  private static long headBytes(HttpRequest req) {
    long n = req.method().name().length() + 1 + req.uri().length() + 1 + req.protocolVersion().text().length() + 2;
    for (Map.Entry<String, String> h : req.headers()) {
      n += h.getKey().length() + 2 + h.getValue().length() + 2;
    }
    return n + 2;
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

  /** The request of a target, checked. */
  private Request parse(HttpMethod method, Target q) {
    if (!method.equals(HttpMethod.GET)) {
      throw new ApiException(ErrorCode.METHOD_NOT_ALLOWED, "only GET is served, not " + method);
    }
    String path = q.path();
    Params p = new Params(q.parameters());
    String[] parts = path.substring(1).split("/", -1);
    switch (path) {
      case "/health/live", "/health/ready" -> {
        p.only(Set.of());
        return new Request.Health(path.equals("/health/ready"));
      }
      case "/metrics" -> {
        p.only(Set.of());
        return new Request.Metrics();
      }
      case "/v1/ids" -> {
        p.only(Params.ID_PARAMS);
        return ids.ids(p.parent(ids.layout()), p.count());
      }
      case "/v1/strings" -> {
        p.only(Params.STRING_PARAMS);
        return ids.strings(p.parent(ids.layout()), p.count(), p.get("prefix", ""), p.bool("date"));
      }
      case "/v1/segments" -> {
        p.only(Set.of());
        return new Request.ListSegments();
      }
      case "/v1/info" -> {
        p.only(Set.of());
        return new Request.Info();
      }
      case "/v1/route" -> {
        p.only(Params.ROUTE_PARAMS);
        String id = p.getOrNull("id");
        ParentKey parent = p.parent(ids.layout());
        if (id != null && parent != null) {
          throw ApiException.invalid("give either id or one parent parameter, not both");
        }
        if (id == null && parent == null) {
          throw ApiException.invalid("give what to route: id, gene, parent, parentString or parentUuid");
        }
        long gene = id != null ? ids.geneOfId(IdService.parseId(id)) : parent.gene();
        return ids.routing(gene, p.longValue("shardingCount", -1, true), p.longValue("geneDivisor", 1, false));
      }
      default -> {
        // below
      }
    }
    if (parts.length == 4 && parts[0].equals("v1") && parts[1].equals("segments") && parts[3].equals("ids")) {
      p.only(Params.ID_PARAMS);
      ParentKey parent = p.parent(ids.layout());
      return ids.segmentIds(parts[2], parent, p.count());
    }
    if (parts.length == 3 && parts[0].equals("v1") && parts[1].equals("ids")) {
      p.only(Set.of());
      return ids.decoding(IdService.parseId(parts[2]));
    }
    if (parts.length == 3 && parts[0].equals("v1") && parts[1].equals("strings")) {
      p.only(Set.of("prefix", "date"));
      return ids.decoding(parts[2], p.get("prefix", ""), p.bool("date"));
    }
    if (parts.length == 4 && parts[0].equals("v1") && parts[1].equals("ids") && parts[3].equals("route")) {
      p.only(Set.of("shardingCount", "geneDivisor"));
      long gene = ids.geneOfId(IdService.parseId(parts[2]));
      return ids.routing(gene, p.longValue("shardingCount", -1, true), p.longValue("geneDivisor", 1, false));
    }
    throw new ApiException(ErrorCode.NOT_FOUND, "no endpoint " + ParentKey.clip(path) + "; see docs/server.md");
  }

  /** Status, body, content type and Retry-After of a result. */
  private record Answer(int status, String body, String contentType, int retryAfter) {
    static Answer ok(String json) {
      return new Answer(200, json, JSON, 0);
    }
  }

  private static Answer render(Result r) {
    if (r instanceof Result.Failure f) {
      ApiException e = f.error();
      return new Answer(e.code().httpStatus(), Json.error(e), JSON, e.retryAfterSeconds());
    }
    if (r instanceof Result.Ids i) {
      Json j = Json.object(32 + i.ids().length * 22);
      if (i.key() != null) {
        j.string("key", i.key());
      }
      return Answer.ok(gene(j.idStrings("ids", i.ids()), i.parent()).end());
    }
    if (r instanceof Result.Strings s) {
      return Answer.ok(gene(Json.object(32 + s.ids().length * 40).strings("ids", s.ids()), s.parent()).end());
    }
    if (r instanceof Result.Decoded d) {
      return Answer.ok(Json.object(200).string("id", Long.toString(d.id())).string("timestamp", d.timestamp())
          .string("timestampMillis", d.timestampMillis()).number("workerId", d.workerId())
          .number("sequence", d.sequence()).number("gene", d.gene()).end());
    }
    if (r instanceof Result.Routed route) {
      return Answer.ok(Json.object(40).number("gene", route.gene()).number("index", route.index()).end());
    }
    if (r instanceof Result.Segments s) {
      StringBuilder b = new StringBuilder("[");
      for (Result.Segment k : s.keys()) {
        b.append(b.length() > 1 ? "," : "").append(Json.object(96).string("key", k.key())
            .string("remaining", Long.toString(k.remaining())).string("step", Long.toString(k.step()))
            .bool("nextReady", k.nextReady()).end());
      }
      return Answer.ok(Json.object(b.length() + 16).raw("keys", b.append(']').toString()).end());
    }
    if (r instanceof Result.Info i) {
      var l = i.layout();
      return Answer.ok(Json.object(256).string("epochMillis", Long.toString(l.epoch().toEpochMilli()))
          .number("timestampBits", l.timestampBits()).number("workerBits", l.workerBits())
          .number("sequenceBits", l.sequenceBits()).number("geneBits", l.geneBits())
          .number("workerId", i.workerId()).bool("issuing", i.issuing()).number("maxCount", i.maxCount())
          .string("version", i.version()).string("instance", i.instance()).end());
    }
    if (r instanceof Result.Ready ready) {
      return ready.notReady() == null
          ? Answer.ok(Json.object(32).string("status", "UP").number("workerId", ready.workerId()).end())
          : new Answer(503, Json.object(64).string("status", "DOWN").string("reason", ready.notReady()).end(), JSON,
              1);
    }
    if (r instanceof Result.Scrape s) {
      return new Answer(200, s.text(), "text/plain; version=0.0.4; charset=utf-8", 0);
    }
    return Answer.ok(Json.object(16).string("status", "UP").end()); // Live
  }

  private static Json gene(Json j, @Nullable ParentKey parent) {
    return parent == null ? j : j.number("gene", parent.gene());
  }

  private static String client(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
        ? a.getAddress().getHostAddress() : String.valueOf(ctx.channel().remoteAddress());
  }

  private void write(ChannelHandlerContext ctx, HttpRequest req, Result result, boolean keepAlive) {
    Answer a = render(result);
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
      busy = false;
      if (x.isSuccess() && keepAlive) {
        next(ctx); // the answer is in the socket: the next request
      }
    });
    if (!keepAlive) {
      queue.clear();
      f.addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** The query parameters of one request, read strictly. */
  static final class Params {
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
