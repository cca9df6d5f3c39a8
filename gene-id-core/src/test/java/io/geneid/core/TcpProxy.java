package io.geneid.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on a free loopback port in front of a real service, which a test stops (every connection cut, new ones
 * closed as soon as they are accepted) and starts again: a store outage without touching the shared service. The
 * proxy keeps its port for its whole life, so no other process can take the port while the service "is down" (a
 * relay that closed and re-bound its port failed now and then with "Address already in use"). Shared by the lease
 * contract tests and the segment tests of gene-id-jdbc and gene-id-redis (core's test-jar).
 */
public final class TcpProxy implements AutoCloseable {
  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean up = true;

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The loopback port the proxy listens on. */
  public int port() {
    return server.getLocalPort();
  }

  /** Cuts every connection and closes new ones at once: the service looks down. */
  public synchronized void stop() throws IOException {
    up = false;
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  /** Relays new connections again: the service is back. */
  public synchronized void start() {
    up = true;
  }

  @Override
  public void close() throws IOException {
    stop();
    server.close();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (!up) {
        closeQuietly(client);
        continue;
      }
      Socket upstream;
      try {
        upstream = new Socket(targetHost, targetPort);
      } catch (IOException e) {
        closeQuietly(client);
        continue;
      }
      synchronized (this) {
        if (!up) { // stopped while this connection was being opened
          closeQuietly(client);
          closeQuietly(upstream);
          continue;
        }
        sockets.add(client);
        sockets.add(upstream);
      }
      pump(client, upstream);
      pump(upstream, client);
    }
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
    }, "tcp-proxy-pump-" + server.getLocalPort());
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
