package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.GeneIdStringFormat;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
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

  @Parameters(arity = "1..*", paramLabel = "<id>", description = "Ids to decode: decimal, or string ids (a prefix,"
      + " an optional yyyyMMdd date and 13 base-32 digits, e.g. ORD2026112206Y375A2W3G0P).")
  List<String> ids = new ArrayList<>();

  @Option(names = "--string-id-prefix", paramLabel = "<prefix>",
      description = "The prefix of string ids (default: read from each id's shape).")
  @Nullable String stringIdPrefix;

  @Option(names = "--string-id-date", description = "String ids carry a yyyyMMdd date (default: read from the shape).")
  boolean stringIdDate;

  @Override
  public Integer call() {
    GeneIdLayout layout = layout();
    GeneIdStringFormat format = null;
    if (stringIdPrefix != null || stringIdDate) {
      GeneIdStringFormat.Builder b = GeneIdStringFormat.builder().prefix(stringIdPrefix == null ? "" : stringIdPrefix);
      if (stringIdDate) {
        b.date(layout);
      }
      try {
        format = b.build();
      } catch (IllegalArgumentException e) {
        throw new BadInputException("--string-id-prefix: " + e.getMessage());
      }
    }
    GeneIdStringFormat given = format;
    // every id checked before any output
    List<Ids.Parsed> values = ids.stream().map(text -> Ids.parse(text, layout, given)).toList();
    PrintWriter out = out();
    Instant now = cli.clock().instant();
    out.println(Text.row("layout", LayoutOptions.describe(layout)));
    for (Ids.Parsed parsed : values) {
      long id = parsed.id();
      GeneIdParts parts = layout.decode(id);
      out.println();
      GeneIdStringFormat f = parsed.format();
      if (f != null) {
        out.println(Text.row("string id", f.format(id)));
        out.println(Text.row("prefix", f.prefix().isEmpty() ? "(none)" : f.prefix()));
        out.println(Text.row("date part", f.hasDate() ? "yes, the id's UTC day" : "no"));
      }
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
