package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneRouting;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gene-id shard <id> --sharding-count N [--gene-divisor D]}: the target a GENE_MOD sharding algorithm routes an
 * id to, by the same rule ({@link GeneRouting}).
 */
@Command(name = "shard", mixinStandardHelpOptions = true,
    description = "Shows the target index of each id (or numeric parent key) under GENE_MOD: "
        + "(gene / gene-divisor) %% sharding-count.")
final class ShardCommand extends LayoutSubcommand {

  @Parameters(arity = "1..*", paramLabel = "<id>", description = "Ids or numeric parent keys (decimal).")
  List<String> ids = new ArrayList<>();

  @Option(names = "--sharding-count", required = true, paramLabel = "<N>",
      description = "Number of targets (databases or tables), in [1, 2^G].")
  String shardingCount = "";

  @Option(names = "--gene-divisor", paramLabel = "<D>", defaultValue = "1",
      description = "What the gene is divided by first (a second level: the first level's count), in [1, 2^G]; "
          + "default 1.")
  String geneDivisor = "1";

  @Override
  public Integer call() {
    GeneIdLayout layout = layout();
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
    List<Long> values = ids.stream().map(Ids::id).toList();
    PrintWriter out = out();
    boolean first = true;
    for (long id : values) {
      if (!first) {
        out.println();
      }
      first = false;
      long gene = layout.geneOf(id);
      out.println(Text.row("id", Long.toString(id)));
      out.println(Text.row("gene", Long.toString(gene)));
      out.println(Text.row("sharding-count", Long.toString(n)));
      if (d == 1) {
        out.println(Text.row("target index", routing.index(gene) + " (gene " + gene + " % " + n + ")"));
      } else {
        out.println(Text.row("gene-divisor", Long.toString(d)));
        out.println(Text.row("target index", routing.index(gene) + " ((gene " + gene + " / " + d + ") % " + n + ")"));
      }
    }
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
}
