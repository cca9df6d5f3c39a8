package io.geneid.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** One in-process run of the command line: exit status, stdout and stderr. */
record CliRun(int status, String out, String err) {

  /** The "now" of every test run. */
  static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");

  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = GeneIdCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true),
        Clock.fixed(NOW, ZoneOffset.UTC));
    return new CliRun(status, out.toString().replace(System.lineSeparator(), "\n"),
        err.toString().replace(System.lineSeparator(), "\n"));
  }
}
