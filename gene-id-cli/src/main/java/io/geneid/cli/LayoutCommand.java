package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code gene-id layout}: how long, how many workers, how many genes, how fast, how long JavaScript-safe. */
@Command(name = "layout", mixinStandardHelpOptions = true,
    description = "Reports the capacity of a layout: when its timestamp field runs out, workers, genes, ids per"
        + " second, and when its ids stop being JavaScript-safe (above 2^53 - 1).")
final class LayoutCommand extends LayoutSubcommand {

  @ParentCommand
  @SuppressWarnings("NullAway.Init")
  GeneIdCli cli;

  @Override
  public Integer call() {
    GeneIdLayout layout = layout();
    Instant now = cli.clock().instant();
    PrintWriter out = out();

    Instant end = layout.lastTimestamp().plusMillis(1);
    out.println(Text.row("layout", LayoutOptions.describe(layout)));
    out.println(Text.row("timestamp runs out", Text.utc(end) + " (" + String.format(java.util.Locale.ROOT, "%.1f",
        layout.years()) + " years after the epoch, " + Text.duration(Duration.between(now, end)) + " from now)"));
    out.println(Text.row("workers", Text.number(layout.workerCount()) + " (worker ids 0 to "
        + Text.number(layout.maxWorkerId()) + ")"));
    out.println(Text.row("genes", Text.number(layout.geneCount()) + (layout.geneBits() == 0
        ? " (G=0: a classic Snowflake, no gene routing)"
        : " (sharding counts that divide " + Text.number(layout.geneCount()) + " balance evenly)")));
    out.println(Text.row("ids per second per gene", Text.number(layout.idsPerMillisPerGene() * 1000) + " ("
        + Text.number(layout.idsPerMillisPerGene()) + " per ms)"));
    out.println(Text.row("ids per second per worker", Text.number(layout.idsPerMillisPerWorker() * 1000) + " ("
        + Text.number(layout.idsPerMillisPerWorker()) + " per ms)"));
    Instant jsEnd = layout.javaScriptSafeUntil();
    out.println(Text.row("JavaScript-safe until", Text.utc(jsEnd) + (jsEnd.isAfter(now)
        ? " (" + Text.duration(Duration.between(now, jsEnd)) + " from now; after that ids exceed 2^53 - 1)"
        : " (passed: ids are above 2^53 - 1, send them to JavaScript as strings)")));
    layout.capacityWarning(now, GeneSnowflakeGenerator.Builder.DEFAULT_CAPACITY_WARNING_HORIZON)
        .ifPresent(warning -> out.println(Text.row("warning", warning)));
    return 0;
  }
}
