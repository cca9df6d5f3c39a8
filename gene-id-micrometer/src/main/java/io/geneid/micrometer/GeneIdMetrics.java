package io.geneid.micrometer;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdRegistry;
import io.geneid.core.GeneSnowflakeGenerator;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Registers Micrometer meters over {@link GeneSnowflakeGenerator#stats()} for one or more generators.
 *
 * <pre>{@code
 * GeneIdMetrics.of(generator).bindTo(meterRegistry);      // one generator
 * GeneIdMetrics.registered().bindTo(meterRegistry);       // every generator in GeneIdRegistry
 * }</pre>
 *
 * <table>
 * <caption>Meters, each tagged {@code worker.id}, {@code layout} ({@code T41-W8-S8-G6}) and {@code epoch}</caption>
 * <tr><th>name</th><th>type</th><th>what</th></tr>
 * <tr><td>{@value #IDS_ISSUED}</td><td>function counter</td><td>ids issued</td></tr>
 * <tr><td>{@value #BORROW_DEBT}</td><td>time gauge</td><td>how far the furthest gene is ahead of the clock</td></tr>
 * <tr><td>{@value #CLOCK_STEPBACKS}</td><td>function counter</td><td>clock steps back seen</td></tr>
 * <tr><td>{@value #CLOCK_STEPBACK_MAX}</td><td>time gauge</td><td>the largest of them</td></tr>
 * <tr><td>{@value #CLOCK_WAITS}</td><td>function counter</td><td>callers that waited for the clock</td></tr>
 * <tr><td>{@value #TIMESTAMP_REMAINING}</td><td>time gauge</td><td>time until the layout's timestamp field runs
 * out</td></tr>
 * </table>
 *
 * <p>Meters read the generator when the registry is scraped; issuing ids costs nothing more. Meters hold the
 * generator weakly, as Micrometer's function meters do: a generator from {@link GeneIdRegistry} lives as long as the
 * JVM; keep a reference to one built with {@code buildUnshared()}. Generators built after {@link #registered()}
 * bound its meters are not included: bind again (binding twice registers nothing twice).
 */
public final class GeneIdMetrics implements MeterBinder {

  /** Ids issued (function counter, base unit {@code ids}). */
  public static final String IDS_ISSUED = "geneid.ids.issued";
  /** Borrowed-time debt now: the furthest gene's lead over the clock (time gauge). */
  public static final String BORROW_DEBT = "geneid.borrow.debt";
  /** Clock step-back events (function counter). */
  public static final String CLOCK_STEPBACKS = "geneid.clock.stepbacks";
  /** The largest clock step back seen (time gauge). */
  public static final String CLOCK_STEPBACK_MAX = "geneid.clock.stepback.max";
  /** Callers that waited for the clock (function counter). */
  public static final String CLOCK_WAITS = "geneid.clock.waits";
  /** Time left until the layout's timestamp field runs out (time gauge). */
  public static final String TIMESTAMP_REMAINING = "geneid.timestamp.remaining";

  private final Supplier<Collection<GeneSnowflakeGenerator>> generators;
  private final Tags extraTags;

  private GeneIdMetrics(Supplier<Collection<GeneSnowflakeGenerator>> generators, Tags extraTags) {
    this.generators = generators;
    this.extraTags = extraTags;
  }

  /** Meters for these generators. */
  public static GeneIdMetrics of(GeneSnowflakeGenerator... generators) {
    List<GeneSnowflakeGenerator> list = List.copyOf(Arrays.asList(generators));
    return new GeneIdMetrics(() -> list, Tags.empty());
  }

  /** Meters for these generators. */
  public static GeneIdMetrics of(Collection<GeneSnowflakeGenerator> generators) {
    List<GeneSnowflakeGenerator> list = List.copyOf(generators);
    return new GeneIdMetrics(() -> list, Tags.empty());
  }

  /** Meters for every generator in {@link GeneIdRegistry} when {@link #bindTo(MeterRegistry)} runs. */
  public static GeneIdMetrics registered() {
    return new GeneIdMetrics(GeneIdRegistry::all, Tags.empty());
  }

  /** The same meters with these tags added to each (e.g. {@code application}). */
  public GeneIdMetrics withTags(Iterable<Tag> tags) {
    return new GeneIdMetrics(generators, extraTags.and(tags));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (GeneSnowflakeGenerator generator : generators.get()) {
      bind(registry, generator, tags(generator).and(extraTags));
    }
  }

  /**
   * The tags gene-id meters of {@code generator} carry: {@code worker.id}, {@code layout} ({@code T41-W8-S8-G6})
   * and {@code epoch}. Meters of the lease that holds the worker id should carry the same.
   */
  public static Tags tags(GeneSnowflakeGenerator generator) {
    GeneIdLayout layout = generator.layout();
    return Tags.of(
        Tag.of("worker.id", Long.toString(generator.workerId())),
        Tag.of("layout", "T" + layout.timestampBits() + "-W" + layout.workerBits() + "-S" + layout.sequenceBits()
            + "-G" + layout.geneBits()),
        Tag.of("epoch", layout.epoch().toString()));
  }

  private static void bind(MeterRegistry registry, GeneSnowflakeGenerator generator, Tags tags) {
    FunctionCounter.builder(IDS_ISSUED, generator, g -> g.stats().idsIssued())
        .description("Ids issued by the gene-id generator of this worker id")
        .baseUnit("ids")
        .tags(tags)
        .register(registry);
    TimeGauge.builder(BORROW_DEBT, generator, TimeUnit.MILLISECONDS, g -> g.stats().borrowDebt().toMillis())
        .description("How far the furthest gene runs ahead of the clock (borrowed milliseconds); near"
            + " maxBorrowMillis the generator is at capacity and callers wait")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(CLOCK_STEPBACKS, generator, g -> g.stats().clockStepBacks())
        .description("Times the generator's clock was seen stepping back")
        .tags(tags)
        .register(registry);
    TimeGauge.builder(CLOCK_STEPBACK_MAX, generator, TimeUnit.MILLISECONDS,
            g -> g.stats().largestClockStepBack().toMillis())
        .description("The largest clock step back seen")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(CLOCK_WAITS, generator, g -> g.stats().clockWaits())
        .description("Times a caller waited for the clock: borrowing bound reached or clock stepped back")
        .tags(tags)
        .register(registry);
    TimeGauge.builder(TIMESTAMP_REMAINING, generator, TimeUnit.MILLISECONDS, GeneIdMetrics::remainingMillis)
        .description("Time until the layout's timestamp field runs out and no id can be issued")
        .tags(tags)
        .register(registry);
  }

  private static double remainingMillis(GeneSnowflakeGenerator generator) {
    Instant now = Instant.ofEpochMilli(generator.clock().currentTimeMillis());
    Instant end = generator.layout().lastTimestamp().plusMillis(1);
    return Math.max(0, Duration.between(now, end).toMillis());
  }
}
