package io.geneid.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every message {@code docs/troubleshooting.md} quotes (the lines of its {@code text} blocks, cut at {@code …}) is
 * asserted by some test of the project, so the page shows what users really see and cannot drift from the code.
 */
class DocsMessagesTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  /** Adjacent string literals joined: {@code "a b" + " c"} over line breaks reads as {@code a b c}. */
  private static final Pattern CONCATENATION = Pattern.compile("\"\\s*\\+\\s*\"");
  private static final Pattern TEXT_BLOCK = Pattern.compile("```text\\n(.*?)```", Pattern.DOTALL);

  @Test
  void everyQuotedMessageIsAssertedByATest() throws IOException {
    String doc = Files.readString(ROOT.resolve("docs/troubleshooting.md"), StandardCharsets.UTF_8);
    String tests = testSources();
    List<String> pieces = new ArrayList<>();
    Matcher block = TEXT_BLOCK.matcher(doc);
    while (block.find()) {
      for (String line : block.group(1).split("\n")) {
        for (String piece : line.split("…")) {
          if (piece.strip().length() >= 12) {
            pieces.add(piece.strip());
          }
        }
      }
    }
    assertThat(pieces).as("messages quoted in docs/troubleshooting.md").hasSizeGreaterThan(15);
    assertThat(pieces).allSatisfy(piece -> assertThat(tests).as("a test asserting: " + piece).contains(piece));
  }

  private static String testSources() throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(ROOT)) {
      files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/")
              && !p.toString().contains("/src/main/") && !p.toString().contains("/target/")
              && !p.endsWith("DocsMessagesTest.java"))
          .forEach(p -> {
            try {
              all.append(CONCATENATION.matcher(Files.readString(p, StandardCharsets.UTF_8)).replaceAll(""))
                  .append('\n');
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
    return all.toString().replace("\\n", "\n");
  }
}
