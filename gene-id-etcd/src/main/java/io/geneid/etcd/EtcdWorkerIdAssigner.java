package io.geneid.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker-id leases in etcd (v3 API), through jetcd.
 *
 * <h2>Data</h2>
 * Per pool ({@code space}), under {@code <key prefix>/leases/<space>/}:
 * <ul>
 *   <li>{@code ids/<id>}, a key without an etcd lease per worker id ever granted: its high-water mark, its state
 *       ({@code held} or {@code released}) and the last holder. Durable: it outlives every holder;
 *   <li>{@code claims/<id>}, a key <b>attached to an etcd lease</b> granted for this holder (TTL: the lease TTL rounded
 *       up to whole seconds): the random fencing token, the etcd lease id and the holder's name. etcd deletes it when
 *       the etcd lease expires.
 * </ul>
 * A grant is one transaction that compares the claim's create revision with 0 (absent) and the worker id's key with
 * the revision read (0 for a worker id without a key), then writes both: two acquirers can never both get one worker
 * id. The least recently used free worker id comes first, then the lowest one without a key. A renewal reads the
 * claim (same token), keeps its etcd lease alive once ({@code LeaseKeepAlive}), and raises the mark in a transaction
 * that compares the claim's value and the mark key's revision. The generator's renewals are the keep-alives: there is
 * no second timer that could keep an etcd lease alive for a holder whose keeper has stopped. When keep-alives fail
 * (etcd down, unreachable, or the etcd lease gone) for longer than the TTL, the generator's deadline (95 % of the TTL
 * after the last renewal it sent) has fenced it, and etcd, which counts the TTL from the last keep-alive it received,
 * deletes the claim only after that. A renewal that finds the etcd lease expired or the claim gone or replaced is
 * refused, and the generator leases again.
 *
 * <h2>Fault model</h2>
 * <ul>
 *   <li><b>Tokens never repeat</b>: 64 random bits per grant, never a counter kept in etcd.
 *   <li><b>Every grant</b> starts above the recorded mark and, unless the last holder released the id with its exact
 *       mark, above now + the caller's borrowing bound. etcd has no clock of its own: times are the acquirer's.
 *   <li><b>Lost writes</b> (an etcd restored from a snapshot or a copy of its data directory, an operator's delete):
 *       etcd cannot tell, since a restored member keeps its cluster and member ids, so this assigner does not vouch
 *       for its history ({@link #vouchesForHistory()} is false): a worker id whose key or claim was lost looks free
 *       and is granted at once, and the lease protocol makes every new lease issue only above its expiry + the
 *       borrowing bound + 2 s, when any holder the store forgot has fenced itself (it renews meanwhile).
 *   <li><b>Silence</b>: every call has a timeout ({@link Builder#timeout(Duration)}), so a renewal never hangs past
 *       the lease.
 * </ul>
 * Every process of a pool should use the same worker-id range, TTL and borrowing bound.
 */
public final class EtcdWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(EtcdWorkerIdAssigner.class);

  /** Default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "/gene-id";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int RACES = 16;

  private final String space;
  private final long minWorkerId;
  private final long maxWorkerId;
  private final Duration ttl;
  private final long ttlSeconds;
  private final Duration acquireTimeout;
  private final String owner;
  private final String base;
  private final String description;
  private final long timeoutMillis;
  private final Client client;
  private final boolean ownsClient;

  private EtcdWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease) {
    this.space = lease.space();
    this.minWorkerId = lease.minWorkerId();
    this.maxWorkerId = lease.maxWorkerId();
    this.ttl = lease.ttl();
    this.ttlSeconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
    this.acquireTimeout = lease.acquireTimeout();
    this.owner = lease.owner();
    this.base = b.keyPrefix + "/leases/" + space + "/";
    this.timeoutMillis = b.timeout != null ? b.timeout.toMillis() : Math.max(100, Math.min(ttl.toMillis() / 3, 5_000));
    if (b.client != null) {
      this.client = b.client;
      this.ownsClient = false;
      this.description = "etcd (a client handed in)";
    } else {
      List<String> endpoints = Objects.requireNonNull(b.endpoints, "endpoints");
      this.description = "etcd at " + String.join(",", endpoints);
      ClientBuilder cb = Client.builder()
          .endpoints(endpoints.toArray(String[]::new))
          .connectTimeout(Duration.ofMillis(Math.max(timeoutMillis, 1_000)))
          // give up on a call well within the TTL: the keeper retries renewals itself
          .retryMaxDuration(Duration.ofMillis(timeoutMillis))
          .retryDelay(Math.min(100, timeoutMillis / 4))
          .retryMaxDelay(Math.min(500, timeoutMillis))
          .keepaliveTime(Duration.ofSeconds(10))
          .keepaliveTimeout(Duration.ofMillis(Math.max(timeoutMillis, 1_000)));
      if (b.username != null) {
        cb.user(bytes(b.username)).password(bytes(Objects.requireNonNullElse(b.password, "")));
      }
      this.client = cb.build();
      this.ownsClient = true;
    }
    try {
      // the first call also opens the channel: it may take longer than later ones
      call("reaching the store", client.getKVClient().get(bytes(base)), Math.max(timeoutMillis, 5_000));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** A builder; {@link Builder#endpoints(String)} or {@link Builder#client(Client)} is required. */
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

  /** The prefix of this pool's keys. */
  public String keyPrefix() {
    return base;
  }

  // ------------------------------------------------------------------------------------------ acquire

  private record IdRecord(long id, long mark, String state, long modRevision) {}

  private record Claim(long token, String holder, long lease, ByteSequence value) {}

  private record Option(long workerId, long previousMark, long lastUsed, @Nullable IdRecord record) {}

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    long[] range = WorkerIdAssigners.poolRange(space, minWorkerId, maxWorkerId, layoutMaxWorkerId);
    long slack = Math.max(0, borrowSlack.toMillis());
    long deadline = System.nanoTime() + acquireTimeout.toNanos();
    long etcdLease = 0; // granted once per acquisition, kept across lost races, revoked if unused
    try {
    for (int races = 0; ; ) {
      long now = System.currentTimeMillis();
      Map<Long, IdRecord> records = new HashMap<>();
      for (KeyValue kv : prefix("ids/")) {
        long id = idOf(kv, "ids/");
        if (id >= range[0] && id <= range[1]) {
          Map<String, String> f = fields(kv.getValue());
          records.put(id, new IdRecord(id, num(f.get("mark")), f.getOrDefault("state", "unknown"),
              kv.getModRevision()));
        }
      }
      Map<Long, Claim> claims = new HashMap<>();
      for (KeyValue kv : prefix("claims/")) {
        long id = idOf(kv, "claims/");
        if (id >= range[0] && id <= range[1]) {
          claims.put(id, claim(kv));
        }
      }
      List<Option> options = new ArrayList<>();
      for (IdRecord r : records.values()) {
        if (!claims.containsKey(r.id())) {
          // a released id carries its holder's exact mark; one whose etcd lease expired, at least now + slack
          long previous = "released".equals(r.state()) ? r.mark() : Math.max(r.mark(), now + slack);
          options.add(new Option(r.id(), previous, r.modRevision(), r));
        }
      }
      options.sort(Comparator.comparingLong(Option::lastUsed).thenComparingLong(Option::workerId));
      // then the lowest worker id without a key: never granted, or its key lost (nobody's mark is known)
      long fresh = range[0];
      while (records.containsKey(fresh) || claims.containsKey(fresh)) {
        fresh++;
      }
      if (fresh <= range[1]) {
        options.add(new Option(fresh, 0, Long.MAX_VALUE, null));
      }
      boolean raced = false;
      if (!options.isEmpty() && etcdLease == 0) {
        etcdLease = call("granting an etcd lease", client.getLeaseClient().grant(ttlSeconds)).getID();
      }
      for (Option o : options) {
        WorkerLease lease = o.record() == null
            ? grantFresh(o, range[1], id -> records.containsKey(id) || claims.containsKey(id), now, etcdLease)
            : grant(o, now, etcdLease);
        if (lease != null) {
          etcdLease = 0;
          LOG.debug("acquired worker id {} of space '{}' at {}; previous holder's mark {}", lease.workerId(), space,
              description, lease.previousHighWaterMark());
          return lease;
        }
        raced = true;
      }
      if (raced && ++races < RACES) {
        continue;
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        List<String> shown = new ArrayList<>();
        for (Map.Entry<Long, Claim> c : new java.util.TreeMap<>(claims).entrySet()) {
          shown.add(c.getKey() + " by " + c.getValue().holder() + " until " + expiry(c.getValue().lease()));
        }
        throw new WorkerIdExhaustedException(space, range[0], range[1], shown, " in " + description
            + " after waiting " + acquireTimeout.toMillis() + " ms");
      }
      races = 0;
      if (etcdLease != 0) { // do not keep an etcd lease alive only by waiting: a new one for the next try
        revokeQuietly(etcdLease);
        etcdLease = 0;
      }
      WorkerIdAssigners.pauseBeforeRetry(space, ttl, remaining);
    }
    } finally {
      if (etcdLease != 0) {
        revokeQuietly(etcdLease);
      }
    }
  }

  /** When the etcd lease {@code lease} expires if not kept alive, by this process's clock. */
  private String expiry(long lease) {
    try {
      long left = call("reading an etcd lease", client.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT))
          .getTTL();
      return left < 0 ? "now" : Instant.ofEpochMilli(System.currentTimeMillis() + left * 1000).toString();
    } catch (GeneIdException e) {
      return "unknown";
    }
  }

  /**
   * Grants a worker id without a key, starting with {@code o}: when another acquirer took it first, the next one up
   * that was free when read is tried at once, without reading the whole pool again. Null if none is left.
   */
  private @Nullable WorkerLease grantFresh(Option o, long max, LongPredicate taken, long now, long etcdLease) {
    int tries = 0;
    for (long id = o.workerId(); id <= max && tries < RACES * 4; id++) {
      if (!taken.test(id)) {
        tries++;
        WorkerLease lease = grant(new Option(id, o.previousMark(), o.lastUsed(), null), now, etcdLease);
        if (lease != null) {
          return lease;
        }
      }
    }
    return null;
  }

  /**
   * Grants {@code o} in one transaction: its claim (absent before) on {@code etcdLease} and its worker id's key
   * (absent, or unchanged since read). Null if another acquirer changed either first.
   */
  private @Nullable WorkerLease grant(Option o, long now, long etcdLease) {
    long token = newToken();
    String id = Long.toString(o.workerId());
    ByteSequence claimKey = bytes(base + "claims/" + id);
    ByteSequence idKey = bytes(base + "ids/" + id);
    TxnResponse r = call("granting worker id " + id, client.getKVClient().txn()
        .If(new Cmp(claimKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
            o.record() == null ? new Cmp(idKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                : new Cmp(idKey, Cmp.Op.EQUAL, CmpTarget.modRevision(o.record().modRevision())))
        .Then(Op.put(claimKey, claimValue(token, etcdLease, owner), PutOption.builder().withLeaseId(etcdLease).build()),
            Op.put(idKey, record(o.previousMark(), "held", owner), PutOption.DEFAULT))
        .commit());
    return r.isSucceeded() ? new WorkerLease(space, o.workerId(), token, owner, Instant.ofEpochMilli(o.previousMark()),
        Instant.ofEpochMilli(o.previousMark()), Instant.ofEpochMilli(now + ttlSeconds * 1000)) : null;
  }

  // ------------------------------------------------------------------------------------------ renew, release

  @Override
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    String id = Long.toString(lease.workerId());
    for (int races = 0; ; races++) {
      long sent = System.currentTimeMillis();
      Claim claim = ownClaim(lease);
      long left = keepAlive(lease, claim.lease());
      KeyValue kv = one(base + "ids/" + id);
      if (kv == null) {
        throw lost(lease, "its key " + base + "ids/" + id + " is gone (deleted, or the store lost data)");
      }
      Map<String, String> f = fields(kv.getValue());
      long mark = Math.max(num(f.get("mark")), highWaterMark.toEpochMilli());
      ByteSequence claimKey = bytes(base + "claims/" + id);
      TxnResponse r = call("renewing worker id " + id, client.getKVClient().txn()
          .If(new Cmp(claimKey, Cmp.Op.EQUAL, CmpTarget.value(claim.value())),
              new Cmp(bytes(base + "ids/" + id), Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision())))
          .Then(Op.put(bytes(base + "ids/" + id), record(mark, "held", lease.owner()), PutOption.DEFAULT))
          .commit());
      if (r.isSucceeded()) {
        return lease.renewed(Instant.ofEpochMilli(mark), Instant.ofEpochMilli(sent + left * 1000));
      }
      if (races >= RACES) {
        throw new GeneIdException("renewing worker id " + id + " of space '" + space + "' at " + description
            + " kept losing races");
      }
    }
  }

  /** Keeps the etcd lease of a claim alive once; its TTL left in seconds. */
  private long keepAlive(WorkerLease lease, long etcdLease) {
    LeaseKeepAliveResponse r;
    try {
      r = call("keeping the etcd lease of worker id " + lease.workerId() + " alive",
          client.getLeaseClient().keepAliveOnce(etcdLease));
    } catch (GeneIdException e) {
      if (String.valueOf(e.getMessage()).contains("lease not found")) {
        throw lost(lease, "its etcd lease " + Long.toHexString(etcdLease) + " expired");
      }
      throw e;
    }
    if (r.getTTL() <= 0) {
      throw lost(lease, "its etcd lease " + Long.toHexString(etcdLease) + " expired");
    }
    return r.getTTL();
  }

  @Override
  public void release(WorkerLease lease, Instant highWaterMark) {
    String id = Long.toString(lease.workerId());
    Claim claim;
    try {
      claim = ownClaim(lease);
    } catch (WorkerLeaseLostException e) {
      LOG.warn("worker id {} of space '{}' at {} was not released: {}", lease.workerId(), space, description,
          e.getMessage());
      return;
    }
    ByteSequence claimKey = bytes(base + "claims/" + id);
    TxnResponse r = call("releasing worker id " + id, client.getKVClient().txn()
        .If(new Cmp(claimKey, Cmp.Op.EQUAL, CmpTarget.value(claim.value())))
        .Then(Op.delete(claimKey, io.etcd.jetcd.options.DeleteOption.DEFAULT),
            Op.put(bytes(base + "ids/" + id), record(highWaterMark.toEpochMilli(), "released", lease.owner()),
                PutOption.DEFAULT))
        .commit());
    if (r.isSucceeded()) {
      revokeQuietly(claim.lease());
      LOG.debug("released worker id {} of space '{}' at {} with high-water mark {}", lease.workerId(), space,
          description, highWaterMark);
    } else {
      LOG.warn("worker id {} of space '{}' at {} was not released: it is no longer leased under token {}",
          lease.workerId(), space, description, lease.token());
    }
  }

  private Claim ownClaim(WorkerLease lease) {
    KeyValue kv = one(base + "claims/" + lease.workerId());
    if (kv == null) {
      throw lost(lease, "the store has no claim for it (released, or its etcd lease expired)");
    }
    Claim c = claim(kv);
    if (c.token() != lease.token()) {
      throw lost(lease, "it was taken over (token " + c.token() + ")");
    }
    return c;
  }

  private WorkerLeaseLostException lost(WorkerLease lease, String why) {
    return new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId() + " of space '"
        + space + "' is no longer leased under token " + lease.token() + " in " + description + ": " + why, null);
  }

  // ------------------------------------------------------------------------------------------ store access

  private @Nullable KeyValue one(String key) {
    GetResponse r = call("reading " + key, client.getKVClient().get(bytes(key)));
    return r.getKvs().isEmpty() ? null : r.getKvs().get(0);
  }

  private List<KeyValue> prefix(String sub) {
    return call("listing " + base + sub, client.getKVClient().get(bytes(base + sub),
        GetOption.builder().isPrefix(true).build())).getKvs();
  }

  private long idOf(KeyValue kv, String sub) {
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    try {
      return Long.parseLong(key.substring((base + sub).length()));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      return -1;
    }
  }

  private static Claim claim(KeyValue kv) {
    Map<String, String> f = fields(kv.getValue());
    return new Claim(num(f.get("token")), f.getOrDefault("owner", ""), kv.getLease(), kv.getValue());
  }

  /** A worker id's key: its high-water mark, {@code held} or {@code released}, and its last holder. */
  private static ByteSequence record(long mark, String state, String holder) {
    return bytes("mark=" + mark + ";state=" + state + ";owner=" + holder);
  }

  private static ByteSequence claimValue(long token, long etcdLease, String owner) {
    return bytes("token=" + token + ";lease=" + Long.toHexString(etcdLease) + ";owner=" + owner);
  }

  private void revokeQuietly(long etcdLease) {
    try {
      call("revoking an etcd lease", client.getLeaseClient().revoke(etcdLease));
    } catch (GeneIdException e) {
      LOG.debug("could not revoke etcd lease {} (it expires by itself): {}", Long.toHexString(etcdLease), e.toString());
    }
  }

  /** Waits for a call at most the timeout; every failure is a {@link GeneIdException} naming the store. */
  private <T> T call(String what, CompletableFuture<T> future) {
    return call(what, future, timeoutMillis);
  }

  private <T> T call(String what, CompletableFuture<T> future, long timeoutMillis) {
    try {
      return future.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new GeneIdException("the worker-id lease store, " + description + ", did not answer within "
          + timeoutMillis + " ms " + what + " for space '" + space + "'", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new GeneIdException("the worker-id lease store, " + description + ", failed " + what + " for space '"
          + space + "': " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      throw new GeneIdException("interrupted while " + what + " at " + description);
    }
  }

  private static Map<String, String> fields(ByteSequence value) {
    Map<String, String> f = new LinkedHashMap<>();
    String text = value.toString(StandardCharsets.UTF_8);
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

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }

  /** A random non-zero fencing token: never repeats across the store's history, whatever the store forgets. */
  static long newToken() {
    long token;
    do {
      token = RANDOM.nextLong();
    } while (token == 0);
    return token;
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return "EtcdWorkerIdAssigner[space=" + space + ", pool=[" + minWorkerId + ", "
        + (maxWorkerId == Integer.MAX_VALUE ? "layout max" : maxWorkerId) + "], ttl=" + ttl + ", " + description
        + ", keys " + base + "]";
  }

  /**
   * Configuration of an {@link EtcdWorkerIdAssigner}: the endpoints, credentials, timeout and key prefix here, the
   * pool's settings ({@code space}, {@code workerIds}, {@code ttl}, {@code acquireTimeout}, {@code owner}) in
   * {@link LeaseAssignerBuilder}.
   */
  public static final class Builder extends LeaseAssignerBuilder<Builder> {
    String keyPrefix = DEFAULT_KEY_PREFIX;
    @Nullable List<String> endpoints;
    @Nullable Client client;
    @Nullable Duration timeout;
    @Nullable String username;
    @Nullable String password;

    private Builder() {}

    /**
     * The members to talk to, comma-separated: {@code http://etcd1:2379,http://etcd2:2379}. Credentials go to
     * {@link #credentials(String, String)}, never into the endpoints.
     */
    public Builder endpoints(String endpoints) {
      this.endpoints = EtcdWorkerIdAssignerProvider.checkEndpoints(EtcdWorkerIdAssignerProvider.ENDPOINTS,
          Objects.requireNonNull(endpoints, "endpoints"));
      return this;
    }

    /** A jetcd client, not closed by the assigner; its calls are bounded by {@link #timeout(Duration)}. */
    public Builder client(Client client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** The first part of every key: {@code /} and segments of {@code A-Z a-z 0-9 . _ -}. Default {@code /gene-id}. */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = EtcdWorkerIdAssignerProvider.checkKeyPrefix(EtcdWorkerIdAssignerProvider.KEY_PREFIX,
          Objects.requireNonNull(keyPrefix, "keyPrefix"));
      return this;
    }

    /** The timeout of every call. In [100 ms, 1 min]. Default a third of the TTL, in [100 ms, 5 s]. */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() < 100 || timeout.toMillis() > 60_000) {
        throw new IllegalArgumentException(EtcdWorkerIdAssignerProvider.TIMEOUT + " must be in [100ms, 60000ms] but "
            + "was " + timeout.toMillis() + "ms");
      }
      this.timeout = timeout;
      return this;
    }

    /** etcd user and password (etcd's own authentication); never printed. */
    public Builder credentials(String username, String password) {
      this.username = Objects.requireNonNull(username, "username");
      this.password = Objects.requireNonNull(password, "password");
      return this;
    }

    /**
     * Connects (when given endpoints) and reads the pool once.
     *
     * @throws GeneIdException if etcd cannot be reached
     */
    public EtcdWorkerIdAssigner build() {
      WorkerIdAssigners.LeaseSettings lease = leaseSettings();
      if (endpoints == null && client == null) {
        throw new IllegalArgumentException("etcd endpoints (" + EtcdWorkerIdAssignerProvider.ENDPOINTS
            + ") or a jetcd client is required");
      }
      return new EtcdWorkerIdAssigner(this, lease);
    }
  }
}
