package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code gene-id decode <id>...}: the timestamp, worker, sequence and gene of each id. */
@Command(name = "decode", mixinStandardHelpOptions = true,
    description = "Shows the timestamp (UTC and local), worker id, sequence and gene of each id.")
final class DecodeCommand extends LayoutSubcommand {

  /** Timestamps further ahead than this are flagged: ids never borrow more than a minute. */
  private static final Duration FUTURE_SLACK = Duration.ofMinutes(1);

  @ParentCommand
  @SuppressWarnings("NullAway.Init")
  GeneIdCli cli;

  @Parameters(arity = "1..*", paramLabel = "<id>", description = "Ids to decode (decimal).")
  List<String> ids = new ArrayList<>();

  @Override
  public Integer call() {
    GeneIdLayout layout = layout();
    List<Long> values = ids.stream().map(Ids::id).toList(); // every id checked before any output
    PrintWriter out = out();
    Instant now = cli.clock().instant();
    out.println(Text.row("layout", LayoutOptions.describe(layout)));
    for (long id : values) {
      GeneIdParts parts = layout.decode(id);
      out.println();
      out.println(Text.row("id", Long.toString(id)));
      out.println(Text.row("timestamp", Text.utc(parts.timestamp())));
      out.println(Text.row("local", Text.local(parts.timestamp(), cli.zone())));
      out.println(Text.row("worker", Long.toString(parts.workerId())));
      out.println(Text.row("sequence", Long.toString(parts.sequence())));
      out.println(Text.row("gene", Long.toString(parts.gene())));
      if (parts.timestamp().isAfter(now.plus(FUTURE_SLACK))) {
        out.println(Text.row("note", "this timestamp is " + Text.duration(Duration.between(now, parts.timestamp()))
            + " in the future: was the id made with another layout?"));
      }
    }
    return 0;
  }
}
