package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gene-id shard <id> --sharding-count N}: the target a GENE_MOD sharding algorithm routes an id to. */
@Command(name = "shard", mixinStandardHelpOptions = true,
    description = "Shows the target index of each id (or numeric parent key) under GENE_MOD: gene %% sharding-count.")
final class ShardCommand extends LayoutSubcommand {

  @Parameters(arity = "1..*", paramLabel = "<id>", description = "Ids or numeric parent keys (decimal).")
  List<String> ids = new ArrayList<>();

  @Option(names = "--sharding-count", required = true, paramLabel = "<N>",
      description = "Number of targets (databases or tables), in [1, 2^G].")
  String shardingCount = "";

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
      out.println(Text.row("target index", (gene % n) + " (gene " + gene + " % " + n + ")"));
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
