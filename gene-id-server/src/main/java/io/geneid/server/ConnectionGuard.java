package io.geneid.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The bounds of one HTTP connection, first in its pipeline: the connection cap ({@code max-connections}: a
 * connection above it is answered {@code 503} and closed without its request being read), the read timeout (a
 * request whose line and headers have not all arrived {@code read-timeout} after its first byte is answered
 * {@code 408} and closed) and the idle timeout (a connection with no request in progress and no byte received for
 * {@code idle-timeout} is closed). The time a request spends in the server counts for neither.
 */
final class ConnectionGuard extends ChannelDuplexHandler {

  /** What every connection shares. */
  record Limits(int maxConnections, long idleNanos, long readNanos, AtomicInteger open) {
    long tickNanos() {
      long t = Math.min(idleNanos, readNanos) / 4;
      return Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(TimeUnit.SECONDS.toNanos(1), t));
    }
  }

  private final Limits limits;
  private boolean refused;
  private boolean counted;
  private boolean inRequest;
  private long lastActivity;
  private long partialSince;
  private @Nullable ScheduledFuture<?> tick;

  ConnectionGuard(Limits limits) {
    this.limits = limits;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    counted = true;
    if (limits.open().incrementAndGet() > limits.maxConnections()) {
      refused = true;
      ApiException e = new ApiException(ErrorCode.UNAVAILABLE, "too many connections: max-connections "
          + limits.maxConnections() + " reached; retry later or on another server", 1);
      // answer, stop sending, and discard what the client sends until it closes (closing with unread bytes
      // would reset the connection before the client reads the answer)
      ctx.writeAndFlush(raw(ctx, e)).addListener((ChannelFutureListener) f -> {
        if (f.channel() instanceof SocketChannel sc) {
          sc.shutdownOutput();
        }
      });
      ctx.executor().schedule(() -> {
        ctx.close();
      }, Math.max(1, TimeUnit.NANOSECONDS.toMillis(limits.readNanos())), TimeUnit.MILLISECONDS);
      return;
    }
    lastActivity = System.nanoTime();
    long period = limits.tickNanos();
    tick = ctx.executor().scheduleAtFixedRate(() -> check(ctx), period, period, TimeUnit.NANOSECONDS);
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (counted) {
      counted = false;
      limits.open().decrementAndGet();
    }
    ScheduledFuture<?> t = tick;
    if (t != null) {
      t.cancel(false);
    }
    if (!refused) {
      super.channelInactive(ctx);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (refused) {
      ReferenceCountUtil.release(msg);
      return;
    }
    long now = System.nanoTime();
    lastActivity = now;
    if (!inRequest && partialSince == 0) {
      partialSince = now | 1;
    }
    super.channelRead(ctx, msg);
  }

  /** HttpApi has a whole request (line and headers): the read timeout stops, the server's work begins. */
  void requestReceived() {
    partialSince = 0;
    inRequest = true;
  }

  /** HttpApi has answered every request it received: the idle timeout starts. */
  void idle() {
    inRequest = false;
    lastActivity = System.nanoTime();
  }

  private void check(ChannelHandlerContext ctx) {
    if (inRequest || !ctx.channel().isActive()) {
      return;
    }
    long now = System.nanoTime();
    if (partialSince != 0 && now - partialSince > limits.readNanos()) {
      ApiException e = new ApiException(ErrorCode.REQUEST_TIMEOUT, "the request line and headers did not arrive "
          + "within read-timeout " + TimeUnit.NANOSECONDS.toMillis(limits.readNanos()) + " ms");
      partialSince = 0;
      inRequest = true; // no second answer
      ctx.writeAndFlush(raw(ctx, e)).addListener(ChannelFutureListener.CLOSE);
    } else if (partialSince == 0 && now - lastActivity > limits.idleNanos()) {
      ctx.close();
    }
  }

  /** A whole HTTP/1.1 error response, written below the HTTP codec. */
  private static ByteBuf raw(ChannelHandlerContext ctx, ApiException e) {
    byte[] body = Json.error(e).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String head = "HTTP/1.1 " + e.code().httpStatus() + " "
        + io.netty.handler.codec.http.HttpResponseStatus.valueOf(e.code().httpStatus()).reasonPhrase()
        + "\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: " + body.length
        + (e.retryAfterSeconds() > 0 ? "\r\nretry-after: " + e.retryAfterSeconds() : "")
        + "\r\nconnection: close\r\n\r\n";
    ByteBuf b = ctx.alloc().buffer(head.length() + body.length);
    ByteBufUtil.writeAscii(b, head);
    b.writeBytes(body);
    return b;
  }
}
