package io.geneid.server;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar gene-id-server.jar [options]}: starts a server and runs until SIGTERM or SIGINT. */
@Command(name = "gene-id-server", mixinStandardHelpOptions = true, versionProvider = GeneIdServerMain.Version.class,
    description = "Serves gene ids over HTTP/JSON and gRPC. Every configuration key (docs/server.md) can be set in "
        + "a properties file (--config), as an environment variable GENE_ID_SERVER_<KEY> or with --set key=value; "
        + "flags win over the environment, which wins over the file.")
public final class GeneIdServerMain implements Callable<Integer> {
  @Option(names = "--config", paramLabel = "FILE", description = "a properties file of configuration keys")
  @Nullable Path config;

  @Option(names = "--host", description = "address to listen on (default 127.0.0.1)")
  @Nullable String host;

  @Option(names = "--http-port", description = "HTTP port (default 8080; 0: any free port; -1: off)")
  @Nullable Integer httpPort;

  @Option(names = "--grpc-port", description = "gRPC port (default 9090; 0: any free port; -1: off)")
  @Nullable Integer grpcPort;

  @Option(names = "--data-dir", description = "where the embedded defaults keep their files (default ./gene-id-data)")
  @Nullable String dataDir;

  @Option(names = {"-s", "--set"}, paramLabel = "KEY=VALUE", description = "any configuration key")
  Map<String, String> set = new LinkedHashMap<>();

  @Option(names = "--check", description = "check the configuration and exit")
  boolean check;

  @Override
  public Integer call() throws InterruptedException {
    Map<String, String> flags = new LinkedHashMap<>(set);
    if (host != null) {
      flags.put("host", host);
    }
    if (httpPort != null) {
      flags.put("http-port", httpPort.toString());
    }
    if (grpcPort != null) {
      flags.put("grpc-port", grpcPort.toString());
    }
    if (dataDir != null) {
      flags.put("data-dir", dataDir);
    }
    ServerConfig cfg;
    try {
      cfg = ServerConfig.load(config, System.getenv(), flags);
    } catch (RuntimeException e) {
      System.err.println("gene-id-server: bad configuration: " + e.getMessage());
      return 2;
    }
    printNotes(cfg);
    if (check) {
      System.out.println("gene-id-server: configuration OK (layout " + cfg.layout() + ")");
      return 0;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    GeneIdServer server;
    try {
      server = GeneIdServer.start(cfg, e -> {
        System.err.println("gene-id-server: stopping: the worker id could not be leased: " + e.getMessage());
        System.exit(3);
      });
    } catch (RuntimeException e) {
      System.err.println("gene-id-server: cannot start: " + e.getMessage());
      return 1;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "gene-id-server-shutdown"));
    System.out.println(server.listening());
    System.out.flush();
    stopped.await();
    return 0;
  }

  private static void printNotes(ServerConfig cfg) {
    for (String line : cfg.notes()) {
      if (line.startsWith("warning: ")) {
        System.err.println("gene-id-server: " + line);
      } else {
        System.out.println(line);
      }
    }
    System.err.flush();
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new GeneIdServerMain()).execute(args));
  }

  /** The version of the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = GeneIdServerMain.class.getPackage().getImplementationVersion();
      return new String[] {"gene-id-server " + (v == null ? "dev" : v)};
    }
  }
}
