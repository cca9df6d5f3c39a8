package io.geneid.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.geneid.benchmarks.e2e.E2eReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Writes {@code BENCHMARKS.md} from the JMH JSON files of a results directory and the {@code environment.properties}
 * that {@code run.sh} records beside them. Every figure in the report comes from those files; ceilings come from
 * {@link Ceilings}.
 *
 * <pre>
 * java -cp ... io.geneid.benchmarks.report.BenchmarkReport RESULTS_DIR OUTPUT_MD [--smoke]
 * </pre>
 */
public final class BenchmarkReport {

  /** A measured rate at or above this share of its ceiling is limited by the bits (the 5% target). */
  static final double BITS_LIMITED = 0.95;
  /** Above this share of its ceiling a generator issues ids ahead of the clock. */
  static final double BORROWING = 1.05;

  /** One JMH result: a benchmark with its params at one thread count. */
  record Result(String benchmark, Map<String, String> params, int threads, String mode, Metric primary,
      Map<String, Metric> secondary, JsonNode raw) {}

  /**
   * A JMH metric: score with its 99.9% error (NaN with a single iteration), and the mean of each fork's iterations
   * (one entry per fork; with several forks their spread shows what a fork's placement on the CPUs changes).
   */
  record Metric(double score, double error, String unit, List<Double> forkMeans) {}

  private BenchmarkReport() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 2 || args.length > 3 || (args.length == 3 && !args[2].equals("--smoke"))) {
      System.err.println("usage: BenchmarkReport RESULTS_DIR OUTPUT_MD [--smoke]");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    Path out = Path.of(args[1]);
    boolean smoke = args.length == 3;
    String markdown = render(readResults(dir), readEnvironment(dir), dir, smoke);
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    System.out.println("wrote " + out);
  }

  /** Every result of every {@code *.json} file in {@code dir}, in file-name order. */
  static List<Result> readResults(Path dir) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().collect(Collectors.toList());
    }
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no JMH *.json result in " + dir.toAbsolutePath());
    }
    List<Result> results = new ArrayList<>();
    for (Path file : files) {
      for (JsonNode node : mapper.readTree(file.toFile())) {
        Map<String, String> params = new TreeMap<>();
        node.path("params").fields().forEachRemaining(e -> params.put(e.getKey(), e.getValue().asText()));
        Map<String, Metric> secondary = new LinkedHashMap<>();
        node.path("secondaryMetrics").fields().forEachRemaining(e -> secondary.put(e.getKey(), metric(e.getValue())));
        results.add(new Result(node.path("benchmark").asText(), params, node.path("threads").asInt(),
            node.path("mode").asText(), metric(node.path("primaryMetric")), secondary, node));
      }
    }
    return results;
  }

  private static Metric metric(JsonNode m) {
    List<Double> forkMeans = new ArrayList<>();
    for (JsonNode fork : m.path("rawData")) {
      double sum = 0;
      for (JsonNode iteration : fork) {
        sum += iteration.asDouble();
      }
      if (fork.size() > 0) {
        forkMeans.add(sum / fork.size());
      }
    }
    return new Metric(number(m.path("score")), number(m.path("scoreError")), m.path("scoreUnit").asText(),
        List.copyOf(forkMeans));
  }

  private static double number(JsonNode n) {
    return n.isNumber() ? n.asDouble() : Double.NaN; // JMH writes "NaN" as a string
  }

  static Properties readEnvironment(Path dir) throws IOException {
    Properties p = new Properties();
    Path file = dir.resolve("environment.properties");
    if (Files.exists(file)) {
      try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(r);
      }
    }
    return p;
  }

  static String render(List<Result> results, Properties env, Path dir, boolean smoke) {
    StringBuilder md = new StringBuilder();
    md.append("# gene-id benchmarks\n\n");
    if (smoke) {
      md.append("> **SMOKE RUN: not a measurement.** One short iteration per benchmark, possibly on a busy machine; "
          + "it only proves the suite runs. Do not quote these figures.\n\n");
    }
    md.append("Generated by `gene-id-benchmarks/run.sh` from the JMH JSON in `")
        .append(dir.getFileName()).append("/`; do not edit by hand. Rerun with:\n\n")
        .append("    gene-id-benchmarks/run.sh\n\n");

    Result any = results.get(0);
    md.append("## Machine\n\n| | |\n|---|---|\n");
    row(md, "date (UTC)", env.getProperty("date", "?"));
    row(md, "CPUs (`nproc`)", env.getProperty("nproc", "?"));
    row(md, "CPU model", env.getProperty("cpu", "?"));
    row(md, "load average at start", env.getProperty("loadavg", "?"));
    row(md, "OS", env.getProperty("os", "?"));
    row(md, "JVM", any.raw().path("vmName").asText() + " " + any.raw().path("vmVersion").asText()
        + " (JDK " + any.raw().path("jdkVersion").asText() + ")");
    row(md, "JMH", any.raw().path("jmhVersion").asText());
    row(md, "JMH settings", settings(results));
    row(md, "git commit", env.getProperty("commit", "?"));
    md.append('\n');

    renderGenerators(md, results);
    renderCosts(md, results);
    renderEndToEnd(md, results);
    renderRealDatabases(md, dir);
    return md.toString();
  }

  private static String settings(List<Result> results) {
    return results.stream().map(r -> {
      JsonNode n = r.raw();
      return n.path("forks").asInt() + " fork(s), " + n.path("warmupIterations").asInt() + " x "
          + n.path("warmupTime").asText() + " warm-up, " + n.path("measurementIterations").asInt() + " x "
          + n.path("measurementTime").asText() + " measured";
    }).distinct().collect(Collectors.joining("; "));
  }

  private record Key(String benchmark, Map<String, String> params) {}

  private static void renderGenerators(StringBuilder md, List<Result> results) {
    Map<Key, Map<Integer, Result>> byKey = new LinkedHashMap<>();
    Map<Key, Ceiling> ceilings = new LinkedHashMap<>();
    for (Result r : results) {
      Optional<Ceiling> c = Ceilings.of(r.benchmark(), r.params());
      if (c.isEmpty()) {
        continue;
      }
      Key k = new Key(r.benchmark(), r.params());
      ceilings.put(k, c.get());
      byKey.computeIfAbsent(k, x -> new TreeMap<>()).put(r.threads(), r);
    }
    if (byKey.isEmpty()) {
      return;
    }
    List<Integer> threadCounts = byKey.values().stream().flatMap(m -> m.keySet().stream()).distinct().sorted()
        .collect(Collectors.toList());
    List<Key> keys = new ArrayList<>(byKey.keySet());
    keys.sort(Comparator.comparingInt((Key k) -> group(k.benchmark()))
        .thenComparingInt(k -> layoutRank(k.params().getOrDefault("layout", "")))
        .thenComparingLong(k -> Long.parseLong(k.params().getOrDefault("step", "0")))
        .thenComparingInt(k -> methodRank(k.benchmark()))
        .thenComparingInt(k -> POLICIES.indexOf(k.params().getOrDefault("policy", "adaptive"))));
    List<Key> bitBound = keys.stream().filter(k -> ceilings.get(k).hasBitCeiling()).collect(Collectors.toList());
    List<Key> storeBound = keys.stream().filter(k -> !ceilings.get(k).hasBitCeiling()).collect(Collectors.toList());
    if (!bitBound.isEmpty()) {
      renderSnowflakes(md, bitBound, byKey, ceilings, threadCounts);
    }
    if (!storeBound.isEmpty()) {
      renderSegments(md, storeBound, byKey, ceilings, threadCounts);
    }
  }

  private static void renderSnowflakes(StringBuilder md, List<Key> keys, Map<Key, Map<Integer, Result>> byKey,
      Map<Key, Ceiling> ceilings, List<Integer> threadCounts) {
    md.append("## Generators\n\n")
        .append("Throughput in ids per millisecond (ops/ms, ± the 99.9% confidence half-width JMH reports), all "
            + "threads sharing one generator (one worker id). The *ceiling* is what the generator's bits allow one "
            + "worker per millisecond without borrowing time from the future; *ratio* = measured / ceiling. "
            + "A ratio of at least " + BITS_LIMITED + " means the bits set the rate; below it, the CPU (code and "
            + "contention) does; above " + BORROWING + " the generator is issuing ids ahead of the clock.\n\n");
    md.append("| generator | call | layout | ceiling (ids/ms) | basis | borrows ahead |");
    for (int t : threadCounts) {
      md.append(' ').append(threadsHeader(t)).append(" | ratio |");
    }
    md.append("\n|---|---|---|--:|---|---|");
    md.append("--:|---|".repeat(threadCounts.size()));
    md.append('\n');
    for (Key k : keys) {
      Ceiling c = ceilings.get(k);
      md.append("| ").append(c.generator()).append(" | `").append(c.call()).append("` | ").append(c.layout())
          .append(" | ").append(String.format(Locale.ROOT, "%,.0f", c.opsPerMs())).append(" | ").append(c.basis())
          .append(" | ").append(c.borrows())
          .append(" |");
      for (int t : threadCounts) {
        Result r = byKey.get(k).get(t);
        if (r == null) {
          md.append(" – | – |");
        } else {
          double ratio = r.primary().score() / c.opsPerMs();
          md.append(' ').append(scoreWithError(r.primary())).append(" | ").append(String.format(Locale.ROOT, "%.2f",
              ratio)).append(" (").append(limitedBy(ratio)).append(") |");
        }
      }
      md.append('\n');
    }
    md.append('\n');
  }

  /** Segment ids read no clock: no ceiling column, no ratio, the step beside each row. */
  private static void renderSegments(StringBuilder md, List<Key> keys, Map<Key, Map<Integer, Result>> byKey,
      Map<Key, Ceiling> ceilings, List<Integer> threadCounts) {
    md.append("## Segment generators\n\n")
        .append("Throughput in ids per millisecond (ops/ms, ± the 99.9% confidence half-width JMH reports), all "
            + "threads sharing one generator, over the same in-memory store for all (an `AtomicLong` advanced by the "
            + "step asked for): the figure is the generator's code cost. Every generator starts from the same "
            + "*first step* and grows it by its own policy, given in the last column. Segment ids have no bit "
            + "ceiling (layout `V` = value bits, `G` = gene bits); with a real store the rate is bound by the "
            + "store, one round trip per segment, so there is no ratio to show.\n\n");
    md.append("| generator | call | layout | first step | ceiling |");
    for (int t : threadCounts) {
      md.append(' ').append(threadsHeader(t)).append(" |");
    }
    md.append("\n|---|---|---|--:|---|");
    md.append("--:|".repeat(threadCounts.size()));
    md.append('\n');
    for (Key k : keys) {
      Ceiling c = ceilings.get(k);
      String step = k.params().get("step");
      md.append("| ").append(c.generator()).append(" | `").append(c.call()).append("` | ").append(c.layout())
          .append(" | ").append(step == null ? "?" : String.format(Locale.ROOT, "%,d", Long.parseLong(step)))
          .append(" | ").append(c.basis()).append(" |");
      for (int t : threadCounts) {
        Result r = byKey.get(k).get(t);
        md.append(' ').append(r == null ? "–" : scoreWithError(r.primary())).append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
  }

  private static String threadsHeader(int threads) {
    return threads + (threads == 1 ? " thread" : " threads") + " (ops/ms)";
  }

  /** What sets a generator's rate, given its measured share of its ceiling. */
  static String limitedBy(double ratio) {
    if (ratio > BORROWING) {
      return "ahead of clock";
    }
    return ratio >= BITS_LIMITED ? "bits" : "CPU";
  }

  /**
   * Rows in reading order: gene-id, then the published design, then the peers, then the segment generators (by
   * step); each in {@link #METHODS} order.
   */
  private static final List<String> METHODS = List.of("hotGene", "allGenes", "spread", "forParent",
      "shardingSphereSnowflake", "myBatisPlusDefault", "cosIdMillisecondSnowflake", "hutoolSnowflake", "yitter",
      "geneSegmentSpread", "geneSegmentForParent", "cosIdSegmentChain", "cosIdDefaultSegment", "sharedCounter");

  /** Segment step policies in reading order. */
  private static final List<String> POLICIES = List.of("adaptive", "pinned", "thread-block",
      "pinned-thread-block");

  private static int group(String benchmark) {
    if (benchmark.contains(".GeneSnowflakeBenchmark.")) {
      return 0;
    }
    if (benchmark.contains(".SegmentBenchmark.")) {
      return 3;
    }
    return benchmark.contains(".PublishedGeneBenchmark.") ? 1 : 2;
  }

  private static int layoutRank(String layout) {
    return layout.equals("classic") ? 1 : 0;
  }

  private static int methodRank(String benchmark) {
    int i = METHODS.indexOf(benchmark.substring(benchmark.lastIndexOf('.') + 1));
    return i < 0 ? METHODS.size() : i;
  }

  /**
   * The CPU cost rows ({@code IdCostBenchmark}: ns per id in a layout whose bits never bind), one column per thread
   * count: what the ceiling rows cannot show once the bits set the rate.
   */
  private static void renderCosts(StringBuilder md, List<Result> results) {
    Map<String, Map<Integer, Result>> byMethod = new LinkedHashMap<>();
    for (Result r : results) {
      if (r.benchmark().contains(".IdCostBenchmark.")) {
        byMethod.computeIfAbsent(r.benchmark().substring(r.benchmark().lastIndexOf('.') + 1), x -> new TreeMap<>())
            .put(r.threads(), r);
      }
    }
    if (byMethod.isEmpty()) {
      return;
    }
    List<Integer> threadCounts = byMethod.values().stream().flatMap(m -> m.keySet().stream()).distinct().sorted()
        .collect(Collectors.toList());
    boolean cpu = byMethod.values().stream().flatMap(m -> m.values().stream())
        .anyMatch(r -> r.secondary().containsKey(CPU_WORKER));
    md.append("## CPU cost per id\n\n")
        .append("Average time per call in ns (± the 99.9% confidence half-width), per thread, in a layout whose bits "
            + "never bind (T41 W0 S16 G6: 4 million ids per ms), so the figure is the code's and the contention's, "
            + "not the ceiling's. `part*` rows time one piece of a `nextId()` call alone.")
        .append(cpu ? " *CPU* columns: CPU time of the calling threads per call (`io.geneid.benchmarks.CpuTimeProfiler`),"
            + " which time spent waiting for a core on a shared machine does not inflate." : "")
        .append("\n\n| call |");
    for (int t : threadCounts) {
      md.append(' ').append(t).append(t == 1 ? " thread" : " threads").append(" (ns per id) |");
      if (cpu) {
        md.append(" CPU, ").append(t).append(t == 1 ? " thread" : " threads").append(" |");
      }
    }
    int columns = threadCounts.size() * (cpu ? 2 : 1);
    md.append("\n|---|").append("--:|".repeat(columns)).append('\n');
    byMethod.forEach((method, byThreads) -> {
      md.append("| `").append(method).append("` |");
      for (int t : threadCounts) {
        Result r = byThreads.get(t);
        md.append(' ').append(r == null ? "–" : scoreWithError(r.primary())).append(" |");
        if (cpu) {
          Metric m = r == null ? null : r.secondary().get(CPU_WORKER);
          md.append(' ').append(m == null ? "–" : fmt(m.score())).append(" |");
        }
      }
      md.append('\n');
    });
    md.append('\n');
    Map<Integer, Result> guarded = byMethod.get(GUARDED);
    if (guarded != null && guarded.containsKey(1)) {
      md.append(goal(guarded)).append("\n\n");
    }
  }

  /** The row issue #44 set a goal for: {@code nextId()} spread over the genes where the bits do not bind. */
  static final String GUARDED = "plainNextIdSpread";
  static final String CPU_WORKER = "cpu.worker";
  /** #44: at most this many ns of CPU per id at 1 thread... */
  static final double GOAL_NANOS = 10.0;
  /** ... and 2 threads at most this many times 1 thread. */
  static final double GOAL_SCALING = 1.2;

  /**
   * Whether {@link #GUARDED} meets the goal of issue #44, from the CPU time per id where the run measured it (else
   * the average time): at most {@link #GOAL_NANOS} at 1 thread, and 2 threads at most {@link #GOAL_SCALING} times 1.
   */
  static String goal(Map<Integer, Result> byThreads) {
    Result one = byThreads.get(1);
    Result two = byThreads.get(2);
    boolean cpu = one.secondary().containsKey(CPU_WORKER);
    double a = cpu ? one.secondary().get(CPU_WORKER).score() : one.primary().score();
    StringBuilder line = new StringBuilder("Goal of #44 for `" + GUARDED + "` (" + (cpu ? "CPU time" : "average time")
        + " per id): at most " + fmt(GOAL_NANOS) + " ns at 1 thread: " + fmt(a) + " ns, "
        + (a <= GOAL_NANOS ? "met" : "**not met**"));
    if (two != null) {
      Metric m = cpu ? two.secondary().get(CPU_WORKER) : two.primary();
      double b = m == null ? Double.NaN : m.score();
      line.append("; 2 threads at most ").append(GOAL_SCALING).append(" times 1 thread: ")
          .append(String.format(Locale.ROOT, "%.2f", b / a)).append(b / a <= GOAL_SCALING ? ", met" : ", **not met**");
    }
    return line.append('.').toString();
  }

  private static void renderEndToEnd(StringBuilder md, List<Result> results) {
    List<Result> e2e = results.stream().filter(r -> r.benchmark().contains(".e2e.")).collect(Collectors.toList());
    if (e2e.isEmpty()) {
      return;
    }
    md.append("## End to end through ShardingSphere-JDBC 5.5.2 (embedded H2, 4 databases)\n\n")
        .append("`insertChild`: one child row per INSERT, its id generated by the rules' key generator. "
            + "`queryByParent`: `SELECT ... FROM t_order_item WHERE order_id = ?`; physical statements are counted "
            + "from ShardingSphere's routed statements for every query. The `snowflake` rule set shards items by "
            + "their own id, which is not what ShardingSphere users usually run (items on `order_id`, where a query "
            + "by order id reads one table too): see the next section for that comparison.\n\n")
        .append("| benchmark | rules | threads | score | physical statements per query |\n|---|---|--:|--:|--:|\n");
    for (Result r : e2e) {
      String method = r.benchmark().substring(r.benchmark().lastIndexOf('.') + 1);
      Metric statements = r.secondary().get("physicalStatements");
      Metric queries = r.secondary().get("queries");
      String perQuery = statements != null && queries != null && queries.score() > 0
          ? String.format(Locale.ROOT, "%.2f", statements.score() / queries.score())
          : "–";
      md.append("| ").append(method).append(" | ").append(r.params().getOrDefault("rules", "?")).append(" | ")
          .append(r.threads()).append(" | ").append(scoreWithError(r.primary())).append(' ')
          .append(r.primary().unit()).append(" | ").append(perQuery).append(" |\n");
    }
    md.append('\n');
  }

  /** The paragraph above the end-to-end tables of {@code BENCHMARKS.md}. */
  static final String E2E_INTRO = "Orders with 3 items through ShardingSphere-JDBC 5.5.2, against the setup "
      + "ShardingSphere users run; written by `gene-id-benchmarks/e2e.sh` between the markers below (what each "
      + "rule set and column means: "
      + "[docs/benchmarks.md](../docs/benchmarks.md#end-to-end-against-the-setup-shardingsphere-users-run)). "
      + "A run labelled QUICK RUN is preliminary; with *other CPU* near the machine's core count its times "
      + "and rates are noise, while tables read, balance and client KB per order do not depend on the load.";

  /**
   * The end-to-end runs on real databases ({@code gene-id-benchmarks/e2e.sh}), from their markdown results files in
   * {@code dir}, between the markers {@code e2e.sh} fills in again after each of its runs.
   */
  private static void renderRealDatabases(StringBuilder md, Path dir) {
    md.append("## End to end on MariaDB, PostgreSQL and H2 (`e2e.sh`)\n\n").append(E2E_INTRO).append("\n\n")
        .append(E2eReport.BEGIN).append('\n');
    try {
      md.append(E2eReport.section(dir));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the end-to-end results in " + dir, e);
    }
    md.append(E2eReport.END).append('\n');
  }

  /** The score, its error, and with several forks the lowest and highest fork mean. */
  static String scoreWithError(Metric m) {
    String score = Double.isNaN(m.error()) ? fmt(m.score()) : fmt(m.score()) + " ± " + fmt(m.error());
    if (m.forkMeans().size() < 2) {
      return score;
    }
    double low = m.forkMeans().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double high = m.forkMeans().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return score + " (" + m.forkMeans().size() + " forks: " + fmt(low) + " – " + fmt(high) + ")";
  }

  static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%,.2f", v);
  }

  private static void row(StringBuilder md, String name, @Nullable String value) {
    md.append("| ").append(name).append(" | ").append(value == null ? "?" : value.replace("|", "\\|")).append(" |\n");
  }
}
