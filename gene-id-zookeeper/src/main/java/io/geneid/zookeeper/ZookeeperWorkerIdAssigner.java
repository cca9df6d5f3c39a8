package io.geneid.zookeeper;

import io.geneid.core.GeneIdException;
import io.geneid.core.lease.KeyValueLeases;
import io.geneid.core.lease.KeyValueWorkerIdAssigner;
import io.geneid.core.lease.LeaseAssignerBuilder;
import io.geneid.core.lease.LeaseKeyValueStore;
import io.geneid.core.lease.WorkerIdAssigners;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker-id leases in ZooKeeper, through Apache Curator.
 *
 * <h2>Data</h2>
 * Per pool ({@code space}), under {@code <base path>/leases/<space>}:
 * <ul>
 *   <li>{@code ids/<id>}, a persistent node per worker id ever granted: its high-water mark, its state
 *       ({@code held} or {@code released}) and the last holder. Durable across sessions and restarts;
 *   <li>{@code claims/<id>}, an <b>ephemeral</b> node per worker id held: the holder's random fencing token and
 *       name. Every renewal rewrites it, so its modification time ({@code mtime}, the server's clock) tells when it
 *       was last renewed; a claim not renewed for one TTL is expired and may be taken over even while its session
 *       lives (a process whose keeper stopped but whose ZooKeeper client still sends heartbeats);
 *   <li>{@code clock}, written at each acquisition only to read the server's time from its {@code mtime}.
 * </ul>
 * A grant is one ZooKeeper transaction (multi) that creates the claim and rewrites the worker id's node under its
 * version, or creates it for a worker id without one (for an expired claim, also deletes it under its version): two
 * acquirers can never both get one worker id, whoever wins the race. Which worker id, and with which previous mark,
 * the core's lease protocol decides ({@link KeyValueLeases}, {@code LeasePlanner}): the lowest one without a node
 * first, then the least recently used free one. A renewal checks that the claim
 * holds this lease's token <i>and belongs to this client's current session</i>, then rewrites the claim and raises
 * the mark in one transaction under both versions.
 *
 * <h2>Sessions and fencing</h2>
 * The session timeout must be at least the lease TTL (checked against the timeout the server granted, which
 * {@code maxSessionTimeout} may cut): the server deletes a holder's claim at the earliest one session timeout after
 * it last heard from it, and the holder's generator has stopped issuing by then (its deadline is 95 % of the TTL
 * after the last renewal it sent). On top of that, Curator's connection states are passed to the generator
 * ({@link #onLeaseDoubt}): {@code SUSPENDED} (the connection dropped) and {@code LOST} (the session expired) stop
 * issuing at once; after {@code RECONNECTED} the generator issues again only once a renewal has verified the claim
 * (same token, same session). After {@code LOST} the session is a new one, the old claim is gone, the renewal is
 * refused and the generator leases again. While not connected, renewals fail at once.
 *
 * <h2>Fault model</h2>
 * <ul>
 *   <li><b>Tokens never repeat</b>: 64 random bits per grant, never a counter kept in ZooKeeper.
 *   <li><b>Every grant</b> starts above the recorded mark and, unless the last holder released the id with its exact
 *       mark, above ZooKeeper's now + the caller's borrowing bound.
 *   <li><b>Lost writes</b> (a restore from a snapshot or a copy of the data directory, an operator deleting nodes):
 *       ZooKeeper cannot tell every one, so this assigner does not vouch for its history
 *       ({@link #vouchesForHistory()} is false): a worker id whose node or claim was lost looks free and is granted at
 *       once, and the lease protocol makes every new lease issue only above its expiry + the borrowing bound + 2 s,
 *       when any holder the store forgot has fenced itself (it renews meanwhile). Besides, a holder stops issuing as
 *       soon as its connection drops (a restore restarts the server), and a ZooKeeper client refuses to reconnect
 *       its session to a server that has seen fewer transactions than it has: its session is lost instead.
 *   <li><b>Silence</b>: every Curator call runs on the assigner's own thread and is waited for at most
 *       {@link #callTimeout()} (the connection timeout, at most a third of the TTL); a call that has not answered by
 *       then fails (and is interrupted), and calls fail at once while the session is suspended. So a renewal returns
 *       within a third of the TTL even when the connection stays open but goes silent, which ZooKeeper itself notices
 *       only after two thirds of the session timeout (issue #39: 37.8 s with a 30 s session before this bound).
 * </ul>
 * Every process of a pool should use the same worker-id range, TTL and borrowing bound. The assigner logs one line
 * per connection state change; the store is described by its connect string (never its credentials).
 */
public final class ZookeeperWorkerIdAssigner extends KeyValueWorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(ZookeeperWorkerIdAssigner.class);

  /** Default base path. */
  public static final String DEFAULT_BASE_PATH = "/gene-id";

  private final String poolPath;
  private final String description;
  private final CuratorFramework client;
  private final boolean ownsClient;
  private final ConnectionStateListener stateListener = this::stateChanged;
  private final List<Consumer<String>> doubtListeners = new CopyOnWriteArrayList<>();
  private volatile ConnectionState connection = ConnectionState.CONNECTED;
  /** Runs every Curator call, so that the caller can stop waiting for one ({@link #bounded}). */
  private final ExecutorService calls;
  private final Duration callTimeout;

  private ZookeeperWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease) {
    super(lease);
    String space = lease.space();
    Duration ttl = lease.ttl();
    this.poolPath = b.basePath + "/leases/" + space;
    Duration connectTimeout = b.connectionTimeout != null ? b.connectionTimeout
        : Duration.ofMillis(Math.max(100, Math.min(ttl.toMillis() / 3, 5_000)));
    this.callTimeout = connectTimeout.compareTo(ttl.dividedBy(3)) < 0 ? connectTimeout : ttl.dividedBy(3);
    this.calls = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "gene-id-zookeeper-call[" + space + "]");
      t.setDaemon(true);
      return t;
    });
    if (b.client != null) {
      this.client = b.client;
      this.ownsClient = false;
      this.description = "ZooKeeper " + describe(b.client.getZookeeperClient().getCurrentConnectionString());
    } else {
      String connect = Objects.requireNonNull(b.connectString, "connectString");
      this.description = "ZooKeeper " + describe(connect);
      Duration sessionTimeout = b.sessionTimeout != null ? b.sessionTimeout : ttl;
      if (sessionTimeout.compareTo(ttl) < 0) {
        throw new IllegalArgumentException(ZookeeperWorkerIdAssignerProvider.SESSION_TIMEOUT + " must be in ["
            + ttl.toMillis() + "ms (lease-ttl), 1h] but was " + sessionTimeout.toMillis() + "ms");
      }
      Duration connectionTimeout = b.connectionTimeout != null ? b.connectionTimeout
          : Duration.ofMillis(Math.max(100, Math.min(ttl.toMillis() / 3, 5_000)));
      CuratorFrameworkFactory.Builder cb = CuratorFrameworkFactory.builder()
          .connectString(connect)
          .sessionTimeoutMs(Math.toIntExact(sessionTimeout.toMillis()))
          .connectionTimeoutMs(Math.toIntExact(connectionTimeout.toMillis()))
          // one retry: the keeper retries renewals itself, and a call must not outlive the lease
          .retryPolicy(new RetryNTimes(1, 50));
      if (b.username != null) {
        cb.authorization("digest", (b.username + ":" + Objects.requireNonNullElse(b.password, ""))
            .getBytes(StandardCharsets.UTF_8));
      }
      this.client = cb.build();
      this.ownsClient = true;
      client.start();
      boolean connected;
      try {
        connected = client.blockUntilConnected(Math.toIntExact(Math.max(connectionTimeout.toMillis(), 1_000)),
            TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        client.close();
        calls.shutdownNow();
        throw new GeneIdException("interrupted while connecting to the worker-id lease store, " + description);
      }
      if (!connected) {
        client.close();
        calls.shutdownNow();
        throw new GeneIdException("cannot reach the worker-id lease store, " + description + ", within "
            + Math.max(connectionTimeout.toMillis(), 1_000) + " ms");
      }
    }
    open(new Nodes(), ttl, description);
    client.getConnectionStateListenable().addListener(stateListener);
    if (!client.getZookeeperClient().isConnected()) {
      connection = ConnectionState.SUSPENDED;
    }
  }

  /** A builder; {@link Builder#connectString(String)} or {@link Builder#client(CuratorFramework)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * How long a caller waits for one ZooKeeper call: the connection timeout, at most a third of the TTL. A renewal
   * makes its calls one after another and gives up at the first that does not answer in time.
   */
  public Duration callTimeout() {
    return callTimeout;
  }

  /**
   * Runs {@code call} on the assigner's call thread and waits for it at most {@link #callTimeout()}: a ZooKeeper
   * connection that stays open but goes silent is noticed by the client only after two thirds of the session timeout,
   * and Curator then retries; no renewal may wait that long. A call that does not answer in time is interrupted and
   * fails with a {@link GeneIdException} naming it and the bound; a write it carried may still reach the server, which
   * the protocol allows (a grant that is never renewed expires, a renewal or release that took effect is harmless).
   */
  private <T> T bounded(String what, Callable<T> call) throws Exception {
    Future<T> f;
    try {
      f = calls.submit(call);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      throw new GeneIdException("the worker-id lease store, " + description + ", is closed (" + what + ")");
    }
    try {
      return f.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new GeneIdException("the worker-id lease store, " + description + ", did not answer " + what
          + " for space '" + space() + "' within " + callTimeout.toMillis() + " ms (the call timeout: the"
          + " connection timeout, at most a third of the lease TTL); the connection may be open but silent");
    } catch (InterruptedException e) {
      f.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw e;
    }
  }

  /** The ZooKeeper path of this pool. */
  public String poolPath() {
    return poolPath;
  }

  @Override
  public Runnable onLeaseDoubt(Consumer<String> listener) {
    doubtListeners.add(listener);
    return () -> doubtListeners.remove(listener);
  }

  private void stateChanged(CuratorFramework c, ConnectionState state) {
    connection = state;
    switch (state) {
      case SUSPENDED, LOST -> {
        String why = state == ConnectionState.SUSPENDED
            ? "the connection to " + description + " was suspended (its session may expire meanwhile)"
            : "the session with " + description + " was lost (expired): its claims are gone";
        LOG.warn("{}: leases of space '{}' are in doubt until verified again", why, space());
        for (Consumer<String> l : doubtListeners) {
          try {
            l.accept(why);
          } catch (RuntimeException e) {
            LOG.warn("a lease-doubt listener failed", e);
          }
        }
      }
      case RECONNECTED -> LOG.info("reconnected to {}; leases of space '{}' are verified at their next renewal",
          description, space());
      default -> { }
    }
  }

  // ------------------------------------------------------------------------------------------ leases

  /**
   * The pool's nodes as the lease protocol's key-value store: {@code ids/<id>} are the records, {@code claims/<id>}
   * the ephemeral claims, expiring one TTL after their last write ({@code mtime}) and owned by this client's current
   * session; a grant, renewal or release is one ZooKeeper transaction (multi).
   */
  private final class Nodes implements LeaseKeyValueStore {

    @Override
    public void check() {
      checkSession();
    }

    @Override
    public long now() {
      long now = serverTime();
      createParents();
      return now;
    }

    @Override
    public List<Entry> list(Kind kind) {
      List<Entry> entries = new ArrayList<>();
      for (String child : children(dir(kind))) {
        long id = idOf(child);
        Entry e = id < 0 ? null : get(kind, id);
        if (e != null) {
          entries.add(e);
        }
      }
      return entries;
    }

    @Override
    public @Nullable Entry get(Kind kind, long id) {
      try {
        Stat stat = new Stat();
        byte[] data = bounded("reading " + where(kind, id),
            () -> client.getData().storingStatIn(stat).forPath(where(kind, id)));
        return new Entry(id, new String(data, StandardCharsets.UTF_8), stat.getVersion(), stat.getMtime(),
            stat.getEphemeralOwner());
      } catch (KeeperException.NoNodeException e) {
        return null;
      } catch (Exception e) {
        throw failure("reading " + where(kind, id), e);
      }
    }

    @Override
    public long commit(List<Write> writes) {
      List<CuratorOp> ops = new ArrayList<>();
      try {
        for (Write w : writes) {
          String path = where(w.kind(), w.id());
          if (w instanceof Create c) {
            ops.add(client.transactionOp().create()
                .withMode(c.kind() == Kind.CLAIM ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT)
                .forPath(path, bytes(c.value())));
          } else if (w instanceof Put p) {
            ops.add(client.transactionOp().setData().withVersion(Math.toIntExact(p.version()))
                .forPath(path, bytes(p.value())));
          } else if (w instanceof Touch t) {
            ops.add(client.transactionOp().setData().withVersion(Math.toIntExact(t.version()))
                .forPath(path, bytes(t.value())));
          } else if (w instanceof Delete d) {
            ops.add(client.transactionOp().delete().withVersion(Math.toIntExact(d.version())).forPath(path));
          }
        }
        long at = 0;
        for (CuratorTransactionResult r : bounded("writing worker id " + writes.get(0).id(),
            () -> client.transaction().forOperations(ops))) {
          if (r.getResultStat() != null && at == 0) {
            at = r.getResultStat().getMtime();
          }
        }
        return at;
      } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException
          | KeeperException.NoNodeException e) {
        return -1;
      } catch (Exception e) {
        throw failure("writing worker id " + writes.get(0).id(), e);
      }
    }

    @Override
    public long expiresAt(Entry claim) {
      return claim.lastWritten() + ttl().toMillis();
    }

    @Override
    public @Nullable String foreign(Entry claim) {
      long session = sessionId();
      return claim.session() == session ? null : "its claim belongs to ZooKeeper session 0x"
          + Long.toHexString(claim.session()) + ", which ended (this client's session is now 0x"
          + Long.toHexString(session) + ")";
    }

    @Override
    public String where(Kind kind, long id) {
      return dir(kind) + "/" + id;
    }

    private String dir(Kind kind) {
      return poolPath + (kind == Kind.RECORD ? "/ids" : "/claims");
    }
  }

  // ------------------------------------------------------------------------------------------ store access

  /** Fails at once while the session is suspended or lost, and if the server cut the session below the TTL. */
  private void checkSession() {
    ConnectionState s = connection;
    if (s == ConnectionState.SUSPENDED || s == ConnectionState.LOST || !client.getZookeeperClient().isConnected()) {
      throw new GeneIdException("the worker-id lease store, " + description + ", is not connected (" + s
          + "): no lease of space '" + space() + "' can be verified now");
    }
    int negotiated;
    try {
      negotiated = bounded("reading the session timeout",
          () -> client.getZookeeperClient().getZooKeeper().getSessionTimeout());
    } catch (Exception e) {
      throw failure("reading the session timeout", e);
    }
    if (negotiated < ttl().toMillis()) {
      throw new GeneIdException(description + " granted a session timeout of " + negotiated + " ms, below the lease "
          + "TTL of " + ttl().toMillis() + " ms (the server's maxSessionTimeout cuts it): a claim could vanish before "
          + "its holder stops issuing. Lower lease-ttl to at most " + negotiated + " ms or raise maxSessionTimeout");
    }
  }

  private long sessionId() {
    try {
      return bounded("reading the session id", () -> client.getZookeeperClient().getZooKeeper().getSessionId());
    } catch (Exception e) {
      throw failure("reading the session id", e);
    }
  }

  /** ZooKeeper's time: the mtime of a write to the pool's clock node. */
  private long serverTime() {
    String path = poolPath + "/clock";
    try {
      try {
        return bounded("reading the server time", () -> client.setData().forPath(path, new byte[0]).getMtime());
      } catch (KeeperException.NoNodeException e) {
        try {
          bounded("creating " + path, () -> client.create().creatingParentsIfNeeded().forPath(path, new byte[0]));
        } catch (KeeperException.NodeExistsException raced) {
          // created meanwhile
        }
        return bounded("reading the server time", () -> client.setData().forPath(path, new byte[0]).getMtime());
      }
    } catch (Exception e) {
      throw failure("reading the server time", e);
    }
  }

  /** The pool's persistent parents, {@code ids} and {@code claims}: a transaction creates no parents. */
  private void createParents() {
    for (String child : List.of("/ids", "/claims")) {
      try {
        String path = poolPath + child;
        if (bounded("looking for " + path, () -> client.checkExists().forPath(path)) == null) {
          bounded("creating " + path, () -> client.create().creatingParentsIfNeeded().forPath(path, new byte[0]));
        }
      } catch (KeeperException.NodeExistsException e) {
        // created meanwhile
      } catch (Exception e) {
        throw failure("creating " + poolPath + child, e);
      }
    }
  }

  private List<String> children(String path) {
    try {
      return bounded("listing " + path, () -> client.getChildren().forPath(path));
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (Exception e) {
      throw failure("listing " + path, e);
    }
  }

  private GeneIdException failure(String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    if (e instanceof GeneIdException g) {
      return g; // a call that did not answer within its bound says so itself
    }
    return new GeneIdException("the worker-id lease store, " + description + ", failed " + what + " for space '"
        + space() + "': " + e, e);
  }

  private static long idOf(String child) {
    try {
      return Long.parseLong(child);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A connect string for messages: any {@code user:password@} part of a host is dropped. */
  static String describe(String connectString) {
    StringBuilder out = new StringBuilder();
    int slash = connectString.indexOf('/');
    String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
    for (String host : hosts.split(",")) {
      String h = host.trim();
      int at = h.lastIndexOf('@');
      out.append(out.length() == 0 ? "" : ",").append(at < 0 ? h : h.substring(at + 1));
    }
    return out + (slash < 0 ? "" : connectString.substring(slash));
  }

  @Override
  public void close() {
    client.getConnectionStateListenable().removeListener(stateListener);
    doubtListeners.clear();
    calls.shutdownNow(); // a call stuck on a silent connection is interrupted, not waited for
    if (ownsClient) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return super.toString() + " at " + poolPath;
  }

  /**
   * Configuration of a {@link ZookeeperWorkerIdAssigner}: the ensemble, its timeouts and the base path here, the
   * pool's settings ({@code space}, {@code workerIds}, {@code ttl}, {@code acquireTimeout}, {@code owner}) in
   * {@link LeaseAssignerBuilder}.
   */
  public static final class Builder extends LeaseAssignerBuilder<Builder> {
    String basePath = DEFAULT_BASE_PATH;
    @Nullable String connectString;
    @Nullable CuratorFramework client;
    @Nullable Duration sessionTimeout;
    @Nullable Duration connectionTimeout;
    @Nullable String username;
    @Nullable String password;

    private Builder() {}

    /** The ensemble, e.g. {@code zk1:2181,zk2:2181,zk3:2181} (an optional chroot such as {@code /ids} at the end). */
    public Builder connectString(String connectString) {
      this.connectString = ZookeeperWorkerIdAssignerProvider.checkConnectString(
          ZookeeperWorkerIdAssignerProvider.CONNECT, Objects.requireNonNull(connectString, "connectString"));
      return this;
    }

    /**
     * A started Curator client, not closed by the assigner. Its session timeout must be at least the lease TTL (the
     * one the server granted is checked at every call), and its retry policy should give up well within the TTL.
     */
    public Builder client(CuratorFramework client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** The node under which pools live: an absolute ZooKeeper path. Default {@code /gene-id}. */
    public Builder basePath(String basePath) {
      this.basePath = ZookeeperWorkerIdAssignerProvider.checkBasePath(ZookeeperWorkerIdAssignerProvider.BASE_PATH,
          Objects.requireNonNull(basePath, "basePath"));
      return this;
    }

    /** The session timeout asked for: at least the lease TTL, at most 1 h. Default the TTL. */
    public Builder sessionTimeout(Duration sessionTimeout) {
      this.sessionTimeout = Objects.requireNonNull(sessionTimeout, "sessionTimeout");
      return this;
    }

    /** How long a call waits for a connection. In [100 ms, 1 min]. Default a third of the TTL, in [100 ms, 5 s]. */
    public Builder connectionTimeout(Duration connectionTimeout) {
      Objects.requireNonNull(connectionTimeout, "connectionTimeout");
      if (connectionTimeout.toMillis() < 100 || connectionTimeout.toMillis() > 60_000) {
        throw new IllegalArgumentException(ZookeeperWorkerIdAssignerProvider.CONNECTION_TIMEOUT
            + " must be in [100ms, 60000ms] but was " + connectionTimeout.toMillis() + "ms");
      }
      this.connectionTimeout = connectionTimeout;
      return this;
    }

    /** Digest credentials ({@code addauth digest user:password}); never printed. */
    public Builder digest(String username, String password) {
      this.username = Objects.requireNonNull(username, "username");
      this.password = Objects.requireNonNull(password, "password");
      return this;
    }

    /**
     * Connects (when given a connect string) and waits for the connection, at most the connection timeout (at least
     * 1 s).
     *
     * @throws GeneIdException if ZooKeeper cannot be reached
     * @throws IllegalArgumentException for a setting out of range
     */
    public ZookeeperWorkerIdAssigner build() {
      WorkerIdAssigners.LeaseSettings lease = leaseSettings();
      if (connectString == null && client == null) {
        throw new IllegalArgumentException("a ZooKeeper connect string (" + ZookeeperWorkerIdAssignerProvider.CONNECT
            + ") or a Curator client is required");
      }
      if (sessionTimeout != null && (sessionTimeout.compareTo(lease.ttl()) < 0
          || sessionTimeout.compareTo(Duration.ofHours(1)) > 0)) {
        throw new IllegalArgumentException(ZookeeperWorkerIdAssignerProvider.SESSION_TIMEOUT + " must be in ["
            + lease.ttl().toMillis() + "ms (lease-ttl), 3600000ms] but was " + sessionTimeout.toMillis() + "ms");
      }
      return new ZookeeperWorkerIdAssigner(this, lease);
    }
  }
}
