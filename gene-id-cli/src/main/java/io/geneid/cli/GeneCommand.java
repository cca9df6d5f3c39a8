package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import java.io.PrintWriter;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gene-id gene <parentKey>}: the gene a parent key gives its children, and the rule that made it. */
@Command(name = "gene", mixinStandardHelpOptions = true,
    description = {"Shows the gene of a parent key: the low G bits of a whole number; the CRC-32C of the UTF-8"
        + " bytes, masked to G bits, of any other text (a UUID as its lower-case canonical string)."})
final class GeneCommand extends LayoutSubcommand {

  @Parameters(index = "0", paramLabel = "<parentKey>", description = "The parent key: a number, a UUID or text.")
  String key = "";

  @Option(names = "--string", description = "Hash the key as text even if it is a number (a VARCHAR key of digits).")
  boolean string;

  @Override
  public Integer call() {
    GeneIdLayout layout = layout();
    int g = layout.geneBits();
    String kind;
    String rule;
    long gene;
    if (!string && key.trim().matches("[+-]?[\\d_]+")) {
      long number;
      try {
        number = Ids.wholeNumber("parent key", key);
      } catch (BadInputException e) {
        throw new BadInputException(e.getMessage() + "; pass --string to hash it as text");
      }
      kind = "number";
      rule = "low " + g + " bits of the number (key & " + layout.maxGene() + ")";
      gene = layout.geneOf(number);
    } else if (!string && isUuid(key)) {
      UUID uuid = UUID.fromString(key);
      kind = "UUID";
      rule = "CRC-32C of the UTF-8 bytes of \"" + uuid + "\", low " + g + " bits";
      gene = layout.geneOfKey(uuid);
    } else {
      kind = "string";
      rule = "CRC-32C of the UTF-8 bytes, low " + g + " bits";
      gene = layout.geneOf(key);
    }
    PrintWriter out = out();
    out.println(Text.row("key", key));
    out.println(Text.row("kind", kind));
    out.println(Text.row("rule", g == 0 ? "none: the layout has no gene bits (G=0), every key has gene 0" : rule));
    out.println(Text.row("gene", Long.toString(gene)));
    return 0;
  }

  private static boolean isUuid(String text) {
    return text.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  }
}
