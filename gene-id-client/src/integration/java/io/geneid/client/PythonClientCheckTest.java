package io.geneid.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.server.GeneIdServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The other-language client: {@code examples/python-client/check.py} against a live server started here (embedded
 * defaults, segment keys {@code order} and {@code item}, a bearer token). It checks the spec's vectors with its own
 * code, then asks the server for ids with a parent's gene and checks the gene and the route. Needs
 * {@code python3} on the PATH: without it this test fails, it never skips. Profile {@code services} (CI).
 */
class PythonClientCheckTest {

  private static final Path CHECK = Path.of("..", "examples", "python-client", "check.py");

  @Test
  void thePythonClientAgreesWithTheServerAndTheSpecVectors() throws Exception {
    assertThat(CHECK).as("the Python client's check script").isRegularFile();
    String token = "python-check-token-0123456789";
    GeneIdServer server = TestServers.start(11, "auth-tokens", token);
    try (server) {
      Process process;
      try {
        process = new ProcessBuilder(List.of("python3", CHECK.toString(), "--url", TestServers.url(server),
            "--segment-key", "order", "--token", token))
            .redirectErrorStream(true)
            .start();
      } catch (IOException e) {
        throw new AssertionError("python3 is needed to run " + CHECK + " (install Python 3.8 or later): " + e, e);
      }
      boolean ended = process.waitFor(120, TimeUnit.SECONDS);
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!ended) {
        process.destroyForcibly();
      }
      assertThat(ended).as("check.py ended within 120 s; output:%n%s", output).isTrue();
      assertThat(process.exitValue()).as("check.py's exit status; output:%n%s", output).isZero();
      assertThat(output).contains("spec vectors: ").contains(", 0 failed").doesNotContain("FAILED");
      int vectors = count(output, "spec vectors: (\\d+) checks");
      int serverChecks = count(output, "server \\S+: (\\d+) checks");
      assertThat(vectors).as("every vector group read").isGreaterThan(400);
      assertThat(serverChecks).as("checks against the server").isGreaterThan(100);
      Files.writeString(Path.of("target", "python-client-check.txt"), output);
    }
  }

  private static int count(String output, String regex) {
    Matcher m = Pattern.compile(regex).matcher(output);
    assertThat(m.find()).as("'%s' in the output:%n%s", regex, output).isTrue();
    return Integer.parseInt(m.group(1));
  }
}
