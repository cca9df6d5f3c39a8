package io.geneid.server;

import io.geneid.core.snowflake.LeasedGenerators;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.lease.WorkerIdAssigners;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running gene-id-server: the HTTP and gRPC listeners over one {@link IdService}. {@link #start} returns once
 * both listen; the worker id is leased in the background ({@code /health/ready} answers 503 until then).
 * {@link #close()} shuts down gracefully: stop accepting, drain, release the lease.
 */
public final class GeneIdServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GeneIdServer.class);

  private final ServerConfig config;
  private final ServerMetrics metrics = new ServerMetrics();
  private final IdService ids;
  private final Requests requests;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final ThreadPoolExecutor blocking;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread leaser;
  private @Nullable EventLoopGroup boss;
  private @Nullable EventLoopGroup workers;
  private @Nullable Channel httpChannel;
  private @Nullable Server grpc;
  private @Nullable HealthStatusManager health;
  private final String version;
  private final @Nullable AccessLog accessLog;
  private final AtomicInteger connectionCount = new AtomicInteger();

  private GeneIdServer(ServerConfig config, Consumer<Throwable> onLeaseFailure) {
    this.config = config;
    String v = GeneIdServer.class.getPackage().getImplementationVersion();
    this.version = v == null ? "dev" : v;
    this.ids = new IdService(config, metrics, version);
    this.accessLog = config.accessLog ? new AccessLog() : null;
    int threads = Math.max(4, Runtime.getRuntime().availableProcessors() * 4);
    this.blocking = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(10_000),
        r -> {
          Thread t = new Thread(r, "gene-id-server-blocking");
          t.setDaemon(true);
          return t;
        });
    this.blocking.allowCoreThreadTimeOut(true);
    // one rate-limit bucket per client over both protocols
    this.requests = new Requests(ids, new ClientGuard(config), metrics, blocking, accessLog, config.maxRequestBytes);
    this.leaser = new Thread(() -> lease(onLeaseFailure), "gene-id-server-lease");
    this.leaser.setDaemon(true);
  }

  /**
   * Starts a server: listens on both protocols, then leases the worker id in the background.
   *
   * @param onLeaseFailure called (on the leasing thread) if the worker id cannot be leased at all, e.g. a store that
   *     refuses the configuration; the server keeps answering 503 on readiness and id calls
   * @throws UncheckedIOException if a port cannot be bound
   */
  public static GeneIdServer start(ServerConfig config, Consumer<Throwable> onLeaseFailure) {
    GeneIdServer s = new GeneIdServer(config, onLeaseFailure);
    try {
      s.listen();
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    s.leaser.start();
    return s;
  }

  /** {@link #start(ServerConfig, Consumer)} that only logs a lease failure. */
  public static GeneIdServer start(ServerConfig config) {
    return start(config, e -> { });
  }

  /**
   * Leases the worker id. A store that fails (unreachable, slow, every worker id taken) is retried, 1 s apart and
   * then up to 10 s apart, while readiness says why; a configuration the store or this JVM refuses
   * ({@link IllegalArgumentException}, {@link IllegalStateException}) is final and goes to {@code onLeaseFailure}.
   */
  private void lease(Consumer<Throwable> onLeaseFailure) {
    long pauseMillis = 1_000;
    while (!closed.get()) {
      try {
        Files.createDirectories(config.dataDir);
        LeasedGeneGenerator g = LeasedGenerators.generator(config.leaseProperties);
        if (closed.get()) {
          g.close();
          return;
        }
        ids.leased(g);
        if (health != null) {
          health.setStatus("", ServingStatus.SERVING);
        }
        LOG.info("worker id {} leased ({}); ready", g.workerId(), g.assigner().store());
        if (closed.get()) {
          ids.close();
        }
        return;
      } catch (IOException | IllegalArgumentException | IllegalStateException e) {
        String reason = "the worker id could not be leased: " + e.getMessage();
        ids.leaseFailed(IdService.unavailable(reason).reason());
        LOG.error("{}", reason);
        onLeaseFailure.accept(e);
        return;
      } catch (RuntimeException e) {
        String reason = "the worker id could not be leased yet (retrying in " + pauseMillis + " ms): "
            + e.getMessage();
        ids.leaseFailed(IdService.unavailable(reason).reason());
        LOG.warn("{}", reason);
      }
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        return;
      }
      pauseMillis = Math.min(10_000, pauseMillis * 2);
    }
  }

  private void listen() {
    if (config.httpPort < 0 && config.grpcPort < 0) {
      return;
    }
    // one set of event loops for both protocols
    boolean epoll = Epoll.isAvailable();
    EventLoopGroup boss = epoll ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
    EventLoopGroup workers = epoll ? new EpollEventLoopGroup(config.ioThreads)
        : new NioEventLoopGroup(config.ioThreads);
    this.boss = boss;
    this.workers = workers;
    Tls tls = config.tls;
    if (config.httpPort >= 0) {
      int maxBytes = config.maxRequestBytes;
      ConnectionGuard.Limits limits = new ConnectionGuard.Limits(config.maxConnections,
          config.idleTimeout.toNanos(), config.readTimeout.toNanos(), connectionCount);
      ServerBootstrap b = new ServerBootstrap().group(boss, workers)
          .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
          .option(ChannelOption.SO_BACKLOG, 1024)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              connections.add(ch);
              if (tls != null) {
                SslHandler handshake = tls.http().newHandler(ch.alloc());
                handshake.setHandshakeTimeoutMillis(Math.max(1, config.readTimeout.toMillis()));
                ch.pipeline().addLast(handshake);
              }
              ConnectionGuard guard = new ConnectionGuard(limits);
              // line and headers may each take all of max-request-bytes; HttpApi checks their sum
              ch.pipeline().addLast(guard).addLast(new HttpServerCodec(maxBytes, maxBytes, 8192))
                  .addLast(new HttpApi(requests, ids, guard, maxBytes));
            }
          });
      try {
        httpChannel = b.bind(new InetSocketAddress(config.host, config.httpPort)).sync().channel();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while binding the HTTP port", e);
      } catch (RuntimeException e) {
        throw new UncheckedIOException(new IOException("cannot listen for HTTP on " + config.host + ":"
            + config.httpPort + ": " + e.getMessage(), e));
      }
    }
    if (config.grpcPort >= 0) {
      health = new HealthStatusManager();
      health.setStatus("", ServingStatus.NOT_SERVING);
      // grpc-java has no connection cap: a handler on the listening channel counts and refuses connections
      GrpcConnectionCap cap = new GrpcConnectionCap(config.maxConnections, connectionCount,
          config.readTimeout.toMillis(), tls == null ? null : tls.grpc());
      NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress(config.host, config.grpcPort))
          .bossEventLoopGroup(boss).workerEventLoopGroup(workers)
          .channelFactory(() -> {
            ServerChannel listening = epoll ? new EpollServerSocketChannel() : new NioServerSocketChannel();
            listening.pipeline().addLast(cap);
            return listening;
          })
          .maxInboundMessageSize(config.maxRequestBytes)
          // the transport's own bound; Requests refuses metadata above max-request-bytes as RESOURCE_EXHAUSTED
          .maxInboundMetadataSize(Math.max(64 * 1024, 2 * config.maxRequestBytes))
          .handshakeTimeout(config.readTimeout.toNanos(), TimeUnit.NANOSECONDS)
          .maxConnectionIdle(config.idleTimeout.toNanos(), TimeUnit.NANOSECONDS)
          .maxConnectionAge(config.grpcMaxConnectionAge.toNanos(), TimeUnit.NANOSECONDS)
          .maxConnectionAgeGrace(Math.max(1, config.drainTimeout.toNanos()), TimeUnit.NANOSECONDS)
          .keepAliveTime(config.grpcKeepAliveTime.toNanos(), TimeUnit.NANOSECONDS)
          .keepAliveTimeout(20, TimeUnit.SECONDS)
          .permitKeepAliveTime(10, TimeUnit.SECONDS)
          .permitKeepAliveWithoutCalls(true)
          // calls run on the event loop; what may wait or take long (segments, big batches) hands off to `blocking`
          .directExecutor()
          .addService(new GrpcApi(requests, ids).service())
          .addService(health.getHealthService());
      if (tls != null) {
        b.sslContext(tls.grpc());
      }
      try {
        grpc = b.build().start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot listen for gRPC on " + config.host + ":" + config.grpcPort + ": "
            + e.getMessage(), e);
      }
    }
  }

  /** The bound HTTP port, -1 when HTTP is off. */
  public int httpPort() {
    Channel c = httpChannel;
    return c == null ? -1 : ((InetSocketAddress) c.localAddress()).getPort();
  }

  /** The bound gRPC port, -1 when gRPC is off. */
  public int grpcPort() {
    Server s = grpc;
    return s == null ? -1 : s.getPort();
  }

  /** Whether the worker id is leased and issuing (what {@code /health/ready} answers). */
  public boolean isReady() {
    return ids.notReady() == null;
  }

  /** Whether a worker id is leased (it may still not issue: fenced, or the clock behind). */
  boolean workerIdLeased() {
    return ids.workerId() >= 0;
  }

  /** Requests received and not answered yet, over both protocols. */
  int inFlight() {
    return requests.inFlight();
  }

  /** Waits until {@link #isReady()}, at most {@code timeout}. */
  public boolean awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!isReady()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  /** A line saying where the server listens, as printed at start. */
  public String listening() {
    String tls = config.tls == null ? "" : " (TLS)";
    return "gene-id-server " + version + ": HTTP on " + (httpPort() < 0 ? "(off)" : (config.tls == null ? "http://"
        : "https://") + hostForUrl() + ":" + httpPort()) + ", gRPC on " + (grpcPort() < 0 ? "(off)" : hostForUrl()
        + ":" + grpcPort() + tls) + (config.tls == null ? "" : "; TLS certificate " + config.tls.subject());
  }

  private String hostForUrl() {
    return config.host.contains(":") ? "[" + config.host + "]" : config.host;
  }

  /** Stops accepting, lets requests in flight finish (at most {@code drain-timeout}), releases the lease. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ids.drain();
    if (health != null) {
      health.enterTerminalState();
    }
    Channel c = httpChannel;
    if (c != null) {
      c.close().awaitUninterruptibly();
    }
    Server s = grpc;
    if (s != null) {
      s.shutdown();
    }
    long deadline = System.nanoTime() + config.drainTimeout.toNanos();
    while (requests.inFlight() > 0 && System.nanoTime() - deadline < 0) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    try {
      if (s != null && !s.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        s.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.shutdownNow();
    }
    connections.close().awaitUninterruptibly();
    if (workers != null) {
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
    if (boss != null) {
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
    blocking.shutdown();
    try {
      blocking.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ids.close();
    metrics.close();
    if (accessLog != null) {
      accessLog.close();
    }
  }
}
