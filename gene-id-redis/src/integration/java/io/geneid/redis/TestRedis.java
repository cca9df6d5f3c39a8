package io.geneid.redis;

import io.geneid.core.testing.TestTime;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The shared Redis on 127.0.0.1:6379 for one test, under a key prefix unique to the test's module and run, whose
 * keys are deleted on close (never FLUSHALL). A Redis that is down fails the test with a message saying so. Shared
 * with gene-id-shardingsphere through this module's test-jar.
 */
public final class TestRedis implements AutoCloseable {
  public static final int PORT = 6379;
  public static final String URI = "redis://127.0.0.1:" + PORT;

  /**
   * {@code gid_<name>_<16 hex digits>}: the random part has a fixed width, so no other run's prefix starts with this
   * one and {@link #close()} deletes this run's keys only.
   */
  public final String prefix;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  /** Connects; {@code name} names the module or the kind of test, e.g. {@code lease_redis}. */
  public TestRedis(String name) {
    prefix = "gid_" + name + "_" + String.format("%016x", ThreadLocalRandom.current().nextLong());
    client = RedisClient.create(RedisURI.create(URI));
    client.setDefaultTimeout(TestTime.seconds(5)); // admin commands, at the time scale
    try {
      connection = client.connect();
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ZERO);
      throw new AssertionError("Redis must run on " + URI + " for these tests (see .ci/run): " + e, e);
    }
  }

  /** Commands on the shared Redis, for checks and for breaking things on purpose. */
  public RedisCommands<String, String> redis() {
    return connection.sync();
  }

  public StatefulRedisConnection<String, String> connection() {
    return connection;
  }

  /** A key of the worker-id pool {@code space} under {@code keyPrefix} (see RedisWorkerIdAssigner). */
  public static String leaseKey(String keyPrefix, String space, String part) {
    return keyPrefix + ":lease:{" + space + "}:" + part;
  }

  /** The counter key of segment tag {@code tag} under {@link #prefix}. */
  public String segmentKey(String tag) {
    return prefix + ":segment:" + tag;
  }

  /** A key of the worker-id pool {@code space} under {@link #prefix}. */
  public String leaseKey(String space, String part) {
    return leaseKey(prefix, space, part);
  }

  /** The record of one worker id of the pool {@code space} under {@link #prefix} (see RedisWorkerIdAssigner). */
  public String workerKey(String space, long workerId) {
    return leaseKey(space, "w:" + workerId);
  }

  /**
   * Marks the pool {@code space} under {@code keyPrefix} as started an hour ago on this Redis run: a brand-new pool
   * otherwise waits one TTL + the borrowing bound + 2 s before it hands out worker ids whose history it cannot know.
   */
  public void agePool(String keyPrefix, String space) {
    agePool(redis(), keyPrefix, space);
  }

  /** {@link #agePool(String, String)} on any Redis (e.g. a {@link PrivateRedis}). */
  public static void agePool(RedisCommands<String, String> redis, String keyPrefix, String space) {
    String runId = null;
    for (String line : redis.info("server").split("\r?\n")) {
      if (line.startsWith("run_id:")) {
        runId = line.substring(7).trim();
      }
    }
    String meta = leaseKey(keyPrefix, space, "meta");
    String gen = redis.hget(meta, "gen");
    if (gen == null || !String.valueOf(runId).equals(redis.hget(meta, "runid"))) {
      gen = "aged" + ThreadLocalRandom.current().nextInt(1 << 30); // a new generation; ageing again keeps it
    }
    redis.hset(meta, Map.of("born", Long.toString(System.currentTimeMillis() - 3_600_000), "gen", gen, "runid",
        String.valueOf(runId)));
  }

  /** {@link #agePool(String, String)} under {@link #prefix}. */
  public void agePool(String space) {
    agePool(prefix, space);
  }

  /** A new pool name under {@link #prefix}, aged (see {@link #agePool(String)}) so it hands out ids at once. */
  public String agedSpace() {
    String space = "s" + String.format("%016x", ThreadLocalRandom.current().nextLong());
    agePool(space);
    return space;
  }

  /** Forgets a pool under {@link #prefix}, as a Redis without persistence does on restart. */
  public void forgetPool(String space) {
    List<String> keys = new ArrayList<>(List.of(leaseKey(space, "expiry"), leaseKey(space, "meta")));
    ScanIterator.scan(redis(), ScanArgs.Builder.matches(leaseKey(space, "w:*")).limit(500))
        .forEachRemaining(keys::add);
    redis().del(keys.toArray(String[]::new));
  }

  /** Every key under {@link #prefix}. */
  public List<String> keys() {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(redis(), ScanArgs.Builder.matches(prefix + "*").limit(500)).forEachRemaining(keys::add);
    return keys;
  }

  @Override
  public void close() {
    List<String> keys = keys();
    if (!keys.isEmpty()) {
      redis().del(keys.toArray(String[]::new));
    }
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
  }
}
