package io.geneid.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on a free loopback port, for lease tests that need a store to vanish: {@link #close()} drops every
 * connection and stops listening, so the client sees exactly what a dead store looks like. The shared services are
 * never stopped.
 */
public final class LeaseTcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  public LeaseTcpProxy(String targetHost, int targetPort) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!closed) {
        try {
          Socket client = server.accept();
          Socket upstream = new Socket(targetHost, targetPort);
          sockets.add(client);
          sockets.add(upstream);
          pump(client, upstream);
          pump(upstream, client);
        } catch (IOException e) {
          if (!closed) {
            System.err.println("proxy: " + e);
          }
        }
      }
    }, "lease-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[8192];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n; (n = in.read(buf)) >= 0; ) {
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // connection dropped
      } finally {
        quietClose(from);
        quietClose(to);
      }
    }, "lease-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Stops listening and drops every connection. */
  @Override
  public void close() {
    closed = true;
    quietClose(server);
    for (Socket s : sockets) {
      quietClose(s);
    }
  }

  private static void quietClose(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // already closed
    }
  }
}
