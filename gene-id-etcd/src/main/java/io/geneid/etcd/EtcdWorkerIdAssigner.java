package io.geneid.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.geneid.core.GeneIdException;
import io.geneid.core.lease.KeyValueLeases;
import io.geneid.core.lease.KeyValueWorkerIdAssigner;
import io.geneid.core.lease.LeaseAssignerBuilder;
import io.geneid.core.lease.LeaseKeyValueStore;
import io.geneid.core.lease.WorkerIdAssigners;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
 *   <li>{@code ids/<id>}, a key without an etcd lease per worker id ever granted: its high-water mark, its state
 *       ({@code held} or {@code released}) and the last holder. Durable: it outlives every holder;
 *   <li>{@code claims/<id>}, a key <b>attached to an etcd lease</b> granted for this holder (TTL: the lease TTL rounded
 *       up to whole seconds, one etcd lease per grant): the random fencing token and the holder's name. etcd deletes
 *       it when the etcd lease expires.
 * </ul>
 * A grant is one transaction that compares the claim's create revision with 0 (absent) and the worker id's key with
 * the revision read (0 for a worker id without a key), then writes both: two acquirers can never both get one worker
 * id. Which worker id, and with which previous mark, the core's lease protocol decides ({@link KeyValueLeases},
 * {@code LeasePlanner}): the lowest one without a key first, then the least recently used free one. A renewal reads
 * the claim (same token), keeps its etcd lease alive once ({@code LeaseKeepAlive}), and raises the mark in a
 * transaction that compares the claim's and the mark key's revisions. The generator's renewals are the keep-alives: there is
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
public final class EtcdWorkerIdAssigner extends KeyValueWorkerIdAssigner {

  private static final Logger LOG = LoggerFactory.getLogger(EtcdWorkerIdAssigner.class);

  /** Default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "/gene-id";

  private final long ttlSeconds;
  private final String base;
  private final String description;
  private final long timeoutMillis;
  private final Client client;
  private final boolean ownsClient;

  private EtcdWorkerIdAssigner(Builder b, WorkerIdAssigners.LeaseSettings lease) {
    super(lease);
    String space = lease.space();
    Duration ttl = lease.ttl();
    this.ttlSeconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
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
    open(new Keys(), Duration.ofSeconds(ttlSeconds), description);
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

  /** The prefix of this pool's keys. */
  public String keyPrefix() {
    return base;
  }

  // ------------------------------------------------------------------------------------------ leases

  /**
   * The pool's keys as the lease protocol's key-value store: {@code ids/<id>} are the records, {@code claims/<id>}
   * the claims, each on an etcd lease of its own that etcd deletes when it is not kept alive; versions are mod
   * revisions, and a grant, renewal or release is one etcd transaction. etcd has no clock of its own: times are this
   * process's.
   */
  private final class Keys implements LeaseKeyValueStore {

    @Override
    public long now() {
      return System.currentTimeMillis();
    }

    @Override
    public List<Entry> list(Kind kind) {
      String prefix = base + dir(kind);
      List<Entry> entries = new ArrayList<>();
      for (KeyValue kv : call("listing " + prefix, client.getKVClient().get(bytes(prefix),
          GetOption.builder().isPrefix(true).build())).getKvs()) {
        String key = kv.getKey().toString(StandardCharsets.UTF_8);
        try {
          entries.add(entry(Long.parseLong(key.substring(prefix.length())), kv));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
          // not a worker id's key
        }
      }
      return entries;
    }

    @Override
    public @Nullable Entry get(Kind kind, long id) {
      String key = where(kind, id);
      GetResponse r = call("reading " + key, client.getKVClient().get(bytes(key)));
      return r.getKvs().isEmpty() ? null : entry(id, r.getKvs().get(0));
    }

    @Override
    public long commit(List<Write> writes) {
      List<Cmp> conditions = new ArrayList<>();
      List<Op> ops = new ArrayList<>();
      long etcdLease = 0;
      for (Write w : writes) {
        ByteSequence key = bytes(where(w.kind(), w.id()));
        if (w instanceof Create c) {
          conditions.add(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)));
          PutOption put = PutOption.DEFAULT;
          if (c.kind() == Kind.CLAIM) {
            etcdLease = call("granting an etcd lease", client.getLeaseClient().grant(ttlSeconds)).getID();
            put = PutOption.builder().withLeaseId(etcdLease).build();
          }
          ops.add(Op.put(key, bytes(c.value()), put));
        } else if (w instanceof Put p) {
          conditions.add(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(p.version())));
          ops.add(Op.put(key, bytes(p.value()), PutOption.DEFAULT));
        } else if (w instanceof Touch t) {
          conditions.add(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(t.version())));
        } else if (w instanceof Delete d) {
          conditions.add(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(d.version())));
          ops.add(Op.delete(key, DeleteOption.DEFAULT));
        }
      }
      boolean done = false;
      try {
        done = call("writing worker id " + writes.get(0).id(), client.getKVClient().txn()
            .If(conditions.toArray(Cmp[]::new)).Then(ops.toArray(Op[]::new)).commit()).isSucceeded();
      } finally {
        if (!done && etcdLease != 0) {
          revokeQuietly(etcdLease);
        }
      }
      return done ? 0 : -1;
    }

    /** Never: etcd deletes a claim whose etcd lease expired. */
    @Override
    public long expiresAt(Entry claim) {
      return Long.MAX_VALUE;
    }

    @Override
    public String describeExpiry(Entry claim) {
      return expiry(claim.session());
    }

    @Override
    public long keepAlive(Entry claim) {
      long sent = System.currentTimeMillis();
      LeaseKeepAliveResponse r;
      try {
        r = call("keeping the etcd lease of worker id " + claim.id() + " alive",
            client.getLeaseClient().keepAliveOnce(claim.session()));
      } catch (GeneIdException e) {
        if (String.valueOf(e.getMessage()).contains("lease not found")) {
          throw new Gone("its etcd lease " + Long.toHexString(claim.session()) + " expired");
        }
        throw e;
      }
      if (r.getTTL() <= 0) {
        throw new Gone("its etcd lease " + Long.toHexString(claim.session()) + " expired");
      }
      return sent + r.getTTL() * 1000;
    }

    @Override
    public void released(Entry claim) {
      revokeQuietly(claim.session());
    }

    @Override
    public String where(Kind kind, long id) {
      return base + dir(kind) + id;
    }

    private String dir(Kind kind) {
      return kind == Kind.RECORD ? "ids/" : "claims/";
    }

    private Entry entry(long id, KeyValue kv) {
      return new Entry(id, kv.getValue().toString(StandardCharsets.UTF_8), kv.getModRevision(), kv.getModRevision(),
          kv.getLease());
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
          + timeoutMillis + " ms " + what + " for space '" + space() + "'", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new GeneIdException("the worker-id lease store, " + description + ", failed " + what + " for space '"
          + space() + "': " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(true);
      throw new GeneIdException("interrupted while " + what + " at " + description);
    }
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return super.toString() + ", keys " + base;
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
