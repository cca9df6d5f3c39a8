package io.geneid.server;

import io.grpc.Status;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The connection cap of the gRPC port: a handler on the listening channel (installed by the channel factory given to
 * grpc-java's {@code NettyServerBuilder}, which has no cap of its own) that sees every accepted connection before
 * grpc-java does, and counts it in {@code max-connections} with the HTTP port's. A connection above the cap never
 * reaches grpc-java: Netty's own HTTP/2 codec (inside TLS when TLS is on) answers each call it carries at once with
 * the gRPC status {@code UNAVAILABLE}, the reason as its description and the trailer {@code gene-id-error-code:
 * unavailable}, then sends GOAWAY (no error, the reason as debug data) so the client takes its next call elsewhere.
 * The connection is closed when the client closes it, or after {@code read-timeout}.
 */
@ChannelHandler.Sharable
final class GrpcConnectionCap extends ChannelInboundHandlerAdapter {
  private final int maxConnections;
  private final AtomicInteger open;
  private final long readTimeoutMillis;
  private final @Nullable SslContext tls;

  GrpcConnectionCap(int maxConnections, AtomicInteger open, long readTimeoutMillis, @Nullable SslContext tls) {
    this.maxConnections = maxConnections;
    this.open = open;
    this.readTimeoutMillis = readTimeoutMillis;
    this.tls = tls;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Channel child = (Channel) msg; // the listening channel reads accepted connections
    boolean refused = open.incrementAndGet() > maxConnections;
    child.closeFuture().addListener(f -> open.decrementAndGet());
    if (!refused) {
      ctx.fireChannelRead(child); // on to grpc-java's acceptor
      return;
    }
    if (tls != null) {
      child.pipeline().addLast(tls.newHandler(child.alloc()));
    }
    child.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Refusal());
    ctx.channel().eventLoop().register(child).addListener((ChannelFutureListener) f -> {
      if (!f.isSuccess()) {
        child.unsafe().closeForcibly();
      }
    });
  }

  /** The reason a refused client sees. */
  String reason() {
    return "too many connections: max-connections " + maxConnections + " reached; retry later or on another server";
  }

  /** Answers every call of a refused connection with UNAVAILABLE, then GOAWAY. */
  private final class Refusal extends ChannelInboundHandlerAdapter {
    private boolean goneAway;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.executor().schedule(() -> {
        ctx.close();
      }, Math.max(1, readTimeoutMillis), TimeUnit.MILLISECONDS);
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Http2HeadersFrame call && !goneAway) {
          Http2Headers answer = new DefaultHttp2Headers().status("200").set("content-type", "application/grpc")
              .setInt("grpc-status", Status.Code.UNAVAILABLE.value()).set("grpc-message", reason())
              .set(GrpcApi.ERROR_CODE.name(), ErrorCode.UNAVAILABLE.code());
          ctx.write(new DefaultHttp2HeadersFrame(answer, true).stream(call.stream()));
          goneAway = true;
          ctx.writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR,
              ByteBufUtil.writeAscii(ctx.alloc(), reason())));
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
