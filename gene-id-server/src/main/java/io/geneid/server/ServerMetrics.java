package io.geneid.server;

import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** The server's meters, in one Prometheus registry served at {@code /metrics}. */
final class ServerMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final DistributionSummary batchSizes;
  private final JvmGcMetrics gc = new JvmGcMetrics();

  ServerMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    batchSizes = DistributionSummary.builder("geneid.server.batch.size")
        .description("ids per request").serviceLevelObjectives(1, 10, 100, 1000, 10_000).register(registry);
  }

  /** A request answered: its latency, and on success the ids it issued. */
  void request(String endpoint, String protocol, String outcome, long nanos, String kind, int ids) {
    String key = endpoint + '|' + protocol + '|' + outcome;
    Timer t = timers.get(key);
    if (t == null) {
      t = timers.computeIfAbsent(key, k -> Timer.builder("geneid.server.request")
          .description("requests by endpoint, protocol and outcome (ok or the error code)")
          .tags("endpoint", endpoint, "protocol", protocol, "outcome", outcome)
          .publishPercentileHistogram()
          .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(10))
          .register(registry));
    }
    t.record(nanos, TimeUnit.NANOSECONDS);
    if (!outcome.equals("ok")) {
      rejected(outcome);
    }
    if (ids > 0) {
      String ck = kind + '|' + protocol;
      Counter c = counters.get(ck);
      if (c == null) {
        c = counters.computeIfAbsent(ck, k -> Counter.builder("geneid.server.ids.issued")
            .description("ids issued").tags("kind", kind, "protocol", protocol).register(registry));
      }
      c.increment(ids);
      batchSizes.record(ids);
    }
  }

  void watchLease(LeasedGeneGenerator g) {
    Gauge.builder("geneid.server.lease.issuing", g, x -> x.isIssuing() ? 1 : 0)
        .description("1 while the worker id lease is held and not fenced").register(registry);
    Gauge.builder("geneid.server.worker.id", g, LeasedGeneGenerator::workerId)
        .description("the worker id held, -1 while none").register(registry);
    Gauge.builder("geneid.server.lease.remaining", g, x -> x.stats().leaseRemaining().toMillis() / 1000.0)
        .baseUnit("seconds").description("time left before the lease would lapse without renewal")
        .register(registry);
  }

  private final Map<GeneSegmentGenerator, Gauge> segmentGauges = new ConcurrentHashMap<>();

  void unwatchSegment(GeneSegmentGenerator g) {
    Gauge gauge = segmentGauges.remove(g);
    if (gauge != null) {
      registry.remove(gauge);
    }
  }

  /** A request refused, by its error code: {@code geneid_server_rejected_total{code}}. */
  void rejected(String code) {
    Counter c = counters.get("rejected|" + code);
    if (c == null) {
      c = counters.computeIfAbsent("rejected|" + code, k -> Counter.builder("geneid.server.rejected")
          .description("requests refused, by error code").tag("code", code).register(registry));
    }
    c.increment();
  }

  void watchSegment(GeneSegmentGenerator g) {
    segmentGauges.put(g, Gauge.builder("geneid.server.segment.remaining", g, x -> x.status().remaining())
        .tag("key", g.bizTag()).description("values left in fetched segments").register(registry));
  }

  String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
