package io.geneid.jcstress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the jcstress tests of this module in a JVM of their own: mode {@code sanity} in CI (seconds), any other mode
 * by {@code mvn verify -pl gene-id-jcstress -am -Djcstress.mode=default} (minutes; {@code quick}, {@code tough} too).
 * Fails when jcstress reports any test failed (a forbidden outcome: a duplicate id) or did not run.
 */
class JcstressRunTest {

  private static final List<String> TESTS = List.of("OneGeneOneMillisecond", "BorrowedMilliseconds", "ClockTick",
      "SystemClockSpread", "SystemClockOrder");

  @Test
  void noInterleavingIssuesADuplicate() throws Exception {
    String mode = System.getProperty("jcstress.mode", "sanity");
    Path results = Files.createDirectories(Path.of("target", "jcstress-results"));
    Path log = results.resolve("run.log");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), "org.openjdk.jcstress.Main", "-v", "-m", mode, "-t",
        "io\\.geneid\\.jcstress\\..*", "-r", results.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(p.waitFor(30, TimeUnit.MINUTES)).as("jcstress finished").isTrue();
    String out = Files.readString(log, StandardCharsets.UTF_8);
    out.lines().filter(l -> l.startsWith("(Results:")).reduce((first, last) -> last)
        .ifPresent(l -> System.out.println("jcstress, mode " + mode + ": " + l));
    assertThat(p.exitValue()).as("jcstress exit code; output in " + log.toAbsolutePath()).isZero();
    for (String test : TESTS) {
      assertThat(out).as("jcstress ran " + test + " (output in " + log.toAbsolutePath() + ")")
          .contains("io.geneid.jcstress." + test);
    }
    assertThat(out).contains("Failed tests: No matches.").contains("Error tests: No matches.")
        .containsPattern("Results: (\\d+) planned; \\1 passed, 0 failed, 0 soft errs, 0 hard errs\\)\\s+RUN RESULTS");
    assertThat(new File(results.toFile(), "index.html")).exists();
  }
}
