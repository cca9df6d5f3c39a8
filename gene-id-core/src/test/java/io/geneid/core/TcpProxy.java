package io.geneid.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on a free loopback port in front of a real service, which a test stops (every connection cut, the port
 * refusing new ones) and starts again on the same port: a store outage without touching the shared service. Shared by
 * the lease contract tests and the segment tests of gene-id-jdbc and gene-id-redis (core's test-jar).
 */
public final class TcpProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final int port;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private ServerSocket server;

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = listen(0);
    this.port = server.getLocalPort();
    accept(server);
  }

  /** The loopback port the proxy listens on. */
  public int port() {
    return port;
  }

  /** Cuts every connection and stops listening: the service looks down. */
  public synchronized void stop() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
    sockets.clear();
  }

  /** Listens again on the same port: the service is back. */
  public synchronized void start() throws IOException {
    if (!server.isClosed()) {
      return;
    }
    server = listen(port);
    accept(server);
  }

  @Override
  public void close() throws IOException {
    stop();
  }

  private static ServerSocket listen(int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return s;
  }

  private void accept(ServerSocket listening) {
    Thread acceptor = new Thread(() -> {
      while (!listening.isClosed()) {
        try {
          Socket client = listening.accept();
          Socket upstream;
          try {
            upstream = new Socket(targetHost, targetPort);
          } catch (IOException e) {
            client.close();
            continue;
          }
          sockets.add(client);
          sockets.add(upstream);
          pump(client, upstream);
          pump(upstream, client);
        } catch (IOException e) {
          return; // stopped
        }
      }
    }, "tcp-proxy-accept-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // connection cut
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "tcp-proxy-pump-" + port);
    t.setDaemon(true);
    t.start();
  }

  private void closeQuietly(Socket s) {
    sockets.remove(s);
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
