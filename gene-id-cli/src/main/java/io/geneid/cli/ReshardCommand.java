package io.geneid.cli;

import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketPlan;
import io.geneid.core.bucket.BucketPlanner;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gene-id reshard}: growing from N shards to M by moving gene buckets. */
@Command(name = "reshard", mixinStandardHelpOptions = true,
    description = "Grows from N shards to M by moving whole gene buckets; no id changes.",
    subcommands = {ReshardCommand.Plan.class, ReshardMove.class, ReshardMove.Cleanup.class,
        ReshardMove.Status.class},
    synopsisSubcommandLabel = "COMMAND")
final class ReshardCommand implements Runnable {

  @CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  CommandLine.Model.CommandSpec spec;

  @CommandLine.ParentCommand
  @SuppressWarnings("NullAway.Init")
  GeneIdCli cli;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: plan, move, cleanup or status");
  }

  /**
   * {@code gene-id reshard plan --to M} with the current map from {@code --sharding-count N} (GENE_MOD),
   * {@code --bucket-map <text>} or {@code --config app.yaml --algorithm <name>}: the moves of
   * {@link BucketPlanner#plan}, the share that moves and the new map as a YAML property.
   */
  @Command(name = "plan", mixinStandardHelpOptions = true,
      description = {"Shows the fewest bucket moves from the current map to M even targets, the share of buckets"
          + " (of rows, with evenly filled buckets) that moves, and the new GENE_BUCKET map.",
          "The current map is GENE_MOD's (--sharding-count, --gene-divisor), a GENE_BUCKET map (--bucket-map), or"
              + " a sharding algorithm of a ShardingSphere YAML (--config, --algorithm)."})
  static final class Plan implements Callable<Integer> {

    @CommandLine.Spec
    @SuppressWarnings("NullAway.Init")
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--to", required = true, paramLabel = "<M>", description = "The new number of targets.")
    String to = "";

    @Option(names = "--sharding-count", paramLabel = "<N>", description = "The current map is GENE_MOD's with N.")
    @Nullable String shardingCount;

    @Option(names = "--gene-divisor", paramLabel = "<D>", description = "With --sharding-count; default 1.")
    @Nullable String geneDivisor;

    @Option(names = "--bucket-map", paramLabel = "<map>", description = "The current map, e.g. \"0=0-31; 1=32-63\".")
    @Nullable String bucketMap;

    @Option(names = "--gene-bits", paramLabel = "<G>", description = "Gene bits (default 6; with --config the"
        + " algorithm's).")
    @Nullable String geneBits;

    @Option(names = "--config", paramLabel = "<file>", description = "A ShardingSphere YAML.")
    @Nullable Path config;

    @Option(names = "--algorithm", paramLabel = "<name>", description = "With --config: the GENE_MOD or"
        + " GENE_BUCKET sharding algorithm to grow.")
    @Nullable String algorithm;

    @Option(names = "--count-rows", description = "With --config: count the rows of each bucket in the data sources"
        + " of the YAML (every table whose database strategy uses --algorithm), and the share of rows that moves.")
    boolean countRows;

    @Override
    public Integer call() {
      BucketMap current = current();
      long m = Ids.wholeNumber("to", to);
      if (m < 1 || m > current.bucketCount()) {
        throw new BadInputException("--to must be in [1, " + current.bucketCount() + "] (2^gene-bits = "
            + current.bucketCount() + " buckets) but was " + to);
      }
      BucketPlan plan = BucketPlanner.plan(current, (int) m);
      PrintWriter out = spec.commandLine().getOut();
      out.println(Text.row("current map", describe(current)));
      out.println(Text.row("new map", describe(plan.next())));
      out.println(Text.row("moves", plan.moves().size() + " of " + current.bucketCount() + " buckets ("
          + String.format(Locale.ROOT, "%.1f", 100 * plan.movedShare()) + "% of the data with evenly filled"
          + " buckets)"));
      Map<String, List<Integer>> byPair = new TreeMap<>();
      for (BucketMove move : plan.moves()) {
        byPair.computeIfAbsent(String.format(Locale.ROOT, "%5d -> %d", move.from(), move.to()),
            k -> new java.util.ArrayList<>()).add(move.bucket());
      }
      long[] rows = countRows ? countRows(current, out) : null;
      byPair.forEach((pair, buckets) -> out.println(Text.row(pair, buckets.size() + " bucket"
          + (buckets.size() == 1 ? "" : "s") + ": " + BucketMap.formatBuckets(buckets)
          + (rows == null ? "" : ", " + Text.number(buckets.stream().mapToLong(b -> rows[b]).sum()) + " rows"))));
      if (rows != null) {
        long total = Arrays.stream(rows).sum();
        long moving = plan.moves().stream().mapToLong(move -> rows[move.bucket()]).sum();
        out.println(Text.row("rows moving", Text.number(moving) + " of " + Text.number(total) + " ("
            + String.format(Locale.ROOT, "%.1f", total == 0 ? 0.0 : 100.0 * moving / total) + "%)"));
      }
      out.println(Text.row("yaml", "type: GENE_BUCKET, props: {gene-bits: " + current.geneBits()
          + ", bucket-map: \"" + plan.next().format() + "\"}"));
      return 0;
    }

    /** Rows per bucket of the family, counted where {@code current} puts each bucket; prints them. */
    private long[] countRows(BucketMap current, PrintWriter out) {
      if (config == null || algorithm == null) {
        throw new BadInputException("--count-rows needs --config and --algorithm: the data sources and tables to"
            + " count come from the application's YAML");
      }
      try (ReshardSetup setup = ReshardSetup.databases(config, algorithm)) {
        long[] rows = setup.countRows(current);
        List<String> names = setup.family.tables().stream().map(ShardingConfig.FamilyTable::name).toList();
        out.println(Text.row("rows", Text.number(Arrays.stream(rows).sum()) + " in " + names.size()
            + " table" + (names.size() == 1 ? "" : "s") + " " + names));
        for (int from = 0; from < rows.length; from += 8) {
          StringBuilder line = new StringBuilder();
          for (int b = from; b < Math.min(rows.length, from + 8); b++) {
            line.append(String.format(Locale.ROOT, "%9s", Text.number(rows[b])));
          }
          out.println(Text.row("    buckets " + from + "-" + Math.min(rows.length - 1, from + 7),
              line.toString()));
        }
        return rows;
      }
    }

    static String describe(BucketMap map) {
      return "version " + map.version() + ", " + map.targetCount() + " target" + (map.targetCount() == 1 ? "" : "s")
          + ": " + map.format();
    }

    private BucketMap current() {
      int sources = (shardingCount != null ? 1 : 0) + (bucketMap != null ? 1 : 0) + (config != null ? 1 : 0);
      if (sources != 1) {
        throw new BadInputException("give the current map by exactly one of --sharding-count (GENE_MOD),"
            + " --bucket-map and --config with --algorithm, but " + (sources == 0 ? "none was" : sources + " were")
            + " given");
      }
      if (config != null) {
        if (algorithm == null) {
          throw new BadInputException("--config needs --algorithm: the name of the sharding algorithm to grow");
        }
        return ShardingConfig.bucketMap(config, algorithm);
      }
      int g = geneBits == null ? 6 : (int) Ids.wholeNumber("gene-bits", geneBits);
      try {
        if (bucketMap != null) {
          return BucketMap.parse(g, bucketMap);
        }
        return BucketMap.ofMod(g, (int) Ids.wholeNumber("sharding-count", shardingCount),
            geneDivisor == null ? 1 : (int) Ids.wholeNumber("gene-divisor", geneDivisor));
      } catch (IllegalArgumentException e) {
        throw new BadInputException(e.getMessage());
      }
    }
  }
}
