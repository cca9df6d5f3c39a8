package io.geneid.server;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.GeneRouting;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.segment.SegmentStores;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations of the API, the same for HTTP and gRPC: every method either answers or throws an
 * {@link ApiException} with the code and reason the client sees.
 */
final class IdService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IdService.class);
  private static final Pattern SEGMENT_KEY = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /** The parts of a decoded id. */
  record Decoded(long id, String timestampMillis, String timestamp, long workerId, long sequence, long gene) {}

  /** One key's segment state, for {@code GET /v1/segments}. */
  record SegmentState(String key, long step, long remaining, boolean nextReady) {}

  private final ServerConfig config;
  /** This server process, as /v1/info names it: a client tells one server under two addresses from two servers. */
  private final String instance = java.util.UUID.randomUUID().toString();
  private final GeneIdLayout layout;
  private final ServerMetrics metrics;
  private volatile @Nullable LeasedGeneGenerator generator;
  private volatile @Nullable String notReadyReason = "the worker id is not leased yet";
  private volatile boolean draining;
  private final Map<String, GeneSegmentGenerator> segments = new ConcurrentHashMap<>();
  private final Object segmentLock = new Object();
  private @Nullable SegmentStore segmentStore;
  private final Map<String, GeneIdStringFormat> formats = new ConcurrentHashMap<>();
  /** Keys created on first use (segment-create-keys), with when each was last used (System.nanoTime). */
  private final Map<String, java.util.concurrent.atomic.AtomicLong> createdKeys = new ConcurrentHashMap<>();
  /** How far the clock is behind the ids already issued, beyond what the generator borrows; 0 when it is not. */
  private volatile long behindMillis;
  private final long behindThresholdMillis;
  private final java.util.concurrent.ScheduledExecutorService watcher;

  IdService(ServerConfig config, ServerMetrics metrics) {
    this.config = config;
    this.layout = config.layout;
    this.metrics = metrics;
    long maxBorrow = 10;
    String b = config.leaseProperties.get(io.geneid.core.settings.SettingsReader.MAX_BORROW_MILLIS);
    if (b != null) {
      try {
        maxBorrow = Long.parseLong(b.trim());
      } catch (NumberFormatException checkedAlready) {
        // ServerConfig has refused it
      }
    }
    this.behindThresholdMillis = maxBorrow + 100;
    this.watcher = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gene-id-server-watch");
      t.setDaemon(true);
      return t;
    });
    watcher.scheduleWithFixedDelay(this::watch, 50, 50, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /**
   * Every 50 ms, off the request path: how far the clock is behind the ids issued (readiness, and id calls answer
   * 503 rather than wait), and closes created segment keys unused for segment-key-idle-timeout.
   */
  private void watch() {
    try {
      LeasedGeneGenerator g = generator;
      long debt = g == null ? 0 : g.stats().ids().borrowDebt().toMillis();
      behindMillis = debt > behindThresholdMillis ? debt : 0;
      expireIdleKeys();
    } catch (RuntimeException e) {
      LOG.warn("watching the generators failed: {}", e.toString());
    }
  }

  private void expireIdleKeys() {
    long now = System.nanoTime();
    long idle = config.segmentKeyIdleTimeout.toNanos();
    for (Map.Entry<String, java.util.concurrent.atomic.AtomicLong> e : createdKeys.entrySet()) {
      if (now - e.getValue().get() > idle) {
        synchronized (segmentLock) {
          if (now - e.getValue().get() <= idle || draining) {
            continue;
          }
          createdKeys.remove(e.getKey());
          GeneSegmentGenerator g = segments.remove(e.getKey());
          if (g != null) {
            metrics.unwatchSegment(g);
            try {
              g.close(); // the rest of its segment is a gap
            } catch (RuntimeException failed) {
              LOG.warn("closing idle segment key '{}': {}", e.getKey(), failed.toString());
            }
            LOG.info("segment key '{}' closed: created on first use and unused for {}", e.getKey(),
                config.segmentKeyIdleTimeout);
          }
        }
      }
    }
  }

  /** Whether the clock is behind the ids already issued by more than the generator borrows. */
  boolean clockBehind() {
    return behindMillis > 0;
  }

  String instance() {
    return instance;
  }

  GeneIdLayout layout() {
    return layout;
  }

  int maxCount() {
    return config.maxCount;
  }

  void leased(LeasedGeneGenerator generator) {
    // the clock's state first, so readiness is never UP for a moment on a server that starts behind its mark
    long debt = generator.stats().ids().borrowDebt().toMillis();
    behindMillis = debt > behindThresholdMillis ? debt : 0;
    this.generator = generator;
    this.notReadyReason = null;
    metrics.watchLease(generator);
  }

  void leaseFailed(String reason) {
    this.notReadyReason = reason;
  }

  void drain() {
    draining = true;
  }

  /** Null when ready, else why not. */
  @Nullable String notReady() {
    if (draining) {
      return "the server is shutting down";
    }
    LeasedGeneGenerator g = generator;
    if (g == null) {
      return notReadyReason;
    }
    if (!g.isIssuing()) {
      Throwable last = g.lastRenewalError();
      return "worker id lease lapsed (fenced); the server renews or leases again by itself"
          + (last == null ? "" : "; the store's last error: " + last.getMessage());
    }
    long behind = behindMillis;
    if (behind > 0) {
      return "the clock is " + behind + " ms behind the ids already issued (it stepped back, or the server "
          + "restarted after a clock rollback); ids are issued again once it has caught up";
    }
    return null;
  }

  /** Throws the 503 of {@link #notReady()}, with a Retry-After of the time the clock needs, 1 to 60 s. */
  private void checkReady() {
    String why = notReady();
    if (why != null) {
      long behind = behindMillis;
      throw new ApiException(ErrorCode.UNAVAILABLE, unavailable(why).reason(),
          behind > 0 ? (int) Math.min(60, Math.max(1, (behind + 999) / 1000)) : 1);
    }
  }

  long workerId() {
    LeasedGeneGenerator g = generator;
    return g == null ? -1 : g.workerId();
  }

  int checkCount(long count) {
    if (count < 1 || count > config.maxCount) {
      throw ApiException.invalid("count must be in [1, " + config.maxCount + "] but was " + count);
    }
    return (int) count;
  }

  // ---------------------------------------------------------------- snowflake ids

  long[] nextIds(@Nullable ParentKey parent, int count) {
    LeasedGeneGenerator g = generator;
    checkReady();
    if (g == null) {
      throw unavailable(notReady());
    }
    try {
      return parent == null ? g.nextIds(count) : g.nextIdsFor(parent.gene(), count);
    } catch (GeneIdException e) {
      throw unavailable(e.getMessage());
    }
  }

  String[] nextStrings(@Nullable ParentKey parent, int count, String prefix, boolean date) {
    GeneIdStringFormat format = format(prefix, date);
    long[] ids = nextIds(parent, count);
    String[] out = new String[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = format.format(ids[i]);
    }
    return out;
  }

  GeneIdStringFormat format(String prefix, boolean date) {
    String key = (date ? "1" : "0") + prefix;
    GeneIdStringFormat f = formats.get(key);
    if (f == null) {
      try {
        GeneIdStringFormat.Builder b = GeneIdStringFormat.builder().prefix(prefix);
        if (date) {
          b.date(layout);
        }
        f = b.build();
      } catch (IllegalArgumentException e) {
        throw ApiException.invalid(e.getMessage());
      }
      if (formats.size() < 10_000) {
        formats.put(key, f);
      }
    }
    return f;
  }

  // ---------------------------------------------------------------- segment ids

  long[] nextSegmentIds(String key, @Nullable ParentKey parent, int count) {
    checkReady(); // one readiness for both kinds of ids
    GeneSegmentGenerator g = segment(key);
    try {
      return parent == null ? g.nextIds(count) : g.nextIdsFor(parent.gene(), count);
    } catch (GeneIdException e) {
      throw unavailable(e.getMessage());
    }
  }

  private GeneSegmentGenerator segment(String key) {
    GeneSegmentGenerator g = segments.get(key);
    if (g != null) {
      java.util.concurrent.atomic.AtomicLong used = createdKeys.get(key);
      if (used != null) {
        used.set(System.nanoTime());
      }
      return g;
    }
    if (!SEGMENT_KEY.matcher(key).matches()) {
      throw ApiException.invalid("segment key must be 1 to 128 of A-Z a-z 0-9 . _ - : but was '"
          + ParentKey.clip(key) + "'");
    }
    if (!config.segmentKeys.contains(key) && !config.segmentCreateKeys) {
      throw new ApiException(ErrorCode.UNKNOWN_KEY, "segment key '" + key + "' is not configured; configured keys: "
          + new java.util.TreeSet<>(config.segmentKeys)
          + " (set segment-keys, or segment-create-keys=true to serve any key)");
    }
    synchronized (segmentLock) {
      g = segments.get(key);
      if (g != null) {
        return g;
      }
      if (segments.size() >= config.segmentMaxKeys) {
        throw new ApiException(ErrorCode.UNKNOWN_KEY, "segment key '" + key + "' would be key number "
            + (segments.size() + 1) + ", above segment-max-keys " + config.segmentMaxKeys
            + (config.segmentCreateKeys ? "; a created key unused for segment-key-idle-timeout "
                + config.segmentKeyIdleTimeout.toMillis() + " ms frees its place" : ""));
      }
      try {
        g = GeneSegmentGenerator.builder(store(), key).settings(config.segmentSettings).build();
      } catch (GeneIdException | IllegalStateException e) {
        LOG.warn("segment key '{}': the segment store failed: {}", key, e.toString());
        throw unavailable("segment key '" + key + "': the segment store did not hand out a segment: "
            + e.getMessage());
      }
      segments.put(key, g);
      if (!config.segmentKeys.contains(key)) {
        createdKeys.put(key, new java.util.concurrent.atomic.AtomicLong(System.nanoTime()));
      }
      metrics.watchSegment(g);
      return g;
    }
  }

  private SegmentStore store() {
    SegmentStore s = segmentStore;
    if (s == null) {
      Map<String, Object> props = new java.util.HashMap<>();
      if (config.segmentStore.equals("redis")) {
        props.put(StoreKeys.REDIS_URI, java.util.Objects.requireNonNull(config.segmentRedisUri));
        props.put(StoreKeys.REDIS_KEY_PREFIX, config.segmentRedisKeyPrefix);
        props.put(StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE, config.segmentRedisAllowWithoutPersistence);
      } else {
        props.put(StoreKeys.JDBC_URL, config.segmentJdbcUrl);
        if (config.segmentJdbcUsername != null) {
          props.put(StoreKeys.JDBC_USERNAME, config.segmentJdbcUsername);
        }
        if (config.segmentJdbcPassword != null) {
          props.put(StoreKeys.JDBC_PASSWORD, config.segmentJdbcPassword);
        }
        props.put(StoreKeys.JDBC_TABLE, config.segmentJdbcTable);
        props.put(StoreKeys.JDBC_CREATE_TABLE, true);
      }
      s = SegmentStores.provider(config.segmentStore)
          .create(SettingsReader.of(props).named(k -> ServerConfig.SEGMENT + k));
      segmentStore = s;
    }
    return s;
  }

  List<SegmentState> segmentStates() {
    List<SegmentState> out = new ArrayList<>();
    for (GeneSegmentGenerator g : segments.values()) {
      GeneSegmentGenerator.Status st = g.status();
      out.add(new SegmentState(st.bizTag(), st.step(), st.remaining(), st.nextReady()));
    }
    out.sort(Comparator.comparing(SegmentState::key));
    return out;
  }

  // ---------------------------------------------------------------- decode and route

  Decoded decode(long id) {
    if (id < 0) {
      throw ApiException.invalid("an id must not be negative but was " + id);
    }
    GeneIdParts p = layout.decode(id);
    long t = id >>> (layout.workerBits() + layout.sequenceBits() + layout.geneBits());
    String millis = BigInteger.valueOf(layout.epoch().toEpochMilli()).add(BigInteger.valueOf(t)).toString();
    return new Decoded(id, millis, Json.instant(p.timestamp()), p.workerId(), p.sequence(), p.gene());
  }

  Decoded decode(String text, String prefix, boolean date) {
    GeneIdStringFormat format = format(prefix, date);
    long id;
    try {
      id = format.parse(text);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid(e.getMessage());
    }
    return decode(id);
  }

  static long parseId(String text) {
    try {
      long id = Long.parseLong(text);
      if (id >= 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw ApiException.invalid("an id must be a decimal whole number in [0, " + Long.MAX_VALUE + "] but was '"
        + ParentKey.clip(text) + "'");
  }

  /** {@code [gene, index]}. */
  long[] route(long gene, long shardingCount, long geneDivisor) {
    long max = layout.geneCount();
    if (shardingCount < 1 || shardingCount > max) {
      throw ApiException.invalid("shardingCount must be in [1, " + max + "] but was " + shardingCount);
    }
    if (geneDivisor < 1 || geneDivisor > max) {
      throw ApiException.invalid("geneDivisor must be in [1, " + max + "] but was " + geneDivisor);
    }
    try {
      GeneRouting routing = new GeneRouting((int) shardingCount, (int) geneDivisor, layout.geneBits());
      return new long[] {gene, routing.index(gene)};
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid(e.getMessage());
    }
  }

  static ApiException unavailable(@Nullable String reason) {
    String r = reason == null ? "not ready" : reason;
    int nl = r.indexOf('\n');
    if (nl >= 0) {
      r = r.substring(0, nl);
    }
    if (r.length() > 500) {
      r = r.substring(0, 500) + "...";
    }
    return new ApiException(ErrorCode.UNAVAILABLE, r, 1);
  }

  @Override
  public void close() {
    draining = true;
    watcher.shutdownNow();
    synchronized (segmentLock) {
      for (GeneSegmentGenerator g : segments.values()) {
        try {
          g.close();
        } catch (RuntimeException e) {
          LOG.warn("closing segment key '{}': {}", g.bizTag(), e.toString());
        }
      }
      segments.clear();
      SegmentStore store = segmentStore;
      if (store != null) {
        try {
          store.close();
        } catch (Exception e) {
          LOG.warn("closing the segment store: {}", e.toString());
        }
      }
      segmentStore = null;
    }
    LeasedGeneGenerator g = generator;
    generator = null;
    notReadyReason = "the server is closed";
    if (g != null) {
      g.close(); // records the mark and releases the worker id
    }
  }
}
