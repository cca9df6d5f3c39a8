package io.geneid.micrometer;

import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneIdRegistry;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.snowflake.GeneSnowflakeStats;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Registers Micrometer meters over {@link GeneSnowflakeGenerator#stats()} and {@link LeasedGeneGenerator#stats()}
 * for one or more generators.
 *
 * <pre>{@code
 * GeneIdMetrics.of(generator).bindTo(meterRegistry);      // one generator (static or leased worker id)
 * GeneIdMetrics.registered().bindTo(meterRegistry);       // every generator in GeneIdRegistry
 * }</pre>
 *
 * <table>
 * <caption>Meters of every generator</caption>
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
 * <table>
 * <caption>Meters of a {@link LeasedGeneGenerator} only</caption>
 * <tr><th>name</th><th>type</th><th>what</th></tr>
 * <tr><td>{@value #LEASE_REMAINING}</td><td>time gauge</td><td>time left before the generator fences itself unless
 * a renewal succeeds; 0 once fenced</td></tr>
 * <tr><td>{@value #LEASE_RENEWAL_FAILURES}</td><td>function counter</td><td>renewal rounds that failed</td></tr>
 * <tr><td>{@value #LEASE_FENCINGS}</td><td>function counter</td><td>leases lost (lapsed or refused by the
 * store)</td></tr>
 * <tr><td>{@value #LEASE_SWITCHES}</td><td>function counter</td><td>moves to a fresh worker id after a clock step
 * back</td></tr>
 * <tr><td>{@value #LEASE_ISSUING}</td><td>gauge</td><td>1 while ids can be issued, 0 while fenced</td></tr>
 * <tr><td>{@value #WORKER_ID}</td><td>gauge</td><td>the worker id held now</td></tr>
 * </table>
 *
 * <p>Tags: a generator with a fixed worker id is tagged {@code worker.id}, {@code layout} ({@code T41-W8-S8-G6}) and
 * {@code epoch}. A leased generator is tagged {@code space}, {@code layout} and {@code epoch}, not by worker id, so
 * its series survive a move to another worker id; its id counters are running totals over every worker id it has
 * held and never drop, and {@value #WORKER_ID} says which one it holds. Micrometer's Prometheus registry wants one set
 * of tag keys per meter name, so a process should bind one kind only (a process normally has one source of worker
 * ids anyway).
 *
 * <p>Meters read the generator when the registry is scraped; issuing ids costs nothing more. Meters hold the
 * generator weakly, as Micrometer's function meters do: a generator from {@code build()} is registered in
 * {@link GeneIdRegistry} and lives as long as the JVM; a test's {@code buildUnshared()} generator (tests only) is
 * measured while the test keeps a reference to it. Generators built after {@link #registered()}
 * bound its meters are not included: bind again (meters that exist are kept; use {@link #and(GeneIdMetrics)} to bind
 * several sources at once, each generator once).
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
  /** Lease time left before fencing, 0 once fenced (time gauge; leased generators). */
  public static final String LEASE_REMAINING = "geneid.lease.remaining";
  /** Failed lease renewal rounds (function counter; leased generators). */
  public static final String LEASE_RENEWAL_FAILURES = "geneid.lease.renewal.failures";
  /** Leases lost: lapsed or refused by the store (function counter; leased generators). */
  public static final String LEASE_FENCINGS = "geneid.lease.fencings";
  /** Moves to a fresh worker id after a clock step back (function counter; leased generators). */
  public static final String LEASE_SWITCHES = "geneid.lease.switches";
  /** 1 while the generator can issue ids, 0 while fenced or closed (gauge; leased generators). */
  public static final String LEASE_ISSUING = "geneid.lease.issuing";
  /** The worker id held now (gauge; leased generators). */
  public static final String WORKER_ID = "geneid.worker.id";

  private final Supplier<Collection<? extends GeneIdGenerator>> generators;
  private final Tags extraTags;

  private GeneIdMetrics(Supplier<Collection<? extends GeneIdGenerator>> generators, Tags extraTags) {
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

  /** Meters for these generators with leased worker ids, lease meters included. */
  public static GeneIdMetrics of(LeasedGeneGenerator... generators) {
    List<LeasedGeneGenerator> list = List.copyOf(Arrays.asList(generators));
    return new GeneIdMetrics(() -> list, Tags.empty());
  }

  /**
   * Meters for whichever of these generators have figures to show: {@link GeneSnowflakeGenerator} and
   * {@link LeasedGeneGenerator}. Other kinds (the segment generator) have no meters yet and are passed over. What a
   * container hands over as its {@link GeneIdGenerator} beans goes here.
   */
  public static GeneIdMetrics ofGenerators(Collection<? extends GeneIdGenerator> generators) {
    List<GeneIdGenerator> list = List.copyOf(generators);
    return new GeneIdMetrics(() -> list, Tags.empty());
  }

  /**
   * Meters for every generator in {@link GeneIdRegistry} when {@link #bindTo(MeterRegistry)} runs: the shared
   * generators of fixed worker ids ({@link GeneIdRegistry#all()}) and the leased ones shared by configuration
   * ({@link GeneIdRegistry#allShared()}).
   */
  public static GeneIdMetrics registered() {
    return new GeneIdMetrics(() -> {
      List<GeneIdGenerator> all = new ArrayList<>(GeneIdRegistry.all());
      for (GeneIdGenerator g : GeneIdRegistry.allShared()) {
        if (g instanceof LeasedGeneGenerator) {
          all.add(g);
        }
      }
      return all;
    }, Tags.empty());
  }

  /**
   * The meters of these generators and of {@code other}'s, each generator bound once even when both name it (a
   * generator bean that is also in {@link GeneIdRegistry}). The tags added are this binder's.
   */
  public GeneIdMetrics and(GeneIdMetrics other) {
    Supplier<Collection<? extends GeneIdGenerator>> mine = generators;
    return new GeneIdMetrics(() -> {
      List<GeneIdGenerator> all = new ArrayList<>(mine.get());
      all.addAll(other.generators.get());
      return all;
    }, extraTags);
  }

  /** The same meters with these tags added to each (e.g. {@code application}). */
  public GeneIdMetrics withTags(Iterable<Tag> tags) {
    return new GeneIdMetrics(generators, extraTags.and(tags));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Set<GeneIdGenerator> bound = Collections.newSetFromMap(new IdentityHashMap<>());
    for (GeneIdGenerator generator : generators.get()) {
      if (!bound.add(generator)) {
        continue; // named twice: its meters exist (a second registration only makes Micrometer warn)
      }
      if (generator instanceof GeneSnowflakeGenerator g) {
        bindIds(registry, g, GeneSnowflakeGenerator::stats, GeneSnowflakeGenerator::clock, g.layout(),
            tags(g).and(extraTags));
      } else if (generator instanceof LeasedGeneGenerator g) {
        Tags tags = tags(g).and(extraTags);
        bindIds(registry, g, l -> l.stats().ids(), LeasedGeneGenerator::clock, g.layout(), tags);
        bindLease(registry, g, tags);
      }
    }
  }

  /**
   * The tags gene-id meters of {@code generator} carry: {@code worker.id}, {@code layout} ({@code T41-W8-S8-G6})
   * and {@code epoch}. Meters of the lease that holds the worker id should carry the same.
   */
  public static Tags tags(GeneSnowflakeGenerator generator) {
    return Tags.of(Tag.of("worker.id", Long.toString(generator.workerId()))).and(layoutTags(generator.layout()));
  }

  /**
   * The tags gene-id meters of a leased generator carry: {@code space}, {@code layout} ({@code T41-W8-S8-G6}) and
   * {@code epoch}; not the worker id, which changes over the generator's life.
   */
  public static Tags tags(LeasedGeneGenerator generator) {
    return Tags.of(Tag.of("space", generator.space())).and(layoutTags(generator.layout()));
  }

  private static Tags layoutTags(GeneIdLayout layout) {
    return Tags.of(
        Tag.of("layout", "T" + layout.timestampBits() + "-W" + layout.workerBits() + "-S" + layout.sequenceBits()
            + "-G" + layout.geneBits()),
        Tag.of("epoch", layout.epoch().toString()));
  }

  private static <G> void bindIds(MeterRegistry registry, G generator, Function<G, GeneSnowflakeStats> stats,
      Function<G, GeneClock> clock, GeneIdLayout layout, Tags tags) {
    FunctionCounter.builder(IDS_ISSUED, generator, g -> stats.apply(g).idsIssued())
        .description("Ids issued by the gene-id generator")
        .baseUnit("ids")
        .tags(tags)
        .register(registry);
    TimeGauge.builder(BORROW_DEBT, generator, TimeUnit.MILLISECONDS, g -> stats.apply(g).borrowDebt().toMillis())
        .description("How far the furthest gene runs ahead of the clock (borrowed milliseconds); near"
            + " maxBorrowMillis the generator is at capacity and callers wait")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(CLOCK_STEPBACKS, generator, g -> stats.apply(g).clockStepBacks())
        .description("Times the generator's clock was seen stepping back")
        .tags(tags)
        .register(registry);
    TimeGauge.builder(CLOCK_STEPBACK_MAX, generator, TimeUnit.MILLISECONDS,
            g -> stats.apply(g).largestClockStepBack().toMillis())
        .description("The largest clock step back seen")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(CLOCK_WAITS, generator, g -> stats.apply(g).clockWaits())
        .description("Times a caller waited for the clock: borrowing bound reached or clock stepped back")
        .tags(tags)
        .register(registry);
    TimeGauge.builder(TIMESTAMP_REMAINING, generator, TimeUnit.MILLISECONDS,
            g -> remainingMillis(layout, clock.apply(g)))
        .description("Time until the layout's timestamp field runs out and no id can be issued")
        .tags(tags)
        .register(registry);
  }

  private static void bindLease(MeterRegistry registry, LeasedGeneGenerator generator, Tags tags) {
    TimeGauge.builder(LEASE_REMAINING, generator, TimeUnit.MILLISECONDS,
            g -> g.stats().leaseRemaining().toNanos() / 1e6)
        .description("Time left before the generator fences itself unless a lease renewal succeeds; 0 once fenced")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(LEASE_RENEWAL_FAILURES, generator, g -> g.stats().renewalFailures())
        .description("Worker-id lease renewal rounds that failed (store unreachable or lease refused)")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(LEASE_FENCINGS, generator, g -> g.stats().fencings())
        .description("Worker-id leases lost: lapsed without a renewal, or refused by the store")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(LEASE_SWITCHES, generator, g -> g.stats().workerSwitches())
        .description("Moves to a fresh worker id after the clock stepped back")
        .tags(tags)
        .register(registry);
    Gauge.builder(LEASE_ISSUING, generator, g -> g.isIssuing() ? 1 : 0)
        .description("1 while the generator can issue ids, 0 while it is fenced or closed")
        .tags(tags)
        .register(registry);
    Gauge.builder(WORKER_ID, generator, g -> g.stats().workerId())
        .description("The worker id the generator holds now")
        .tags(tags)
        .register(registry);
  }

  private static double remainingMillis(GeneIdLayout layout, GeneClock clock) {
    Instant now = Instant.ofEpochMilli(clock.currentTimeMillis());
    Instant end = layout.lastTimestamp().plusMillis(1);
    return Math.max(0, Duration.between(now, end).toMillis());
  }
}
