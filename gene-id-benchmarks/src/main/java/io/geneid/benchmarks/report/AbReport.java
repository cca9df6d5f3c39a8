package io.geneid.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The table of an alternating A/B run ({@code gene-id-benchmarks/ab.sh}): per side and thread count, the median and
 * the range over its forks (one fork per round) of the score and of the secondary results that say what an id costs
 * ({@code cpu.worker} and {@code cpu.process} from {@code io.geneid.benchmarks.CpuTimeProfiler}, bytes allocated per
 * op from {@code -prof gc}), each side against the first, and 2 threads against 1.
 *
 * <pre>
 * java -cp ... io.geneid.benchmarks.report.AbReport RUN_DIR
 * </pre>
 * {@code RUN_DIR} holds {@code sides.tsv} (label, revision, commit subject), {@code loads.tsv} (time, label, threads,
 * round, 1-, 5- and 15-minute load average before each fork) and one JMH JSON file per fork,
 * {@code <label>-t<threads>-r<round>.json}.
 */
public final class AbReport {

  private static final Pattern FILE = Pattern.compile("(.+)-t(\\d+)-r(\\d+)\\.json");
  /** The rows of the table, in order: JMH's name of the metric, and what the table calls it. */
  private static final Map<String, String> METRICS = new LinkedHashMap<>();

  static {
    METRICS.put("", "score");
    METRICS.put("cpu.worker", "CPU ns/id, calling threads");
    METRICS.put("cpu.process", "CPU ns/id, whole JVM");
    METRICS.put("gc.alloc.rate.norm", "bytes allocated/id");
  }

  private AbReport() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: AbReport RUN_DIR");
      System.exit(2);
    }
    System.out.print(render(Path.of(args[0])));
  }

  /** One fork's values, by metric name ("" for the primary score). */
  record Fork(String side, int threads, int round, String benchmark, String unit, Map<String, Double> values) {}

  static String render(Path dir) throws IOException {
    Map<String, String> sides = new LinkedHashMap<>();
    for (String line : Files.readAllLines(dir.resolve("sides.tsv"), StandardCharsets.UTF_8)) {
      String[] f = line.split("\t", 3);
      sides.put(f[0], f[1] + (f.length > 2 ? " (" + f[2] + ")" : ""));
    }
    List<Fork> forks = readForks(dir);
    StringBuilder out = new StringBuilder();
    out.append("A/B run in ").append(dir).append('\n');
    sides.forEach((label, rev) -> out.append("  ").append(label).append(" = ").append(rev).append('\n'));
    out.append(loads(dir)).append('\n');
    Map<String, List<Fork>> byBenchmark = forks.stream()
        .collect(Collectors.groupingBy(Fork::benchmark, TreeMap::new, Collectors.toList()));
    for (Map.Entry<String, List<Fork>> b : byBenchmark.entrySet()) {
      String unit = b.getValue().get(0).unit();
      List<Integer> threadCounts = b.getValue().stream().map(Fork::threads).distinct().sorted().toList();
      out.append("\n").append(b.getKey()).append(" (score in ").append(unit)
          .append("; median [min-max] over forks, one fork per side, thread count and round)\n\n");
      out.append("| metric | threads |");
      sides.keySet().forEach(s -> out.append(' ').append(s).append(" |"));
      sides.keySet().stream().skip(1).forEach(s -> out.append(' ').append(s).append(" / ")
          .append(sides.keySet().iterator().next()).append(" |"));
      out.append('\n').append("|---|--:|");
      sides.keySet().forEach(s -> out.append("--:|"));
      sides.keySet().stream().skip(1).forEach(s -> out.append("--:|"));
      out.append('\n');
      for (Map.Entry<String, String> m : METRICS.entrySet()) {
        for (int t : threadCounts) {
          List<Double> medians = new ArrayList<>();
          StringBuilder row = new StringBuilder("| " + m.getValue() + " | " + t + " |");
          for (String side : sides.keySet()) {
            List<Double> v = values(b.getValue(), side, t, m.getKey());
            medians.add(v.isEmpty() ? Double.NaN : median(v));
            row.append(' ').append(cell(v)).append(" |");
          }
          for (int i = 1; i < medians.size(); i++) {
            double base = medians.get(0);
            row.append(' ').append(Math.abs(base) < 0.05 ? "-"
                : String.format(Locale.ROOT, "%.2f", medians.get(i) / base)).append(" |");
          }
          if (medians.stream().allMatch(d -> d.isNaN())) {
            continue;
          }
          out.append(row).append('\n');
        }
      }
      if (threadCounts.size() > 1) {
        int last = threadCounts.get(threadCounts.size() - 1);
        int first = threadCounts.get(0);
        out.append("\n").append(last).append(" threads / ").append(first).append(" thread, medians:");
        for (String side : sides.keySet()) {
          out.append(' ').append(side).append(' ');
          out.append(ratio(b.getValue(), side, first, last, "")).append(" (score), ");
          out.append(ratio(b.getValue(), side, first, last, "cpu.worker")).append(" (CPU);");
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private static String ratio(List<Fork> forks, String side, int first, int last, String metric) {
    List<Double> a = values(forks, side, first, metric);
    List<Double> b = values(forks, side, last, metric);
    if (a.isEmpty() || b.isEmpty()) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.2f", median(b) / median(a));
  }

  private static List<Double> values(List<Fork> forks, String side, int threads, String metric) {
    return forks.stream().filter(f -> f.side().equals(side) && f.threads() == threads)
        .map(f -> f.values().get(metric)).filter(v -> v != null && !v.isNaN()).sorted().toList();
  }

  private static String cell(List<Double> v) {
    if (v.isEmpty()) {
      return "-";
    }
    return String.format(Locale.ROOT, "%s [%s-%s]", fmt(median(v)), fmt(v.get(0)), fmt(v.get(v.size() - 1)));
  }

  private static String fmt(double d) {
    return Math.abs(d) < 0.05 ? "0" : String.format(Locale.ROOT, Math.abs(d) >= 100 ? "%.0f" : "%.1f", d);
  }

  /** The median of sorted values. */
  static double median(List<Double> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String loads(Path dir) throws IOException {
    Path file = dir.resolve("loads.tsv");
    if (!Files.exists(file)) {
      return "load average: not recorded";
    }
    List<Double> one = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] f = line.split("\t");
      if (f.length >= 5) {
        one.add(Double.parseDouble(f[4]));
      }
    }
    one.sort(null);
    return one.isEmpty() ? "load average: not recorded"
        : String.format(Locale.ROOT, "1-minute load average before each fork: median %.2f, range %.2f-%.2f (%d forks)",
            median(one), one.get(0), one.get(one.size() - 1), one.size());
  }

  private static List<Fork> readForks(Path dir) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> FILE.matcher(p.getFileName().toString()).matches()).sorted().toList();
    }
    List<Fork> forks = new ArrayList<>();
    for (Path file : files) {
      Matcher m = FILE.matcher(file.getFileName().toString());
      m.matches();
      for (JsonNode node : mapper.readTree(file.toFile())) {
        String benchmark = node.path("benchmark").asText().replaceFirst("^io\\.geneid\\.benchmarks\\.", "");
        Map<String, Double> values = new TreeMap<>();
        values.put("", node.path("primaryMetric").path("score").asDouble(Double.NaN));
        node.path("secondaryMetrics").fields()
            .forEachRemaining(e -> values.put(e.getKey(), e.getValue().path("score").asDouble(Double.NaN)));
        forks.add(new Fork(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), benchmark,
            node.path("primaryMetric").path("scoreUnit").asText(), values));
      }
    }
    if (forks.isEmpty()) {
      throw new IllegalArgumentException("no <label>-t<threads>-r<round>.json file in " + dir.toAbsolutePath());
    }
    return forks;
  }
}
