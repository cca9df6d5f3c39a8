package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * What every subcommand shares: the layout options, and the notes their resolution produced (e.g. which config file
 * was read), printed on standard error when the command starts its output, so that bad input fails before any.
 */
abstract class LayoutSubcommand implements Callable<Integer> {

  @Mixin
  LayoutOptions layoutOptions = new LayoutOptions();

  @CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  CommandLine.Model.CommandSpec spec;

  private final List<String> notes = new ArrayList<>();

  /** The layout the options name. */
  final GeneIdLayout layout() {
    return layoutOptions.resolve(notes);
  }

  /** Prints the notes on standard error and returns standard output: call it once every input is checked. */
  final PrintWriter out() {
    notes.forEach(spec.commandLine().getErr()::println);
    notes.clear();
    return spec.commandLine().getOut();
  }
}
