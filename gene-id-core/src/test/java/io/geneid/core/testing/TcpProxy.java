package io.geneid.core.testing;

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
 *
 * <p>Besides a clean cut ({@link #stop()}), the proxy can make the service go silent the way a vanished host or a
 * firewall that drops packets does, with no reset: {@link #blackHole()} accepts new connections but never answers
 * or closes them, and freezes the open ones (what they send is swallowed, nothing comes back); {@link #freeze()}
 * freezes only the open connections while new ones are relayed. {@link #start()} ends either: it cuts every open
 * connection (the silenced ones lost bytes, so they are of no use any more) and relays new ones again.
 */
public final class TcpProxy implements AutoCloseable {

  private enum Mode { UP, DOWN, BLACK_HOLE }

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Set<Relay> relays = ConcurrentHashMap.newKeySet();
  private volatile Mode mode = Mode.UP;
  /** Whether some connection was silenced since the last {@link #start()}. */
  private volatile boolean silenced;

  /** One relayed connection; a frozen one swallows what it reads instead of passing it on. */
  private static final class Relay {
    volatile boolean frozen;
  }

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
    mode = Mode.DOWN;
    cutAll();
  }

  /**
   * The service goes silent without a reset: new connections are accepted and then get no byte and no close; open
   * connections are frozen ({@link #freeze()}).
   */
  public synchronized void blackHole() {
    mode = Mode.BLACK_HOLE;
    freeze();
  }

  /** Open connections go silent (what either side sends is swallowed, none is closed); new ones are relayed. */
  public synchronized void freeze() {
    silenced = true;
    for (Relay r : relays) {
      r.frozen = true;
    }
  }

  /** Relays new connections again: the service is back. After a silence, every open connection is cut first. */
  public synchronized void start() {
    if (silenced || mode == Mode.BLACK_HOLE) {
      cutAll();
    }
    silenced = false;
    mode = Mode.UP;
  }

  @Override
  public void close() throws IOException {
    stop();
    server.close();
  }

  private void cutAll() {
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    relays.clear();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Mode now = mode;
      if (now == Mode.DOWN) {
        closeQuietly(client);
        continue;
      }
      if (now == Mode.BLACK_HOLE) {
        silenced = true;
        sockets.add(client); // held open, never read, never answered: cut by start(), stop() or close()
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
        if (mode != Mode.UP) { // stopped or silenced while this connection was being opened
          if (mode == Mode.BLACK_HOLE) {
            silenced = true;
            sockets.add(client);
          } else {
            closeQuietly(client);
          }
          closeQuietly(upstream);
          continue;
        }
        sockets.add(client);
        sockets.add(upstream);
      }
      Relay relay = new Relay();
      relays.add(relay);
      pump(client, upstream, relay);
      pump(upstream, client, relay);
    }
  }

  private void pump(Socket from, Socket to, Relay relay) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (relay.frozen) {
            continue; // swallowed: the other side waits for an answer that never comes
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // connection cut
      } finally {
        relays.remove(relay);
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
