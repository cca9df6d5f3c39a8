package io.geneid.spring.boot;

import io.geneid.core.ClockBackwardsPolicy;
import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneSnowflakeGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code gene-id.*} properties. The layout fields (epoch and the four widths) must be the same in every process
 * that writes ids to the same tables, and must not change once ids are written.
 *
 * <pre>
 * gene-id:
 *   worker-id: 3                 # required: one per running process, in [0, 2^worker-bits - 1]
 *   gene-bits: 6                 # 64 gene buckets; shard count must divide 2^gene-bits
 *   epoch: 2025-01-01T00:00:00Z
 *   timestamp-bits: 41
 *   worker-bits: 8
 *   sequence-bits: 8
 *   max-borrow-millis: 10
 *   clock-backwards-max-wait: 1s
 * </pre>
 *
 * <p>Every value is checked at start-up; a wrong one stops the application with a message naming the property and
 * its allowed range, e.g. {@code gene-id.gene-bits must be in [0, 16] but was 17}.
 */
@ConfigurationProperties(prefix = GeneIdProperties.PREFIX)
public class GeneIdProperties {

  /** The prefix of every property. */
  public static final String PREFIX = "gene-id";

  /**
   * Instant that timestamp 0 of every id stands for (ISO-8601, e.g. 2025-01-01T00:00:00Z): a whole millisecond,
   * not in the future. Fixed for the life of the data.
   */
  private Instant epoch = GeneIdLayout.DEFAULT_EPOCH;

  /** T: bits of the millisecond timestamp, in [35, 63]; 41 bits last about 69 years. T + W + S + G must be 63. */
  private int timestampBits = 41;

  /** W: bits of the worker id, in [0, 28]; 2^W processes can issue ids at the same time. */
  private int workerBits = 8;

  /** S: bits of the per-gene sequence, in [0, 28]; 2^S ids per millisecond per gene per worker. */
  private int sequenceBits = 8;

  /**
   * G: bits of the gene (the low bits of the parent key), in [0, 16]; 2^G gene buckets, so any shard count that
   * divides 2^G routes children with their parents. 0 makes a classic Snowflake.
   */
  private int geneBits = 6;

  /**
   * This process's worker id, in [0, 2^worker-bits - 1]. Required when worker-assigner is static: give every
   * running process its own (for example a StatefulSet ordinal); two processes with one worker id issue duplicates.
   */
  private @Nullable Long workerId;

  /** Where the worker id comes from. static: gene-id.worker-id. */
  private WorkerAssigner workerAssigner = WorkerAssigner.STATIC;

  /**
   * How far, in ms, a gene may run ahead of the clock when its sequence is used up, and how large a clock step back
   * is absorbed without waiting; in [0, 60000].
   */
  private long maxBorrowMillis = 10;

  /**
   * How long a caller waits for a clock that stepped back further than max-borrow-millis before the generator
   * fails with ClockMovedBackwardsException; 0 fails at once. Only a wall clock steps back.
   */
  private Duration clockBackwardsMaxWait = Duration.ofSeconds(1);

  /**
   * The time source. system: the wall clock read once and advanced by the monotonic clock, never steps back inside
   * a process; wall: follows every step of the wall clock, backwards ones included.
   */
  private ClockSource clock = ClockSource.SYSTEM;

  /**
   * Where the worker id comes from.
   *
   * <p>Extension point: a worker-assigner module (Redis or JDBC leases) adds its constant here and an
   * auto-configuration, ordered before {@link GeneIdAutoConfiguration}, that is active for its value and provides
   * the {@link io.geneid.core.GeneIdGenerator} bean; the static generator of {@link GeneIdAutoConfiguration} is
   * created only for {@link #STATIC} and only when no other generator bean exists.
   */
  public enum WorkerAssigner {
    /** The worker id is {@code gene-id.worker-id}. */
    STATIC
  }

  /** The generator's time source. */
  public enum ClockSource {
    /** {@link GeneClock#system()}: monotonic inside the process. */
    SYSTEM,
    /** {@link GeneClock#wall()}: {@code System.currentTimeMillis()}. */
    WALL
  }

  /**
   * The layout these properties describe.
   *
   * @throws IllegalArgumentException naming the {@code gene-id.*} property, its value and its allowed range
   */
  public GeneIdLayout layout() {
    return translated(() -> GeneIdLayout.builder()
        .epoch(epoch)
        .timestampBits(timestampBits)
        .workerBits(workerBits)
        .sequenceBits(sequenceBits)
        .geneBits(geneBits)
        .build());
  }

  /**
   * A generator builder with every setting of these properties, and the worker id when {@code gene-id.worker-id}
   * is set. A worker-assigner module sets the worker id it leased instead.
   *
   * @throws IllegalArgumentException naming the {@code gene-id.*} property, its value and its allowed range
   */
  public GeneSnowflakeGenerator.Builder generatorBuilder() {
    GeneIdLayout layout = layout();
    return translated(() -> {
      GeneSnowflakeGenerator.Builder builder = GeneSnowflakeGenerator.builder()
          .layout(layout)
          .clock(clock == ClockSource.WALL ? GeneClock.wall() : GeneClock.system())
          .maxBorrowMillis(maxBorrowMillis)
          .clockBackwardsPolicy(ClockBackwardsPolicy.waitUpTo(clockBackwardsMaxWait));
      if (workerId != null) {
        builder.workerId(workerId);
      }
      return builder;
    });
  }

  /**
   * The JVM-shared generator of these properties ({@link GeneSnowflakeGenerator.Builder#build()}).
   *
   * @throws IllegalArgumentException naming the {@code gene-id.*} property that is missing or out of range
   * @throws IllegalStateException if this JVM already holds a generator for the same layout and worker id with
   *     other settings
   */
  public GeneSnowflakeGenerator sharedGenerator() {
    GeneSnowflakeGenerator.Builder builder = generatorBuilder();
    return translated(builder::build);
  }

  // ---------------------------------------------------------------- error messages name the property

  private static final Map<String, String> PROPERTY_OF = Map.of(
      "epoch", "epoch",
      "timestampBits", "timestamp-bits",
      "workerBits", "worker-bits",
      "sequenceBits", "sequence-bits",
      "geneBits", "gene-bits",
      "workerId", "worker-id",
      "maxBorrowMillis", "max-borrow-millis",
      "maxWait", "clock-backwards-max-wait");

  private static final Pattern CORE_NAMES = Pattern.compile("\\b(" + String.join("|", PROPERTY_OF.keySet()) + ")\\b");

  private interface Step<T> {
    T run();
  }

  private static <T> T translated(Step<T> step) {
    try {
      return step.run();
    } catch (IllegalArgumentException e) {
      throw new InvalidGeneIdPropertyException(propertyNames(String.valueOf(e.getMessage())), e);
    }
  }

  /** Rewrites the core's field names ({@code geneBits}) as property names ({@code gene-id.gene-bits}). */
  static String propertyNames(String coreMessage) {
    Matcher m = CORE_NAMES.matcher(coreMessage);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(PREFIX + "." + PROPERTY_OF.get(m.group(1))));
    }
    m.appendTail(out);
    return out.toString();
  }

  // ---------------------------------------------------------------- accessors for the binder

  public Instant getEpoch() {
    return epoch;
  }

  public void setEpoch(Instant epoch) {
    this.epoch = epoch;
  }

  public int getTimestampBits() {
    return timestampBits;
  }

  public void setTimestampBits(int timestampBits) {
    this.timestampBits = timestampBits;
  }

  public int getWorkerBits() {
    return workerBits;
  }

  public void setWorkerBits(int workerBits) {
    this.workerBits = workerBits;
  }

  public int getSequenceBits() {
    return sequenceBits;
  }

  public void setSequenceBits(int sequenceBits) {
    this.sequenceBits = sequenceBits;
  }

  public int getGeneBits() {
    return geneBits;
  }

  public void setGeneBits(int geneBits) {
    this.geneBits = geneBits;
  }

  public @Nullable Long getWorkerId() {
    return workerId;
  }

  public void setWorkerId(@Nullable Long workerId) {
    this.workerId = workerId;
  }

  public WorkerAssigner getWorkerAssigner() {
    return workerAssigner;
  }

  public void setWorkerAssigner(WorkerAssigner workerAssigner) {
    this.workerAssigner = workerAssigner;
  }

  public long getMaxBorrowMillis() {
    return maxBorrowMillis;
  }

  public void setMaxBorrowMillis(long maxBorrowMillis) {
    this.maxBorrowMillis = maxBorrowMillis;
  }

  public Duration getClockBackwardsMaxWait() {
    return clockBackwardsMaxWait;
  }

  public void setClockBackwardsMaxWait(Duration clockBackwardsMaxWait) {
    this.clockBackwardsMaxWait = clockBackwardsMaxWait;
  }

  public ClockSource getClock() {
    return clock;
  }

  public void setClock(ClockSource clock) {
    this.clock = clock;
  }
}
