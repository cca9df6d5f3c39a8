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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Worker-id leases in etcd (v3 API), through jetcd.
 *
 * <h2>Data</h2>
 * Per pool ({@code space}), under {@code <key prefix>/leases/<space>/}:
 * <ul>
 *   <li>{@code pool}: {@code gen} (a random id of the pool's generation), {@code born} (when it started) and
 *       {@code next} (the lowest worker id never granted in it);
 *   <li>{@code ids/<id>}, a key without an etcd lease per worker id ever granted: its high-water mark, its state
 *       ({@code held}, {@code released}, or {@code unknown} with the instant it becomes usable), the generation it was
 *       written in and the last holder. Durable: it outlives every holder;
 *   <li>{@code claims/<id>}, a key <b>attached to an etcd lease</b> granted for this holder (TTL: the lease TTL rounded
 *       up to whole seconds): the random fencing token, the etcd lease id and the holder's name. etcd deletes it when
 *       the etcd lease expires.
 * </ul>
 * A grant is one transaction that compares the claim's create revision with 0 (absent) and the worker id's key (or,
 * for a worker id never granted, the pool key) with the revision read, then writes them: two acquirers can never
 * both get one worker id. A renewal reads the claim (same token), keeps its etcd lease alive once
 * ({@code LeaseKeepAlive}), and raises the mark in a transaction that compares the claim's value and the mark key's
 * revision. The generator's renewals are the keep-alives: there is no second timer that could keep an etcd lease
 * alive for a holder whose keeper has stopped. When keep-alives fail (etcd down, unreachable, or the etcd lease gone)
 * for longer than the TTL, the generator's deadline (95 % of the TTL after the last renewal it sent) has fenced it,
 * and etcd, which counts the TTL from the last keep-alive it received, deletes the claim only after that. A renewal
 * that finds the etcd lease expired or the claim gone or replaced is refused, and the generator leases again.
 *
 * <h2>Fault model</h2>
 * <ul>
 *   <li><b>Tokens never repeat</b>: 64 random bits per grant, never a counter kept in etcd.
 *   <li><b>Every grant</b> starts above the recorded mark and, unless the last holder released the id with its exact
 *       mark, above now + the caller's borrowing bound. etcd has no clock of its own: times are the acquirer's, and
 *       the 2 s clock margin covers skew between processes.
 *   <li><b>Lost records</b> (an operator's delete, a restore from an older snapshot): a missing pool key starts a new
 *       generation whose worker ids are granted only {@code wait} (one TTL + the borrowing bound + 2 s) after it was
 *       born; a worker id below {@code next} without a key gets the same wait from when it was noticed. So the first
 *       start of a new pool waits once ({@code lease-acquire-timeout} is extended to cover it).
 *   <li><b>Silence</b>: every call has a timeout ({@link Builder#timeout(Duration)}), so a renewal never hangs past
 *       the lease.
 * </ul>
 * Every process of a pool should use the same worker-id range, TTL and borrowing bound.
 */
public final class EtcdWorkerIdAssigner implements WorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(EtcdWorkerIdAssigner.class);

  /** Default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "/gene-id";
  /** The clock-skew margin of the wait for worker ids of unknown history (beyond one TTL and the borrowing bound). */
  static final Duration UNKNOWN_HISTORY_MARGIN = Duration.ofSeconds(2);
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
      call("reaching the store", client.getKVClient().get(bytes(base + "pool")), Math.max(timeoutMillis, 5_000));
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

  private record IdRecord(long id, long mark, String state, long usable, String gen, long modRevision) {}

  private record Claim(long token, String holder, long lease, ByteSequence value) {}

  private record Pool(String gen, long born, long next, long modRevision) {}

  private record Option(long workerId, long previousMark, long lastUsed, @Nullable IdRecord record) {}

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    long[] range = WorkerIdAssigners.poolRange(space, minWorkerId, maxWorkerId, layoutMaxWorkerId);
    long slack = Math.max(0, borrowSlack.toMillis());
    long wait = ttl.toMillis() + slack + UNKNOWN_HISTORY_MARGIN.toMillis();
    long deadline = System.nanoTime() + acquireTimeout.toNanos();
    boolean told = false;
    long etcdLease = 0; // granted once per acquisition, kept across lost races, revoked if unused
    try {
    for (int races = 0; ; ) {
      long sent = System.nanoTime();
      long now = System.currentTimeMillis();
      Pool pool = pool(now);
      Map<Long, IdRecord> records = new HashMap<>();
      for (KeyValue kv : prefix("ids/")) {
        long id = idOf(kv, "ids/");
        if (id >= range[0] && id <= range[1]) {
          Map<String, String> f = fields(kv.getValue());
          records.put(id, new IdRecord(id, num(f.get("mark")), f.getOrDefault("state", "unknown"),
              num(f.get("usable")), f.getOrDefault("gen", ""), kv.getModRevision()));
        }
      }
      Map<Long, Claim> claims = new HashMap<>();
      for (KeyValue kv : prefix("claims/")) {
        long id = idOf(kv, "claims/");
        if (id >= range[0] && id <= range[1]) {
          claims.put(id, claim(kv));
        }
      }
      long unknownFree = 0;
      List<Option> options = new ArrayList<>();
      Map<Long, String> holders = new java.util.TreeMap<>();
      for (Map.Entry<Long, Claim> e : claims.entrySet()) {
        holders.put(e.getKey(), e.getValue().holder());
      }
      for (IdRecord r : records.values()) {
        if (claims.containsKey(r.id())) {
          continue;
        }
        long usable = "unknown".equals(r.state()) ? r.usable() : 0;
        if (!r.gen().equals(pool.gen())) {
          usable = Math.max(usable, pool.born() + wait);
        }
        if (now < usable) {
          unknownFree = unknownFree == 0 ? usable : Math.min(unknownFree, usable);
          continue;
        }
        // a released id carries its holder's exact mark; one whose etcd lease expired, at least now + slack
        long previous = "released".equals(r.state()) && usable == 0 ? r.mark()
            : Math.max(r.mark(), now + slack);
        options.add(new Option(r.id(), previous, r.modRevision(), r));
      }
      options.sort(Comparator.comparingLong(Option::lastUsed).thenComparingLong(Option::workerId));
      for (long id = range[0]; id < Math.min(pool.next(), range[1] + 1); id++) {
        if (!records.containsKey(id) && !claims.containsKey(id)) {
          noteUnknown(id, now + wait, pool.gen()); // granted once and nothing about it survives
          unknownFree = unknownFree == 0 ? now + wait : Math.min(unknownFree, now + wait);
        }
      }
      long fresh = Math.max(pool.next(), range[0]);
      while (records.containsKey(fresh) || claims.containsKey(fresh)) {
        fresh++;
      }
      if (fresh <= range[1]) {
        long usable = pool.born() + wait;
        if (now >= usable) {
          options.add(new Option(fresh, usable, Long.MAX_VALUE, null));
        } else {
          unknownFree = unknownFree == 0 ? usable : Math.min(unknownFree, usable);
        }
      }
      boolean raced = false;
      if (!options.isEmpty() && etcdLease == 0) {
        etcdLease = call("granting an etcd lease", client.getLeaseClient().grant(ttlSeconds)).getID();
      }
      for (Option o : options) {
        WorkerLease lease = o.record() == null ? grantFresh(o, pool, range[1], now, etcdLease)
            : grant(o, pool, now, etcdLease);
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
      if (unknownFree > 0 && !acquireTimeout.isZero()) {
        deadline = Math.max(deadline, sent + TimeUnit.MILLISECONDS.toNanos(unknownFree - now + 50));
        if (!told) {
          told = true;
          LOG.info("worker ids of space '{}' at {} have no known history since {} (a new pool, or the store lost "
              + "keys): they become usable at {}, one TTL ({}) + {} ms borrowing + {} ms clock margin later, when "
              + "any earlier holder must have stopped; waiting", space, description, Instant.ofEpochMilli(pool.born()),
              Instant.ofEpochMilli(unknownFree), ttl, slack, UNKNOWN_HISTORY_MARGIN.toMillis());
        }
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        List<String> shown = new ArrayList<>();
        for (Map.Entry<Long, String> h : holders.entrySet()) {
          Claim c = claims.get(h.getKey());
          shown.add(h.getKey() + " by " + h.getValue() + " until " + expiry(c.lease()));
        }
        String detail = unknownFree == 0 ? "" : " (worker ids without a known history, in a new pool or one whose "
            + "keys were lost, become usable at " + Instant.ofEpochMilli(unknownFree) + ")";
        throw new WorkerIdExhaustedException(space, range[0], range[1], shown, detail + " in " + description
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
   * Grants a worker id never granted, starting with {@code o}: when another acquirer took it first, the next one
   * after the pool's new {@code next} (read in the same transaction) is tried at once, without reading the whole pool
   * again. Null if none is left or the pool changed generation.
   */
  private @Nullable WorkerLease grantFresh(Option o, Pool pool, long max, long now, long etcdLease) {
    Option next = o;
    Pool seen = pool;
    for (int races = 0; races < RACES * 4; races++) {
      long token = newToken();
      TxnResponse r = grantTxn(next, seen, token, etcdLease, true);
      if (r.isSucceeded()) {
        return leaseOf(next, token, now);
      }
      List<KeyValue> kvs = r.getGetResponses().isEmpty() ? List.of() : r.getGetResponses().get(0).getKvs();
      Map<String, String> f = kvs.isEmpty() ? Map.of() : fields(kvs.get(0).getValue());
      if (!seen.gen().equals(f.get("gen"))) {
        return null; // a new generation: look at everything again
      }
      boolean poolMoved = kvs.get(0).getModRevision() != seen.modRevision();
      seen = new Pool(seen.gen(), seen.born(), num(f.get("next")), kvs.get(0).getModRevision());
      // the pool moved on (another grant, or the pool was read before the records that made this id look next):
      // try its next id, which may be this one; only an id refused under an unchanged pool is skipped. Skipping
      // one here left it below next with no record: an id of unknown history, idle for a TTL and the margins
      long id = poolMoved ? Math.max(seen.next(), next.workerId()) : next.workerId() + 1;
      if (id > max) {
        return null;
      }
      next = new Option(id, next.previousMark(), Long.MAX_VALUE, null);
    }
    return null;
  }

  /** Grants {@code o} in one transaction; null if another acquirer changed something first. */
  private @Nullable WorkerLease grant(Option o, Pool pool, long now, long etcdLease) {
    long token = newToken();
    return grantTxn(o, pool, token, etcdLease, false).isSucceeded() ? leaseOf(o, token, now) : null;
  }

  private WorkerLease leaseOf(Option o, long token, long now) {
    return new WorkerLease(space, o.workerId(), token, owner, Instant.ofEpochMilli(o.previousMark()),
        Instant.ofEpochMilli(o.previousMark()), Instant.ofEpochMilli(now + ttlSeconds * 1000));
  }

  /**
   * One grant transaction: the claim (absent before) on {@code etcdLease}, the worker id's key, and for a worker id
   * never granted the pool's {@code next}, each compared with what was read.
   */
  private TxnResponse grantTxn(Option o, Pool pool, long token, long etcdLease, boolean elseReadPool) {
    String id = Long.toString(o.workerId());
    ByteSequence claimKey = bytes(base + "claims/" + id);
    ByteSequence idKey = bytes(base + "ids/" + id);
    ByteSequence poolKey = bytes(base + "pool");
    ByteSequence record = bytes("mark=" + o.previousMark() + ";state=held;usable=0;gen=" + pool.gen() + ";owner="
        + owner);
    List<Cmp> ifs = new ArrayList<>();
    List<Op> thens = new ArrayList<>();
    ifs.add(new Cmp(claimKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)));
    thens.add(Op.put(claimKey, claimValue(token, etcdLease, owner),
        PutOption.builder().withLeaseId(etcdLease).build()));
    thens.add(Op.put(idKey, record, PutOption.DEFAULT));
    if (o.record() == null) {
      ifs.add(new Cmp(idKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)));
      ifs.add(new Cmp(poolKey, Cmp.Op.EQUAL, CmpTarget.modRevision(pool.modRevision())));
      thens.add(Op.put(poolKey, bytes("gen=" + pool.gen() + ";born=" + pool.born() + ";next=" + (o.workerId() + 1)),
          PutOption.DEFAULT));
    } else {
      ifs.add(new Cmp(idKey, Cmp.Op.EQUAL, CmpTarget.modRevision(o.record().modRevision())));
    }
    Op[] elses = elseReadPool ? new Op[] {Op.get(poolKey, GetOption.DEFAULT)} : new Op[0];
    return call("granting worker id " + id, client.getKVClient().txn().If(ifs.toArray(Cmp[]::new))
        .Then(thens.toArray(Op[]::new)).Else(elses).commit());
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
          .Then(Op.put(bytes(base + "ids/" + id), bytes("mark=" + mark + ";state=held;usable=0;gen="
              + f.getOrDefault("gen", "") + ";owner=" + lease.owner()), PutOption.DEFAULT))
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
    KeyValue kv = one(base + "ids/" + id);
    String gen = kv == null ? "" : fields(kv.getValue()).getOrDefault("gen", "");
    ByteSequence claimKey = bytes(base + "claims/" + id);
    TxnResponse r = call("releasing worker id " + id, client.getKVClient().txn()
        .If(new Cmp(claimKey, Cmp.Op.EQUAL, CmpTarget.value(claim.value())))
        .Then(Op.delete(claimKey, io.etcd.jetcd.options.DeleteOption.DEFAULT),
            Op.put(bytes(base + "ids/" + id), bytes("mark=" + highWaterMark.toEpochMilli()
                + ";state=released;usable=0;gen=" + gen + ";owner=" + lease.owner()), PutOption.DEFAULT))
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

  private Pool pool(long now) {
    ByteSequence key = bytes(base + "pool");
    for (int races = 0; ; races++) {
      KeyValue kv = one(base + "pool");
      Map<String, String> f = kv == null ? Map.of() : fields(kv.getValue());
      if (f.containsKey("gen") && f.containsKey("born") && f.containsKey("next")) {
        return new Pool(f.get("gen"), num(f.get("born")), num(f.get("next")), kv.getModRevision());
      }
      String gen = String.format("%016x", RANDOM.nextLong());
      long next = num(f.get("next"));
      TxnResponse r = call("starting the pool", client.getKVClient().txn()
          .If(kv == null ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
              : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision())))
          .Then(Op.put(key, bytes("gen=" + gen + ";born=" + now + ";next=" + next), PutOption.DEFAULT))
          .commit());
      if (r.isSucceeded()) {
        LOG.info("space '{}' at {} starts a new generation {} (a new pool, or its pool key was lost)", space,
            description, gen);
        continue; // read it back with its revision
      }
      if (races >= RACES) {
        throw new GeneIdException("starting the pool of space '" + space + "' at " + description
            + " kept losing races");
      }
    }
  }

  private void noteUnknown(long id, long usable, String gen) {
    ByteSequence key = bytes(base + "ids/" + id);
    TxnResponse r = call("recording worker id " + id + " as of unknown history", client.getKVClient().txn()
        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
        .Then(Op.put(key, bytes("mark=0;state=unknown;usable=" + usable + ";gen=" + gen + ";owner="),
            PutOption.DEFAULT))
        .commit());
    if (r.isSucceeded()) {
      LOG.warn("worker id {} of space '{}' at {} has no record although it was granted before: it is used again only "
          + "from {}, when any holder must have stopped", id, space, description, Instant.ofEpochMilli(usable));
    }
  }

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
