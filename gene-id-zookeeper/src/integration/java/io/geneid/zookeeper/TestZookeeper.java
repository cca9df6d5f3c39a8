package io.geneid.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * A real ZooKeeper server in the test JVM (Curator's {@link TestingServer}) on a free loopback port, with its own
 * data directory, a 100 ms tick and session timeouts allowed from 200 ms to 60 s, so tests can use short TTLs. Shared with gene-id-fault-tests through this module's test-jar.
 */
public final class TestZookeeper implements AutoCloseable {

  public final TestingServer server;
  /** A client of the tests' own, to look at and break the store behind the assigners' backs. */
  public final CuratorFramework admin;
  private final Path dataDir;

  public TestZookeeper() {
    try {
      dataDir = Files.createTempDirectory("gene-id-zk");
      InstanceSpec spec = new InstanceSpec(dataDir.toFile(), -1, -1, -1, true, -1,
          100, 200, Map.of("minSessionTimeout", "200", "maxSessionTimeout", "60000"), "127.0.0.1");
      server = new TestingServer(spec, true);
      admin = CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000, 5_000, new RetryNTimes(3, 100));
      admin.start();
      if (!admin.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test ZooKeeper at " + server.getConnectString() + " did not answer");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot start a ZooKeeper server for the tests", e);
    }
  }

  public int port() {
    return server.getPort();
  }

  public String connect() {
    return "127.0.0.1:" + server.getPort();
  }

  /**
   * Stops the server, copies its data directory (snapshots and transaction logs, as an operator's file backup would),
   * starts it again and returns the copy, for {@link #restoreData(Path)}.
   */
  public Path copyData() throws Exception {
    server.stop();
    try {
      Path copy = Files.createTempDirectory("gene-id-zk-copy");
      copyTree(dataDir, copy);
      return copy;
    } finally {
      server.restart();
    }
  }

  /**
   * Stops the server, replaces its data directory by a copy from {@link #copyData()} and starts it again: none of the
   * transactions after the copy, and the sessions of the copy.
   */
  public void restoreData(Path copy) throws Exception {
    server.stop();
    try (Stream<Path> files = Files.walk(dataDir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(dataDir)) {
          Files.delete(p);
        }
      }
    }
    copyTree(copy, dataDir);
    server.restart();
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (!Files.exists(target)) {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /** Deletes a path and everything under it; nothing if it is missing. */
  public void delete(String path) {
    try {
      if (admin.checkExists().forPath(path) != null) {
        admin.delete().deletingChildrenIfNeeded().forPath(path);
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot delete " + path, e);
    }
  }

  @Override
  public void close() {
    admin.close();
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
