package io.geneid.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneId;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gene-id}: reads ids and keys the way gene-id routes them.
 *
 * <pre>
 * java -jar gene-id-cli.jar decode 363362192454193215
 * java -jar gene-id-cli.jar gene order-2024-0001
 * java -jar gene-id-cli.jar shard 363362192454193215 --sharding-count 4
 * java -jar gene-id-cli.jar layout --gene-bits 8 --sequence-bits 6
 * java -jar gene-id-cli.jar reshard plan --sharding-count 2 --to 4
 * java -jar gene-id-cli.jar reshard move --config app.yaml --algorithm gene_db --to 4
 * java -jar gene-id-cli.jar tables --config app.yaml --intervals 3 --create
 * </pre>
 *
 * <p>Exit status: 0 on success, 2 for bad input (a one-line message on stderr, never a stack trace), 1 for an
 * unexpected failure.
 */
@Command(name = "gene-id", mixinStandardHelpOptions = true, versionProvider = GeneIdCli.Version.class,
    description = "Decodes gene-id ids, computes genes and shard targets, reports the capacity of a layout, moves"
        + " gene buckets and makes the month tables of GENE_INTERVAL.",
    subcommands = {DecodeCommand.class, GeneCommand.class, ShardCommand.class, LayoutCommand.class,
        ReshardCommand.class, TablesCommand.class},
    synopsisSubcommandLabel = "COMMAND")
public final class GeneIdCli implements Runnable {

  /** Exit status for bad input. */
  public static final int BAD_INPUT = 2;

  private final Clock clock;

  @Option(names = "--zone", paramLabel = "<zone>", scope = CommandLine.ScopeType.INHERIT,
      description = "Time zone of the local times shown (default: this machine's).")
  @Nullable ZoneId zone;

  @CommandLine.Spec
  CommandLine.Model.@Nullable CommandSpec spec;

  GeneIdCli(Clock clock) {
    this.clock = clock;
  }

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    System.exit(run(args, out, err, Clock.systemUTC()));
  }

  /** Runs {@code args} with the given streams and clock; returns the exit status. */
  static int run(String[] args, PrintWriter out, PrintWriter err, Clock clock) {
    CommandLine cli = new CommandLine(new GeneIdCli(clock));
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler((e, a) -> {
      CommandLine where = e.getCommandLine();
      where.getErr().println(where.getCommandSpec().qualifiedName() + ": " + oneLine(e.getMessage())
          + " (see " + where.getCommandSpec().qualifiedName() + " --help)");
      return BAD_INPUT;
    });
    cli.setExecutionExceptionHandler((e, where, parsed) -> {
      if (e instanceof BadInputException || e instanceof IllegalArgumentException) {
        where.getErr().println(where.getCommandSpec().qualifiedName() + ": " + oneLine(e.getMessage()));
        if (e instanceof BadInputException bad) {
          where.getErr().print(bad.detail());
        }
        return BAD_INPUT;
      }
      if (e instanceof io.geneid.core.GeneIdException) { // a store or database failed: its message says what
        where.getErr().println(where.getCommandSpec().qualifiedName() + ": " + oneLine(e.getMessage()));
        return 1;
      }
      where.getErr().println(where.getCommandSpec().qualifiedName() + ": unexpected " + oneLine(e.toString()));
      return 1;
    });
    int status = cli.execute(args);
    out.flush();
    err.flush();
    return status;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec().commandLine(), "a command is required: decode, gene, shard,"
        + " layout, reshard or tables");
  }

  Clock clock() {
    return clock;
  }

  ZoneId zone() {
    return zone != null ? zone : ZoneId.systemDefault();
  }

  private CommandLine.Model.CommandSpec spec() {
    if (spec == null) {
      throw new IllegalStateException("picocli did not inject the command spec");
    }
    return spec;
  }

  private static String oneLine(@Nullable String message) {
    return message == null ? "" : message.replaceAll("\\s*[\\r\\n]+\\s*", " ").trim();
  }

  /** The version from the jar manifest, if any. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = GeneIdCli.class.getPackage().getImplementationVersion();
      return new String[] {"gene-id " + (version == null ? "(development build)" : version)};
    }
  }
}
