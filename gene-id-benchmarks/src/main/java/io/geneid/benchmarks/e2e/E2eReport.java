package io.geneid.benchmarks.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The figures of {@link EndToEndBenchmark}, one value per repetition for each (shape, rule set, measure, threads),
 * written as markdown: the median over repetitions with its spread (min–max), and the machine's load during each
 * phase. Also folds the results files into {@code BENCHMARKS.md} ({@link #main(String[])}).
 */
public final class E2eReport {

  /** The begin marker of the end-to-end part of {@code BENCHMARKS.md}. */
  public static final String BEGIN = "<!-- e2e-results:begin (gene-id-benchmarks/e2e.sh writes this part) -->";
  /** The end marker of the end-to-end part of {@code BENCHMARKS.md}. */
  public static final String END = "<!-- e2e-results:end -->";

  private record Sample(double value, MachineLoad.@Nullable Phase phase) {}

  private final EndToEndBenchmark.Settings settings;
  private final Map<String, List<Sample>> samples = new LinkedHashMap<>();

  E2eReport(EndToEndBenchmark.Settings settings) {
    this.settings = settings;
  }

  void add(E2eRules.Shape shape, E2eRules rules, String measure, int threads, double value,
      MachineLoad.@Nullable Phase phase) {
    samples.computeIfAbsent(key(shape, rules, measure, threads), k -> new ArrayList<>()).add(new Sample(value, phase));
  }

  private static String key(E2eRules.Shape shape, E2eRules rules, String measure, int threads) {
    return shape + "|" + rules.label() + "|" + measure + "|" + threads;
  }

  private List<Sample> get(E2eRules.Shape shape, E2eRules rules, String measure, int threads) {
    return samples.getOrDefault(key(shape, rules, measure, threads), List.of());
  }

  void write(Instant started, Instant ended) throws IOException {
    Path out = settings.out();
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, markdown(started, ended), StandardCharsets.UTF_8);
  }

  String markdown(Instant started, Instant ended) {
    StringBuilder md = new StringBuilder();
    String server = switch (settings.server()) {
      case MARIADB -> "MariaDB";
      case POSTGRESQL -> "PostgreSQL";
      case H2 -> "H2 (embedded, in memory)";
    };
    md.append("### ").append(server).append(settings.quick() ? " — QUICK RUN, preliminary" : "").append("\n\n");
    md.append("`gene-id-benchmarks/e2e.sh --db ").append(settings.server().label())
        .append(settings.quick() ? " --quick" : "").append("`, ")
        .append(started.truncatedTo(ChronoUnit.SECONDS)).append(", ")
        .append(Duration.between(started, ended).toSeconds()).append(" s, ")
        .append(Runtime.getRuntime().availableProcessors()).append(" CPUs, JDK ")
        .append(System.getProperty("java.version")).append(". ")
        .append(settings.repetitions()).append(" repetitions, each running the rule sets back to back (in a rotated"
            + " order); each cell is the median over repetitions [min–max]. Per rule set and repetition: ")
        .append(settings.warmupOrders()).append(" orders and queries of warm-up, ")
        .append(settings.insertOrders()).append(" orders per thread for each thread count, ")
        .append(settings.queries()).append(" queries per thread of each kind. *other CPU*: cores used during the"
            + " phase by processes other than this JVM and the database server, median [max] over repetitions;"
            + " *load*: 1-minute load average at the phase's start, median.\n\n");

    md.append("Insert of an order and its ").append(EndToEndBenchmark.ITEMS_PER_ORDER).append(" items in one"
        + " transaction (4 INSERTs and a commit, ids from the rules' key generator). *vs usual*: this rule set's"
        + " figure over `usual`'s in the same repetition. *client CPU*: CPU time of the inserting threads per order"
        + " (ShardingSphere's parsing, routing and rewriting, the key generator, the JDBC driver; on H2 also the"
        + " database); *client KB*: bytes those threads allocated per order, a measure of the client's work that"
        + " other processes do not change.\n\n");
    md.append("| shape | threads | rules | orders/s | vs usual | p50 µs | p99 µs | client CPU µs/order | vs usual"
        + " | client KB/order | other CPU | load |\n");
    md.append("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (E2eRules.Shape shape : settings.shapes()) {
      for (int threads : settings.threads()) {
        for (E2eRules rules : settings.rules()) {
          List<Sample> tps = get(shape, rules, "insert-tps", threads);
          if (tps.isEmpty()) {
            continue;
          }
          md.append("| ").append(shape).append(" | ").append(threads).append(" | ").append(rules.label())
              .append(" | ").append(cell(tps, "%,.0f")).append(" | ")
              .append(ratioCell(tps, get(shape, E2eRules.USUAL, "insert-tps", threads))).append(" | ")
              .append(cell(get(shape, rules, "insert-p50", threads), "%,.0f")).append(" | ")
              .append(cell(get(shape, rules, "insert-p99", threads), "%,.0f")).append(" | ")
              .append(cell(get(shape, rules, "insert-cpu", threads), "%,.0f")).append(" | ")
              .append(ratioCell(get(shape, rules, "insert-cpu", threads),
                  get(shape, E2eRules.USUAL, "insert-cpu", threads))).append(" | ")
              .append(cell(get(shape, rules, "insert-kb", threads), "%.1f")).append(" | ")
              .append(otherCpu(tps)).append(" | ").append(loadCell(tps)).append(" |\n");
        }
      }
    }

    md.append("\nQueries over the rows just inserted. *by order id*: `").append(EndToEndBenchmark.ITEMS_OF_ORDER)
        .append("`; *by item id*: `").append(EndToEndBenchmark.ITEM_BY_ID).append("`. *tables*: physical tables"
            + " read per query, counted from the SQL of the statements ShardingSphere ran (it merges one"
            + " database's tables into one `UNION ALL` statement, so statements would undercount).\n\n");
    md.append("| shape | threads | rules | by order: p50 µs | queries/s | tables | by item: p50 µs | queries/s | tables"
        + " | by item vs usual (queries/s) | other CPU | load |\n");
    md.append("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (E2eRules.Shape shape : settings.shapes()) {
      for (int threads : settings.threads()) {
        for (E2eRules rules : settings.rules()) {
          List<Sample> byOrder = get(shape, rules, "by-order-qps", threads);
          List<Sample> byItem = get(shape, rules, "by-item-qps", threads);
          if (byOrder.isEmpty()) {
            continue;
          }
          List<Sample> both = new ArrayList<>(byOrder);
          both.addAll(byItem);
          md.append("| ").append(shape).append(" | ").append(threads).append(" | ").append(rules.label())
              .append(" | ").append(cell(get(shape, rules, "by-order-p50", threads), "%,.0f"))
              .append(" | ").append(cell(byOrder, "%,.0f"))
              .append(" | ").append(cell(get(shape, rules, "by-order-tables", 0), "%.2f"))
              .append(" | ").append(cell(get(shape, rules, "by-item-p50", threads), "%,.0f"))
              .append(" | ").append(cell(byItem, "%,.0f"))
              .append(" | ").append(cell(get(shape, rules, "by-item-tables", 0), "%.2f"))
              .append(" | ").append(ratioCell(byItem, get(shape, E2eRules.USUAL, "by-item-qps", threads)))
              .append(" | ").append(otherCpu(both)).append(" | ").append(loadCell(both)).append(" |\n");
        }
      }
    }

    md.append("\nBalance: max / mean orders per physical table (1.00 = even; items follow their order, checked"
        + " row for row). *low rate*: ").append(settings.lowRateOrders()).append(" orders, one every ")
        .append(settings.lowRatePeriodMillis()).append(" ms from 1 thread, on empty tables. *high rate*: after the"
        + " insert phases above (as fast as the threads go), on empty tables.\n\n");
    md.append("| shape | rules | low rate | other CPU | high rate | orders |\n");
    md.append("|---|---|--:|--:|--:|--:|\n");
    for (E2eRules.Shape shape : settings.shapes()) {
      for (E2eRules rules : settings.rules()) {
        List<Sample> low = get(shape, rules, "balance-low", 0);
        if (low.isEmpty()) {
          continue;
        }
        md.append("| ").append(shape).append(" | ").append(rules.label()).append(" | ").append(cell(low, "%.2f"))
            .append(" | ").append(otherCpu(low)).append(" | ")
            .append(cell(get(shape, rules, "balance-high", 0), "%.2f")).append(" | ")
            .append(cell(get(shape, rules, "high-orders", 0), "%,.0f")).append(" |\n");
      }
    }
    md.append("\nRule sets (shape `DxT`: D databases of T tables, tables numbered across the databases):\n\n");
    for (E2eRules rules : settings.rules()) {
      md.append("- `").append(rules.label()).append("`: ").append(rules.summary()).append('\n');
    }
    return md.toString();
  }

  private static String cell(List<Sample> samples, String format) {
    return spread(samples.stream().mapToDouble(Sample::value).toArray(), format);
  }

  static String spread(double[] values, String format) {
    if (values.length == 0) {
      return "–";
    }
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    String median = String.format(Locale.ROOT, format, median(sorted));
    if (sorted.length == 1 || String.format(Locale.ROOT, format, sorted[0])
        .equals(String.format(Locale.ROOT, format, sorted[sorted.length - 1]))) {
      return median;
    }
    return median + " [" + String.format(Locale.ROOT, format, sorted[0]) + "–"
        + String.format(Locale.ROOT, format, sorted[sorted.length - 1]) + "]";
  }

  static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** Per-repetition ratio of {@code these} to {@code usual} (same repetition = same position). */
  private static String ratioCell(List<Sample> these, List<Sample> usual) {
    int n = Math.min(these.size(), usual.size());
    double[] ratios = new double[n];
    for (int i = 0; i < n; i++) {
      ratios[i] = these.get(i).value() / usual.get(i).value();
    }
    return spread(ratios, "%.2f");
  }

  private static String otherCpu(List<Sample> samples) {
    double[] other = phases(samples, MachineLoad.Phase::otherCores);
    if (other.length == 0) {
      return "–";
    }
    java.util.Arrays.sort(other);
    return String.format(Locale.ROOT, "%.2f [%.2f]", median(other), other[other.length - 1]);
  }

  private static String loadCell(List<Sample> samples) {
    double[] load = phases(samples, MachineLoad.Phase::loadAverage);
    if (load.length == 0) {
      return "–";
    }
    java.util.Arrays.sort(load);
    return String.format(Locale.ROOT, "%.2f", median(load));
  }

  private static double[] phases(List<Sample> samples, ToDoubleFunction<MachineLoad.Phase> f) {
    return samples.stream().filter(s -> s.phase() != null).mapToDouble(s -> f.applyAsDouble(s.phase()))
        .filter(d -> !Double.isNaN(d)).toArray();
  }

  /**
   * The end-to-end section of {@code BENCHMARKS.md}: each server's results file in {@code results}
   * ({@code e2e-<db>.md}, or {@code e2e-<db>-quick.md} when there is no full run), or a line saying there is none.
   */
  public static String section(Path results) throws IOException {
    StringBuilder md = new StringBuilder();
    for (E2eDatabases.Server server : E2eDatabases.Server.values()) {
      Path full = results.resolve("e2e-" + server.label() + ".md");
      Path quick = results.resolve("e2e-" + server.label() + "-quick.md");
      Path file = Files.exists(full) ? full : Files.exists(quick) ? quick : null;
      if (file != null) {
        md.append(Files.readString(file, StandardCharsets.UTF_8).strip()).append("\n\n");
      }
    }
    return md.length() == 0 ? "No results yet: run `gene-id-benchmarks/e2e.sh --db mariadb` (or postgresql, h2).\n"
        : md.toString().strip() + "\n";
  }

  /** {@code report} with the part between {@link #BEGIN} and {@link #END} replaced by {@code section}. */
  public static String splice(String report, String section) {
    int begin = report.indexOf(BEGIN);
    int end = report.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("the report has no " + BEGIN + " ... " + END + " part to fill");
    }
    return report.substring(0, begin + BEGIN.length()) + "\n" + section + report.substring(end);
  }

  /**
   * {@code E2eReport <results dir> <BENCHMARKS.md>}: puts the results files' tables between the report's markers,
   * leaving the rest of the report (the JMH part, written by {@code run.sh}) as it is.
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: E2eReport <results dir> <BENCHMARKS.md>");
    }
    Path report = Path.of(args[1]);
    Files.writeString(report, splice(Files.readString(report, StandardCharsets.UTF_8), section(Path.of(args[0]))),
        StandardCharsets.UTF_8);
  }
}
