package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneRouting;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gene-id shard <id> --sharding-count N [--gene-divisor D]}: the target a GENE_MOD sharding algorithm routes an
 * id to, by the same rule ({@link GeneRouting}); or {@code gene-id shard <id> --config sharding.yaml}: the physical
 * database and table of each logic table of a ShardingSphere YAML.
 */
@Command(name = "shard", mixinStandardHelpOptions = true,
    description = {"Shows the target index of each id (or numeric parent key) under GENE_MOD: "
        + "(gene / gene-divisor) %% sharding-count.",
        "With --config naming a ShardingSphere YAML (and no --sharding-count), shows the data node "
            + "(database.table) of each logic table instead."})
final class ShardCommand extends LayoutSubcommand {

  @Parameters(arity = "1..*", paramLabel = "<id>", description = "Ids or numeric parent keys (decimal).")
  List<String> ids = new ArrayList<>();

  @Option(names = "--sharding-count", paramLabel = "<N>",
      description = "Number of targets (databases or tables), in [1, 2^G].")
  @Nullable String shardingCount;

  @Option(names = "--table", paramLabel = "<logic table>",
      description = "With a ShardingSphere YAML: only these logic tables (repeatable); default all.")
  List<String> tables = new ArrayList<>();

  @Option(names = "--gene-divisor", paramLabel = "<D>", defaultValue = "1",
      description = "What the gene is divided by first (a second level: the first level's count), in [1, 2^G]; "
          + "default 1.")
  String geneDivisor = "1";

  @Override
  public Integer call() {
    GeneIdLayout layout = layout();
    if (shardingCount == null) {
      return dataNodes(layout);
    }
    long n = Ids.wholeNumber("sharding-count", shardingCount);
    long genes = layout.geneCount();
    if (n < 1 || n > genes) {
      throw new BadInputException("sharding-count must be in [1, " + genes + "] but was " + shardingCount
          + ": with G=" + layout.geneBits() + " there " + (genes == 1 ? "is 1 gene" : "are " + genes + " genes")
          + ", and a target no gene maps to is never used");
    }
    long d = Ids.wholeNumber("gene-divisor", geneDivisor);
    GeneRouting routing;
    try {
      routing = new GeneRouting((int) n, (int) Math.min(d, Integer.MAX_VALUE), layout.geneBits());
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage() + " (G=" + layout.geneBits() + ")");
    }
    PrintWriter out = eachId(layout, (id, gene, o) -> {
      o.println(Text.row("sharding-count", Long.toString(n)));
      if (d == 1) {
        o.println(Text.row("target index", routing.index(gene) + " (gene " + gene + " % " + n + ")"));
      } else {
        o.println(Text.row("gene-divisor", Long.toString(d)));
        o.println(Text.row("target index", routing.index(gene) + " ((gene " + gene + " / " + d + ") % " + n + ")"));
      }
    });
    if (d > 1) {
      return 0; // the balance note below is about the plain modulo
    }
    if (genes % n != 0) {
      long small = genes / n;
      long big = small + 1;
      long bigTargets = genes % n;
      out.println();
      out.println(Text.row("note", genes + " genes do not split evenly over " + n + " targets: "
          + Text.range("target", 0, bigTargets - 1) + " get" + (bigTargets == 1 ? "s " : " ") + big + " genes, "
          + Text.range("target", bigTargets, n - 1) + " get" + (n - bigTargets == 1 ? "s " : " ") + small
          + "; a sharding-count that divides " + genes + " balances them"));
    }
    return 0;
  }

  /** {@code --config sharding.yaml}: the data node of each logic table, for each id. */
  private int dataNodes(GeneIdLayout layout) {
    Path config = layoutOptions.config;
    List<ShardingConfig.Table> all = config == null ? List.of() : ShardingConfig.read(config);
    if (all.isEmpty()) {
      throw new BadInputException("--sharding-count is required unless --config names a ShardingSphere YAML with"
          + " sharded tables" + (config == null ? "" : " (" + config + " has none)"));
    }
    List<ShardingConfig.Table> chosen = all.stream().filter(t -> tables.isEmpty() || tables.contains(t.name()))
        .toList();
    for (String name : tables) {
      if (all.stream().noneMatch(t -> t.name().equals(name))) {
        throw new BadInputException("--table " + name + " is not a logic table of " + config + "; it has "
            + all.stream().map(ShardingConfig.Table::name).toList());
      }
    }
    eachId(layout, (id, gene, out) -> chosen.forEach(t -> out.println(Text.row(t.name(), t.nodeOf(id)))));
    return 0;
  }

  /** What a command prints for one id after its id and gene rows. */
  private interface IdRows {
    void print(long id, long gene, PrintWriter out);
  }

  /** Checks every id, then prints each one's id and gene rows and {@code rows}, a blank line apart. */
  private PrintWriter eachId(GeneIdLayout layout, IdRows rows) {
    List<Long> values = ids.stream().map(Ids::id).toList();
    PrintWriter out = out();
    for (int i = 0; i < values.size(); i++) {
      long id = values.get(i);
      long gene = layout.geneOf(id);
      if (i > 0) {
        out.println();
      }
      out.println(Text.row("id", Long.toString(id)));
      out.println(Text.row("gene", Long.toString(gene)));
      rows.print(id, gene, out);
    }
    return out;
  }
}
