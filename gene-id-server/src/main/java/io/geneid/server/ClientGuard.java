package io.geneid.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/** Bearer-token authentication and the per-client rate limit, for both protocols. */
final class ClientGuard {
  private static final int MAX_CLIENTS = 100_000;

  private final List<byte[]> tokens;
  private final double rate;
  private final double burst;
  private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
  /** The bucket every address shares while the table is full. */
  private final Bucket overflow;
  private final java.util.concurrent.atomic.AtomicLong lastSweep = new java.util.concurrent.atomic.AtomicLong();

  ClientGuard(ServerConfig config) {
    this.tokens = config.authTokens;
    this.rate = config.rateLimit;
    this.burst = config.rateLimitBurst;
    this.overflow = new Bucket(burst);
  }

  /**
   * Checks an {@code Authorization} header value.
   *
   * @throws ApiException {@code unauthenticated}, whose reason never repeats what the client sent
   */
  void authenticate(@Nullable String authorization) {
    if (tokens.isEmpty()) {
      return;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw new ApiException(ErrorCode.UNAUTHENTICATED, "this server needs a bearer token: send the header "
          + "'Authorization: Bearer <token>'");
    }
    byte[] given = authorization.substring(7).trim().getBytes(StandardCharsets.US_ASCII);
    boolean ok = false;
    for (byte[] token : tokens) {
      ok |= MessageDigest.isEqual(token, given); // constant time per token; every token is compared
    }
    if (!ok) {
      throw new ApiException(ErrorCode.UNAUTHENTICATED, "the bearer token is not one of this server's tokens");
    }
  }

  /**
   * Takes one request from the client's bucket.
   *
   * @throws ApiException {@code too_many_requests}
   */
  void admit(String client) {
    if (rate <= 0) {
      return;
    }
    Bucket b = buckets.get(client);
    if (b == null) {
      if (buckets.size() >= MAX_CLIENTS) {
        sweep();
      }
      // a full table keeps the buckets it has (a limited client stays limited); new addresses share one bucket
      // until idle ones are swept
      b = buckets.size() >= MAX_CLIENTS ? overflow : buckets.computeIfAbsent(client, c -> new Bucket(burst));
    }
    if (!b.take(rate, burst)) {
      throw new ApiException(ErrorCode.TOO_MANY_REQUESTS, "rate limit of " + rate + " requests per second per "
          + "client exceeded", 1);
    }
  }

  /**
   * Drops the buckets that have been refilling long enough to be full again (forgetting them changes nothing), at
   * most once a second.
   */
  private void sweep() {
    long now = System.nanoTime();
    long last = lastSweep.get();
    if (now - last < 1_000_000_000L || !lastSweep.compareAndSet(last, now)) {
      return;
    }
    long refill = (long) Math.ceil(burst / rate * 1e9);
    buckets.values().removeIf(b -> b.idleFor(now) > refill);
  }

  /** Client addresses with a bucket of their own. */
  int tracked() {
    return buckets.size();
  }

  private static final class Bucket {
    private double tokens;
    private long last = System.nanoTime();

    Bucket(double burst) {
      tokens = burst;
    }

    synchronized long idleFor(long now) {
      return now - last;
    }

    synchronized boolean take(double rate, double burst) {
      long now = System.nanoTime();
      tokens = Math.min(burst, tokens + (now - last) * rate / 1e9);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }
  }
}
