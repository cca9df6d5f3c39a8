package io.geneid.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * An {@code etcd} of a test's own (the Debian package {@code etcd-server}), started as a child process on free
 * loopback ports with its data in a directory of its own, a 50 ms heartbeat and a 500 ms election timeout (so etcd
 * leases of one second are granted as asked). A test can stop it ({@code SIGTERM}), kill it ({@code SIGKILL}) and
 * start it again on the same ports with the same data. {@link #close()} stops the process it started, by its pid, and
 * deletes the data. Shared with gene-id-fault-tests through this module's test-jar. A missing {@code etcd} binary fails the test: it does not skip.
 */
public final class PrivateEtcd implements AutoCloseable {

  private final Path dir;
  private final int clientPort;
  private final int peerPort;
  private @Nullable Process process;
  private @Nullable Client admin;

  private PrivateEtcd(Path dir, int clientPort, int peerPort) {
    this.dir = dir;
    this.clientPort = clientPort;
    this.peerPort = peerPort;
  }

  public static PrivateEtcd start() {
    try {
      PrivateEtcd etcd = new PrivateEtcd(Files.createTempDirectory("gene-id-etcd"), freePort(), freePort());
      etcd.startProcess();
      return etcd;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return clientPort;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + clientPort;
  }

  /** The pid of the running server. */
  public long pid() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      throw new IllegalStateException("etcd is not running");
    }
    return p.pid();
  }

  public void startProcess() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("etcd is running already");
    }
    String peer = "http://127.0.0.1:" + peerPort;
    ProcessBuilder pb = new ProcessBuilder("etcd", "--name", "gene-id-test", "--data-dir", dir.resolve("data").toString(),
        "--listen-client-urls", endpoint(), "--advertise-client-urls", endpoint(),
        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
        "--initial-cluster", "gene-id-test=" + peer, "--initial-cluster-state", "new",
        "--heartbeat-interval", "50", "--election-timeout", "500", "--logger", "zap", "--log-level", "warn");
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile()));
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start etcd (install the Debian package etcd-server): " + e, e);
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!healthy()) {
      if (!process.isAlive() || System.nanoTime() - until > 0) {
        String log;
        try {
          log = Files.readString(dir.resolve("etcd.log"));
        } catch (IOException e) {
          log = e.toString();
        }
        stopProcess(true);
        throw new IllegalStateException("etcd on port " + clientPort + " did not become healthy: " + log);
      }
      sleep(50);
    }
  }

  private boolean healthy() {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(endpoint() + "/health").toURL().openConnection();
      c.setConnectTimeout(200);
      c.setReadTimeout(500);
      try (InputStream in = c.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("\"health\":\"true\"");
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return false;
    }
  }

  /** Stops the server: {@code SIGTERM}, or {@code SIGKILL} if {@code kill}; waits for it to exit. */
  public void stopProcess(boolean kill) {
    Process p = process;
    if (p == null) {
      return;
    }
    if (kill) {
      p.destroyForcibly();
    } else {
      p.destroy();
    }
    try {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(20, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /**
   * Stops the server ({@code SIGTERM}), copies its data directory to a new temp directory (as an operator's file
   * backup would), starts it again and returns the copy, for {@link #restoreData(Path)}.
   */
  public Path copyData() {
    stopProcess(false);
    try {
      Path copy = Files.createTempDirectory("gene-id-etcd-copy");
      copyTree(dir.resolve("data"), copy.resolve("data"));
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      startProcess();
    }
  }

  /**
   * Stops the server ({@code SIGTERM}), replaces its data directory by a copy from {@link #copyData()} and starts it
   * again: the same cluster and member ids, an older revision, none of the writes made after the copy.
   */
  public void restoreData(Path copy) {
    stopProcess(false);
    try {
      deleteTree(dir.resolve("data"));
      copyTree(copy.resolve("data"), dir.resolve("data"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    startProcess();
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Files.copy(p, to.resolve(from.relativize(p).toString()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
  }

  /** Deletes a directory and everything under it; nothing if it is missing. */
  public static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** A client of the test's own, to look at and break the store behind the assigners' backs. */
  public Client admin() {
    if (admin == null) {
      admin = Client.builder().endpoints(endpoint()).build();
    }
    return admin;
  }

  public void put(String key, String value) {
    try {
      admin().getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot put " + key, e);
    }
  }

  public @Nullable String get(String key) {
    try {
      var kvs = admin().getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs();
      return kvs.isEmpty() ? null : kvs.get(0).getValue().toString(StandardCharsets.UTF_8);
    } catch (Exception e) {
      throw new IllegalStateException("cannot get " + key, e);
    }
  }

  public void deletePrefix(String prefix) {
    try {
      admin().getKVClient().delete(bytes(prefix), DeleteOption.builder().isPrefix(true).build())
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot delete " + prefix, e);
    }
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close();
      admin = null;
    }
    stopProcess(false);
    try {
      deleteTree(dir);
    } catch (IOException e) {
      // a temp directory left behind is no failure
    }
  }

}
