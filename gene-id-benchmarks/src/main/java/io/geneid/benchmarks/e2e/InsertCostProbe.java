package io.geneid.benchmarks.e2e;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;

/**
 * The client's CPU time and allocated bytes per inserted order (an order and its 3 items in one transaction, as
 * {@link EndToEndBenchmark} inserts them), for several rule sets at once, on a busy machine: every rule set runs in
 * turn, round after round, in one thread, and the report gives the minimum and the lower quartile over the rounds
 * of the inserting thread's CPU time. Other processes only add to a thread's CPU time (cache and core contention),
 * so the low end of many alternating rounds approaches what a quiet machine gives, and the difference between rule
 * sets, whose database work is the same, is the routing's. Bytes allocated per order do not depend on the load at
 * all.
 *
 * <pre>
 *   java -cp ... io.geneid.benchmarks.e2e.InsertCostProbe [--db h2|mariadb|postgresql] [--shape 2x4]
 *       [--rules usual,gene,gene-auto,gene-standard] [--rounds 20] [--orders 500]
 * </pre>
 */
public final class InsertCostProbe {

  private InsertCostProbe() {}

  /** One rule set's figures: CPU µs per order (min, lower quartile, median over rounds) and KB per order. */
  record Cost(E2eRules rules, double min, double p25, double median, double kilobytes) {}

  /** Runs the probe; see the class comment for the arguments. Prints a markdown table. */
  public static void main(String[] args) throws Exception {
    E2eDatabases.Server server = E2eDatabases.Server.H2;
    E2eRules.Shape shape = E2eRules.Shape.of("2x4");
    List<E2eRules> rules = List.of(E2eRules.USUAL, E2eRules.GENE, E2eRules.GENE_AUTO,
        E2eRules.GENE_STANDARD);
    int rounds = 20;
    int orders = 500;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--db" -> server = E2eDatabases.Server.of(value);
        case "--shape" -> shape = E2eRules.Shape.of(value);
        case "--rules" -> rules = Arrays.stream(value.split(",")).map(E2eRules::of).toList();
        case "--rounds" -> rounds = Integer.parseInt(value);
        case "--orders" -> orders = Integer.parseInt(value);
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: [--db h2|mariadb|"
            + "postgresql] [--shape 2x4] [--rules usual,gene,gene-auto,gene-standard] [--rounds 20]"
            + " [--orders 500]");
      }
      i++;
    }
    List<Cost> costs = measure(server, shape, rules, rounds, orders);
    System.out.println(table(server, shape, rounds, orders, costs));
  }

  /**
   * {@code rounds} rounds (after 3 unmeasured ones) of {@code orders} orders per rule set, the rule sets in turn,
   * on new databases of {@code shape} that are dropped at the end.
   *
   * @throws IllegalArgumentException if rounds or orders is below 1
   */
  static List<Cost> measure(E2eDatabases.Server server, E2eRules.Shape shape, List<E2eRules> rules, int rounds,
      int orders) throws Exception {
    if (rounds < 1 || orders < 1) {
      throw new IllegalArgumentException("rounds and orders must be >= 1 but were " + rounds + " and " + orders);
    }
    String run = "gid_probe_" + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);
    try (E2eDatabases dbs = E2eDatabases.create(server, shape, run)) {
      List<DataSource> sources = new ArrayList<>();
      try {
        for (E2eRules r : rules) {
          sources.add(YamlShardingSphereDataSourceFactory.createDataSource(dbs.dataSources(),
              r.yaml(shape).getBytes(StandardCharsets.UTF_8)));
        }
        double[][] micros = new double[rules.size()][rounds];
        double[] kilobytes = new double[rules.size()];
        for (int round = -3; round < rounds; round++) {
          for (int r = 0; r < rules.size(); r++) {
            EndToEndBenchmark.Loaded loaded = EndToEndBenchmark.insertOrders(sources.get(r), 0, orders, 0);
            if (round >= 0) {
              micros[r][round] = loaded.cpuMicrosEach();
              kilobytes[r] = loaded.kilobytesEach();
            }
          }
          dbs.truncate();
        }
        List<Cost> costs = new ArrayList<>();
        for (int r = 0; r < rules.size(); r++) {
          double[] sorted = micros[r].clone();
          Arrays.sort(sorted);
          costs.add(new Cost(rules.get(r), sorted[0], sorted[sorted.length / 4], E2eReport.median(sorted),
              kilobytes[r]));
        }
        return costs;
      } finally {
        for (DataSource ds : sources) {
          close(ds);
        }
      }
    }
  }

  private static void close(DataSource ds) throws SQLException {
    try {
      ((AutoCloseable) ds).close();
    } catch (SQLException e) {
      throw e;
    } catch (Exception e) {
      throw new SQLException("cannot close ShardingSphere", e);
    }
  }

  static String table(E2eDatabases.Server server, E2eRules.Shape shape, int rounds, int orders, List<Cost> costs) {
    Cost usual = costs.stream().filter(c -> c.rules() == E2eRules.USUAL).findFirst().orElse(null);
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "Client CPU per order (order + %d items, one transaction), %s, %s, %d rounds"
        + " of %d orders per rule set in turn:%n%n", EndToEndBenchmark.ITEMS_PER_ORDER, server.label(), shape, rounds,
        orders));
    md.append("| rules | CPU µs/order: min | lower quartile | median | min − usual's | KB/order |\n");
    md.append("|---|--:|--:|--:|--:|--:|\n");
    for (Cost c : costs) {
      md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %s | %.1f |%n", c.rules().label(), c.min(),
          c.p25(), c.median(), usual == null ? "–" : String.format(Locale.ROOT, "%+.0f", c.min() - usual.min()),
          c.kilobytes()));
    }
    return md.toString();
  }
}
