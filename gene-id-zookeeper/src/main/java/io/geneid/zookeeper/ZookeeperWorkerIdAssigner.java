package io.geneid.zookeeper;

import io.geneid.core.GeneIdException;
import io.geneid.core.lease.LeaseAssignerBuilder;
import io.geneid.core.lease.WorkerIdAssigner;
import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.lease.WorkerIdExhaustedException;
import io.geneid.core.lease.WorkerLease;
import io.geneid.core.lease.WorkerLeaseLostException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
 * acquirers can never both get one worker id, whoever wins the race. The least recently used free worker id comes
 * first, then the lowest one without a node. A renewal checks that the claim
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
 *   <li><b>Silence</b>: every call waits at most the connection timeout for a connection and fails at once while
 *       the session is suspended, so a renewal never hangs past the lease.
 * </ul>
 * Every process of a pool should use the same worker-id range, TTL and borrowing bound. The assigner logs one line
 * per connection state change; the store is described by its connect string (never its credentials).
 */
public final class ZookeeperWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(ZookeeperWorkerIdAssigner.class);

  /** Default base path. */
  public static final String DEFAULT_BASE_PATH = "/gene-id";
  private static final SecureRandom RANDOM = new SecureRandom();
  /** How often one call retries after losing a race (a version changed under it). */
  private static final int RACES = 16;

  private final String space;
  private final long minWorkerId;
  private final long maxWorkerId;
  private final Duration ttl;
  private final Duration acquireTimeout;
  private final String owner;
  private final String poolPath;
  private final String description;
  private final CuratorFramework client;
  private final boolean ownsClient;
  private final ConnectionStateListener stateListener = this::stateChanged;
  private final List<Consumer<String>> doubtListeners = new CopyOnWriteArrayList<>();
  private volatile ConnectionState connection = ConnectionState.CONNECTED;

  private ZookeeperWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease) {
    this.space = lease.space();
    this.minWorkerId = lease.minWorkerId();
    this.maxWorkerId = lease.maxWorkerId();
    this.ttl = lease.ttl();
    this.acquireTimeout = lease.acquireTimeout();
    this.owner = lease.owner();
    this.poolPath = b.basePath + "/leases/" + space;
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
        throw new GeneIdException("interrupted while connecting to the worker-id lease store, " + description);
      }
      if (!connected) {
        client.close();
        throw new GeneIdException("cannot reach the worker-id lease store, " + description + ", within "
            + Math.max(connectionTimeout.toMillis(), 1_000) + " ms");
      }
    }
    client.getConnectionStateListenable().addListener(stateListener);
    if (!client.getZookeeperClient().isConnected()) {
      connection = ConnectionState.SUSPENDED;
    }
  }

  /** A builder; {@link Builder#connectString(String)} or {@link Builder#client(CuratorFramework)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String space() {
    return space;
  }

  @Override
  public Duration ttl() {
    return ttl;
  }

  @Override
  public String store() {
    return description;
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
        LOG.warn("{}: leases of space '{}' are in doubt until verified again", why, space);
        for (Consumer<String> l : doubtListeners) {
          try {
            l.accept(why);
          } catch (RuntimeException e) {
            LOG.warn("a lease-doubt listener failed", e);
          }
        }
      }
      case RECONNECTED -> LOG.info("reconnected to {}; leases of space '{}' are verified at their next renewal",
          description, space);
      default -> { }
    }
  }

  // ------------------------------------------------------------------------------------------ acquire

  /** A worker id's persistent node, parsed. */
  private record IdRecord(long id, long mark, String state, String holder, Stat stat) {
    static IdRecord parse(long id, byte[] data, Stat stat) {
      Map<String, String> f = fields(data);
      return new IdRecord(id, num(f.get("mark")), f.getOrDefault("state", "unknown"), f.getOrDefault("owner", ""),
          stat);
    }
  }

  /** A claim node, parsed. */
  private record Claim(long token, String holder, Stat stat) {
    static Claim parse(byte[] data, Stat stat) {
      Map<String, String> f = fields(data);
      return new Claim(num(f.get("token")), f.getOrDefault("owner", ""), stat);
    }
  }

  /** One way to grant a worker id, found by an acquisition attempt. */
  private record Option(long workerId, long previousMark, long lastUsed, @Nullable IdRecord record,
      @Nullable Claim expiredClaim) {}

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    long[] range = WorkerIdAssigners.poolRange(space, minWorkerId, maxWorkerId, layoutMaxWorkerId);
    long slack = Math.max(0, borrowSlack.toMillis());
    long deadline = System.nanoTime() + acquireTimeout.toNanos();
    for (int races = 0; ; ) {
      checkSession();
      long now = serverTime();
      createParents();
      Map<Long, IdRecord> records = new HashMap<>();
      for (String child : children(poolPath + "/ids")) {
        long id = idOf(child);
        if (id >= range[0] && id <= range[1]) {
          IdRecord r = readRecord(id);
          if (r != null) {
            records.put(id, r);
          }
        }
      }
      Map<Long, Claim> claims = new HashMap<>();
      for (String child : children(poolPath + "/claims")) {
        long id = idOf(child);
        if (id >= range[0] && id <= range[1]) {
          Claim c = readClaim(id);
          if (c != null) {
            claims.put(id, c);
          }
        }
      }
      List<Option> options = new ArrayList<>();
      List<String> holders = new ArrayList<>();
      for (Map.Entry<Long, Claim> e : claims.entrySet()) {
        if (!records.containsKey(e.getKey())) { // held, its node lost: its holder writes it again at renewal
          holders.add(e.getKey() + " by " + e.getValue().holder() + " until "
              + Instant.ofEpochMilli(e.getValue().stat().getMtime() + ttl.toMillis()));
        }
      }
      for (IdRecord r : records.values()) {
        long id = r.id();
        Claim c = claims.get(id);
        long prevFloor = Math.max(r.mark(), now + slack);
        if (c != null) {
          long expiry = c.stat().getMtime() + ttl.toMillis();
          if (now < expiry) {
            holders.add(id + " by " + c.holder() + " until " + Instant.ofEpochMilli(expiry));
          } else {
            options.add(new Option(id, prevFloor, expiry, r, c));
          }
          continue;
        }
        // a released id carries its holder's exact mark; one whose holder vanished, at least now + slack
        long previous = "released".equals(r.state()) ? r.mark() : prevFloor;
        options.add(new Option(id, previous, r.stat().getMtime(), r, null));
      }
      // the least recently used known id first, then the lowest worker id without a node: never granted, or its node
      // lost (nobody's mark is known)
      options.sort(Comparator.comparingLong(Option::lastUsed).thenComparingLong(Option::workerId));
      long fresh = range[0];
      while (records.containsKey(fresh) || claims.containsKey(fresh)) {
        fresh++;
      }
      if (fresh <= range[1]) {
        options.add(new Option(fresh, 0, Long.MAX_VALUE, null, null));
      }
      boolean raced = false;
      for (Option o : options) {
        WorkerLease lease = grant(o, now);
        if (lease != null) {
          LOG.debug("acquired worker id {} of space '{}' at {}; previous holder's mark {}", lease.workerId(), space,
              description, lease.previousHighWaterMark());
          return lease;
        }
        raced = true;
      }
      if (raced && ++races < RACES) {
        continue; // another acquirer won a race: look again at once
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        holders.sort(Comparator.comparingLong(h -> Long.parseLong(h.substring(0, h.indexOf(' ')))));
        throw new WorkerIdExhaustedException(space, range[0], range[1], holders, " in " + description
            + " after waiting " + acquireTimeout.toMillis() + " ms");
      }
      races = 0;
      WorkerIdAssigners.pauseBeforeRetry(space, ttl, remaining);
    }
  }

  /** Grants {@code o} in one transaction; null if another acquirer changed something first. */
  private @Nullable WorkerLease grant(Option o, long now) {
    long token = newToken();
    String id = Long.toString(o.workerId());
    byte[] recordData = record(o.previousMark(), "held", owner);
    List<CuratorOp> ops = new ArrayList<>();
    try {
      if (o.record() == null) {
        ops.add(client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(poolPath + "/ids/" + id,
            recordData));
      } else {
        ops.add(client.transactionOp().setData().withVersion(o.record().stat().getVersion())
            .forPath(poolPath + "/ids/" + id, recordData));
      }
      if (o.expiredClaim() != null) {
        ops.add(client.transactionOp().delete().withVersion(o.expiredClaim().stat().getVersion())
            .forPath(poolPath + "/claims/" + id));
      }
      ops.add(client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(poolPath + "/claims/" + id,
          bytes("token=" + token + ";owner=" + owner)));
      client.transaction().forOperations(ops);
    } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException
        | KeeperException.NoNodeException e) {
      return null;
    } catch (Exception e) {
      throw failure("granting worker id " + id, e);
    }
    return new WorkerLease(space, o.workerId(), token, owner, Instant.ofEpochMilli(o.previousMark()),
        Instant.ofEpochMilli(o.previousMark()), Instant.ofEpochMilli(now + ttl.toMillis()));
  }

  // ------------------------------------------------------------------------------------------ renew, release

  @Override
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    String id = Long.toString(lease.workerId());
    for (int races = 0; ; races++) {
      checkSession();
      Claim claim = ownClaim(lease);
      IdRecord r = readRecord(lease.workerId());
      if (r == null) {
        throw lost(lease, "its node " + poolPath + "/ids/" + id + " is gone (deleted, or the store lost data)");
      }
      long mark = Math.max(r.mark(), highWaterMark.toEpochMilli());
      try {
        List<CuratorTransactionResult> results = client.transaction().forOperations(List.of(
            client.transactionOp().setData().withVersion(claim.stat().getVersion())
                .forPath(poolPath + "/claims/" + id, bytes("token=" + lease.token() + ";owner=" + lease.owner())),
            client.transactionOp().setData().withVersion(r.stat().getVersion()).forPath(poolPath + "/ids/" + id,
                record(mark, "held", lease.owner()))));
        long renewedAt = results.get(0).getResultStat().getMtime();
        return lease.renewed(Instant.ofEpochMilli(mark), Instant.ofEpochMilli(renewedAt + ttl.toMillis()));
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
        if (races >= RACES) {
          throw failure("renewing worker id " + id + " (it kept changing)", e);
        }
        // re-read: the claim may have been taken over, or only the mark node was written meanwhile
      } catch (Exception e) {
        throw failure("renewing worker id " + id, e);
      }
    }
  }

  @Override
  public void release(WorkerLease lease, Instant highWaterMark) {
    String id = Long.toString(lease.workerId());
    for (int races = 0; races < RACES; races++) {
      Claim claim;
      try {
        claim = ownClaim(lease);
      } catch (WorkerLeaseLostException e) {
        LOG.warn("worker id {} of space '{}' at {} was not released: {}", lease.workerId(), space, description,
            e.getMessage());
        return;
      }
      IdRecord r = readRecord(lease.workerId());
      byte[] released = record(highWaterMark.toEpochMilli(), "released", lease.owner());
      try {
        CuratorOp mark = r == null
            ? client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(poolPath + "/ids/" + id,
                released)
            : client.transactionOp().setData().withVersion(r.stat().getVersion()).forPath(poolPath + "/ids/" + id,
                released);
        client.transaction().forOperations(List.of(
            client.transactionOp().delete().withVersion(claim.stat().getVersion()).forPath(poolPath + "/claims/" + id),
            mark));
        LOG.debug("released worker id {} of space '{}' at {} with high-water mark {}", lease.workerId(), space,
            description, highWaterMark);
        return;
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException
          | KeeperException.NodeExistsException e) {
        // changed meanwhile: look again
      } catch (Exception e) {
        throw failure("releasing worker id " + id, e);
      }
    }
    throw new GeneIdException("releasing worker id " + id + " of space '" + space + "' at " + description
        + " kept losing races; it expires by itself");
  }

  /** The claim of {@code lease}, checked: same token, this client's current session. */
  private Claim ownClaim(WorkerLease lease) {
    Claim c = readClaim(lease.workerId());
    if (c == null) {
      throw lost(lease, "the store has no claim for it (released, taken over after expiry, or its ZooKeeper "
          + "session ended)");
    }
    if (c.token() != lease.token()) {
      throw lost(lease, "it was taken over (token " + c.token() + ")");
    }
    long session = sessionId();
    if (c.stat().getEphemeralOwner() != session) {
      throw lost(lease, "its claim belongs to ZooKeeper session 0x" + Long.toHexString(c.stat().getEphemeralOwner())
          + ", which ended (this client's session is now 0x" + Long.toHexString(session) + ")");
    }
    return c;
  }

  private WorkerLeaseLostException lost(WorkerLease lease, String why) {
    return new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId() + " of space '"
        + space + "' is no longer leased under token " + lease.token() + " in " + description + ": " + why, null);
  }

  // ------------------------------------------------------------------------------------------ store access

  /** Fails at once while the session is suspended or lost, and if the server cut the session below the TTL. */
  private void checkSession() {
    ConnectionState s = connection;
    if (s == ConnectionState.SUSPENDED || s == ConnectionState.LOST || !client.getZookeeperClient().isConnected()) {
      throw new GeneIdException("the worker-id lease store, " + description + ", is not connected (" + s
          + "): no lease of space '" + space + "' can be verified now");
    }
    int negotiated;
    try {
      negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
    } catch (Exception e) {
      throw failure("reading the session timeout", e);
    }
    if (negotiated < ttl.toMillis()) {
      throw new GeneIdException(description + " granted a session timeout of " + negotiated + " ms, below the lease "
          + "TTL of " + ttl.toMillis() + " ms (the server's maxSessionTimeout cuts it): a claim could vanish before "
          + "its holder stops issuing. Lower lease-ttl to at most " + negotiated + " ms or raise maxSessionTimeout");
    }
  }

  private long sessionId() {
    try {
      return client.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      throw failure("reading the session id", e);
    }
  }

  /** ZooKeeper's time: the mtime of a write to the pool's clock node. */
  private long serverTime() {
    String path = poolPath + "/clock";
    try {
      try {
        return client.setData().forPath(path, new byte[0]).getMtime();
      } catch (KeeperException.NoNodeException e) {
        try {
          client.create().creatingParentsIfNeeded().forPath(path, new byte[0]);
        } catch (KeeperException.NodeExistsException raced) {
          // created meanwhile
        }
        return client.setData().forPath(path, new byte[0]).getMtime();
      }
    } catch (Exception e) {
      throw failure("reading the server time", e);
    }
  }

  /** The pool's persistent parents, {@code ids} and {@code claims}: a transaction creates no parents. */
  private void createParents() {
    for (String child : List.of("/ids", "/claims")) {
      try {
        if (client.checkExists().forPath(poolPath + child) == null) {
          client.create().creatingParentsIfNeeded().forPath(poolPath + child, new byte[0]);
        }
      } catch (KeeperException.NodeExistsException e) {
        // created meanwhile
      } catch (Exception e) {
        throw failure("creating " + poolPath + child, e);
      }
    }
  }

  private @Nullable IdRecord readRecord(long id) {
    try {
      Stat stat = new Stat();
      byte[] data = client.getData().storingStatIn(stat).forPath(poolPath + "/ids/" + id);
      return IdRecord.parse(id, data, stat);
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (Exception e) {
      throw failure("reading worker id " + id, e);
    }
  }

  private @Nullable Claim readClaim(long id) {
    try {
      Stat stat = new Stat();
      byte[] data = client.getData().storingStatIn(stat).forPath(poolPath + "/claims/" + id);
      return Claim.parse(data, stat);
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (Exception e) {
      throw failure("reading the claim of worker id " + id, e);
    }
  }

  private List<String> children(String path) {
    try {
      return client.getChildren().forPath(path);
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
    return new GeneIdException("the worker-id lease store, " + description + ", failed " + what + " for space '"
        + space + "': " + e, e);
  }

  private static long idOf(String child) {
    try {
      return Long.parseLong(child);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Map<String, String> fields(byte[] data) {
    Map<String, String> f = new LinkedHashMap<>();
    String text = new String(data, StandardCharsets.UTF_8);
    int ownerAt = text.indexOf("owner=");
    String head = ownerAt < 0 ? text : text.substring(0, ownerAt);
    for (String part : head.split(";")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        f.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    if (ownerAt >= 0) {
      f.put("owner", text.substring(ownerAt + "owner=".length())); // the holder name may hold any character
    }
    return f;
  }

  private static long num(@Nullable String text) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** A worker id's node: its high-water mark, {@code held} or {@code released}, and its last holder. */
  private static byte[] record(long mark, String state, String holder) {
    return bytes("mark=" + mark + ";state=" + state + ";owner=" + holder);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A random non-zero fencing token: never repeats across the store's history, whatever the store forgets. */
  static long newToken() {
    long token;
    do {
      token = RANDOM.nextLong();
    } while (token == 0);
    return token;
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
    if (ownsClient) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return "ZookeeperWorkerIdAssigner[space=" + space + ", pool=[" + minWorkerId + ", "
        + (maxWorkerId == Integer.MAX_VALUE ? "layout max" : maxWorkerId) + "], ttl=" + ttl + ", " + description
        + poolPath + "]";
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
