package io.geneid.core.segment;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.internal.Checks;
import io.geneid.core.settings.SettingsReader;
import java.time.Duration;
import java.util.List;

/**
 * The settings of a {@link GeneSegmentGenerator} other than its store and tag, checked once when created: the same
 * record whether they come from {@link GeneSegmentGenerator.Builder}, ShardingSphere's {@code GENE_SEGMENT}
 * properties or Spring Boot's {@code gene-id.segment.*}, with the same defaults and ranges.
 *
 * @param geneBits G, in [0, 16]; default 6
 * @param minStep the smallest step, in [1, maxStep]; also the size of the first segment; default 1,000
 * @param maxStep the largest step, in [minStep, 1,000,000,000]; default 1,000,000; equal to minStep fixes the step
 * @param segmentDuration how long a segment should last at the measured rate, in [1 s, 1 day]; default 10 minutes
 * @param prefetchRatio the fraction of a segment used before the next one is fetched, in [0.0, 0.9]; default 0.1
 * @param fetchTimeout how long a fetch may take before it is abandoned (its late answer becomes a gap), also the
 *     longest a caller with no values left waits, in [1 ms, 10 min]; default 10 s; keep it above the store's own
 *     timeouts
 * @param prefetchRetry the pause between background prefetch attempts while the store fails, in [0, 10 min];
 *     default 1 s
 * @param threadBlock 0 (the default): every id takes the next value of the shared segment, so the ids of all threads
 *     increase in the order they are issued; in [2, 100,000]: each thread takes that many values at once and hands
 *     them out itself, so threads do not contend for one counter (two threads issue more than one) while the ids of
 *     one thread still increase but those of different threads interleave, and values left in a thread's block
 *     at shutdown are a gap
 */
public record SegmentSettings(int geneBits, long minStep, long maxStep, Duration segmentDuration,
    double prefetchRatio, Duration fetchTimeout, Duration prefetchRetry, int threadBlock) {

  /** Key of {@link #geneBits()}. */
  public static final String GENE_BITS = SettingsReader.GENE_BITS;
  /** Key of {@link #minStep()}. */
  public static final String MIN_STEP = "min-step";
  /** Key of {@link #maxStep()}. */
  public static final String MAX_STEP = "max-step";
  /** Key of {@link #segmentDuration()}. */
  public static final String SEGMENT_DURATION = "segment-duration";
  /** Key of {@link #prefetchRatio()}. */
  public static final String PREFETCH_RATIO = "prefetch-ratio";
  /** Key of {@link #fetchTimeout()}. */
  public static final String FETCH_TIMEOUT = "fetch-timeout";
  /** Key of {@link #prefetchRetry()}. */
  public static final String PREFETCH_RETRY = "prefetch-retry";
  /** Key of {@link #threadBlock()}. */
  public static final String THREAD_BLOCK = "thread-block";
  /** Every key {@link #read(SettingsReader)} reads. */
  public static final List<String> KEYS = List.of(GENE_BITS, MIN_STEP, MAX_STEP, SEGMENT_DURATION, PREFETCH_RATIO,
      FETCH_TIMEOUT, PREFETCH_RETRY, THREAD_BLOCK);
  /** The largest {@link #threadBlock()}. */
  public static final int MAX_THREAD_BLOCK = 100_000;

  /** The largest step: 1,000,000,000. */
  public static final long MAX_STEP_VALUE = 1_000_000_000;
  private static final Duration MIN_DURATION = Duration.ofSeconds(1);
  private static final Duration MAX_DURATION = Duration.ofDays(1);
  private static final Duration MIN_FETCH_TIMEOUT = Duration.ofMillis(1);
  private static final Duration MAX_WAIT = Duration.ofMinutes(10);
  private static final double MAX_PREFETCH_RATIO = 0.9;

  private static final SegmentSettings DEFAULTS = new SegmentSettings(GeneIdLayout.defaults().geneBits(), 1_000,
      1_000_000, Duration.ofMinutes(10), 0.1, Duration.ofSeconds(10), Duration.ofSeconds(1), 0);

  /**
   * Checks every field.
   *
   * @throws IllegalArgumentException naming the field, its range and the value
   */
  public SegmentSettings {
    Checks.range("geneBits", geneBits, 0, GeneIdLayout.MAX_GENE_BITS);
    Checks.range("minStep", minStep, 1, MAX_STEP_VALUE);
    if (maxStep < minStep || maxStep > MAX_STEP_VALUE) {
      throw new InvalidSettingException("maxStep", Long.toString(maxStep), "in [minStep=" + minStep + ", "
          + MAX_STEP_VALUE + "]");
    }
    Checks.duration("segmentDuration", segmentDuration, MIN_DURATION, MAX_DURATION);
    if (!(prefetchRatio >= 0.0 && prefetchRatio <= MAX_PREFETCH_RATIO)) {
      throw new IllegalArgumentException("prefetchRatio must be in [0.0, " + MAX_PREFETCH_RATIO + "] but was "
          + prefetchRatio);
    }
    Checks.duration("fetchTimeout", fetchTimeout, MIN_FETCH_TIMEOUT, MAX_WAIT);
    Checks.duration("prefetchRetry", prefetchRetry, Duration.ZERO, MAX_WAIT);
    if (threadBlock != 0 && (threadBlock < 2 || threadBlock > MAX_THREAD_BLOCK)) {
      throw new IllegalArgumentException("threadBlock must be 0 (one shared order) or in [2, " + MAX_THREAD_BLOCK
          + "] but was " + threadBlock);
    }
  }

  /** The defaults: G = 6, steps 1,000 to 1,000,000, 10 minutes, 0.1, 10 s, 1 s, no thread blocks. */
  public static SegmentSettings defaults() {
    return DEFAULTS;
  }

  /**
   * The settings of {@link #KEYS} in {@code settings}, each defaulting to {@link #defaults()} (a
   * {@link #MAX_STEP} left out is at least the {@link #MIN_STEP}); messages name the keys as {@code settings} does.
   *
   * @throws IllegalArgumentException naming the key, its range and the value
   */
  public static SegmentSettings read(SettingsReader settings) {
    SegmentSettings d = DEFAULTS;
    long minStep = settings.longValue(MIN_STEP, 1, MAX_STEP_VALUE, d.minStep);
    return new SegmentSettings(
        GeneIdLayout.geneBits(settings),
        minStep,
        settings.longValue(MAX_STEP, minStep, MAX_STEP_VALUE, Math.max(d.maxStep, minStep)),
        settings.duration(SEGMENT_DURATION, MIN_DURATION, MAX_DURATION, d.segmentDuration),
        settings.doubleValue(PREFETCH_RATIO, 0.0, MAX_PREFETCH_RATIO, d.prefetchRatio),
        settings.duration(FETCH_TIMEOUT, MIN_FETCH_TIMEOUT, MAX_WAIT, d.fetchTimeout),
        settings.duration(PREFETCH_RETRY, Duration.ZERO, MAX_WAIT, d.prefetchRetry),
        threadBlock(settings));
  }

  private static int threadBlock(SettingsReader settings) {
    long block = settings.longValue(THREAD_BLOCK, 0, MAX_THREAD_BLOCK, 0);
    if (block == 1) {
      throw new IllegalArgumentException(settings.nameOf(THREAD_BLOCK) + " must be 0 (one shared order) or in [2, "
          + MAX_THREAD_BLOCK + "] but was 1");
    }
    return (int) block;
  }

  @Override
  public String toString() {
    return GENE_BITS + "=" + geneBits + ", " + MIN_STEP + "=" + minStep + ", " + MAX_STEP + "=" + maxStep + ", "
        + SEGMENT_DURATION + "=" + segmentDuration.toMillis() + "ms, " + PREFETCH_RATIO + "=" + prefetchRatio + ", "
        + FETCH_TIMEOUT + "=" + fetchTimeout.toMillis() + "ms, " + PREFETCH_RETRY + "=" + prefetchRetry.toMillis()
        + "ms" + (threadBlock == 0 ? "" : ", " + THREAD_BLOCK + "=" + threadBlock);
  }
}
