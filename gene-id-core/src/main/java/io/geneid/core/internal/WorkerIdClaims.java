package io.geneid.core.internal;


import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Not API: the worker ids claimed in this JVM, so that two generators never hold one (epoch, worker id). Used by the
 * fixed-worker-id generator ({@code io.geneid.core.snowflake.GeneSnowflakeGenerator.Builder#build()}) and by every leased generator.
 *
 * <p>The claims live in a map kept in {@link System#getProperties()}, a JDK object that every class loader of the JVM
 * sees: two copies of gene-id loaded by two class loaders still refuse each other.
 */
public final class WorkerIdClaims {

  private WorkerIdClaims() {}


  /** The system property that holds the claim map (a {@code ConcurrentHashMap<String, String>}). */
  public static final String CLAIMS_PROPERTY = "io.geneid.core.claims";

  /**
   * The worker ids claimed in this JVM, by every class loader: the map lives in the system properties (a JDK object
   * that every class loader sees), keyed by {@code <epoch ms>/<worker id>}, valued by a description of the claimant.
   * A released claim leaves {@code <epoch ms>/<worker id>#mark}: the highest timestamp (Unix ms) its generator
   * issued, for the next claimant.
   */
  @SuppressWarnings("unchecked")
  private static final ConcurrentMap<String, String> CLAIMS = (ConcurrentMap<String, String>) System.getProperties()
      .computeIfAbsent(CLAIMS_PROPERTY, k -> new ConcurrentHashMap<String, String>());

  /**
   * One generator's hold on a worker id in this JVM; {@link #close(long)} gives it up. Two generators with one
   * worker id and epoch in one JVM would issue the same ids, so a second claim is refused.
   */
  public static final class Claim implements AutoCloseable {
    private final String key;
    private final String claimant;
    private final long previousMark;
    private boolean closed;

    private Claim(String key, String claimant, long previousMark) {
      this.key = key;
      this.claimant = claimant;
      this.previousMark = previousMark;
    }

    /**
     * The highest timestamp (Unix ms) an earlier claimant of this worker id in this JVM issued, as it recorded when
     * it gave the claim up; {@link Long#MIN_VALUE} if none did.
     */
    public long previousMark() {
      return previousMark;
    }

    /**
     * Gives the claim up, recording {@code highWaterMarkMillis} (the highest timestamp, Unix ms, its generator may
     * have issued, borrowed time included) for the next claimant of this worker id in this JVM. Idempotent.
     */
    public synchronized void close(long highWaterMarkMillis) {
      if (!closed) {
        closed = true;
        if (highWaterMarkMillis != Long.MIN_VALUE) {
          CLAIMS.merge(key + "#mark", Long.toString(highWaterMarkMillis),
              (a, b) -> Long.parseLong(a) >= Long.parseLong(b) ? a : b);
        }
        CLAIMS.remove(key, claimant);
      }
    }

    /** Gives the claim up without recording a mark (the caller keeps the mark elsewhere, e.g. in its lease). */
    @Override
    public void close() {
      close(Long.MIN_VALUE);
    }

    @Override
    public String toString() {
      return claimant;
    }
  }

  /**
   * Claims {@code workerId} of the layout whose epoch is {@code epoch} for {@code claimant} (a description naming the generator and
   * where it comes from).
   *
   * @throws IllegalStateException naming both claimants if another generator of this JVM holds the worker id
   */
  public static Claim claim(Instant epoch, long workerId, String claimant) {
    String key = epoch.toEpochMilli() + "/" + workerId;
    String unique = claimant + " (claim #" + Long.toHexString(System.identityHashCode(new Object()))
        + Long.toHexString(System.nanoTime()) + ")";
    String held = CLAIMS.putIfAbsent(key, unique);
    if (held != null) {
      throw new IllegalStateException("worker id " + workerId + " (epoch " + epoch + ") is already used in "
          + "this JVM by " + held + "; a second generator, " + claimant + ", would issue the same ids. Share one "
          + "generator (GeneSnowflakeGenerator.builder()...build() shares per layout and worker id; "
          + "LeasedGenerators.sharedGenerator per configuration) or give each its own worker id");
    }
    String mark = CLAIMS.get(key + "#mark");
    return new Claim(key, unique, mark == null ? Long.MIN_VALUE : Long.parseLong(mark));
  }
}
