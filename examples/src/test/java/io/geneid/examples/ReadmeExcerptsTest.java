package io.geneid.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A README block preceded by {@code <!-- excerpt: <path> -->} shows lines of that file of the repository (a project
 * of {@code examples/}, which the build compiles and runs): its lines, indentation removed, are a run of the file's
 * lines with the same indentation removed. So the README shows only the lines that matter, and they cannot drift
 * from the code that runs.
 */
class ReadmeExcerptsTest {

  static final Pattern EXCERPT = Pattern.compile("<!-- excerpt: (\\S+) -->\\s*\\n```\\w*\\n(.*?)```", Pattern.DOTALL);

  @Test
  void everyExcerptIsARunOfLinesOfItsFile() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    Matcher m = EXCERPT.matcher(readme);
    List<String> checked = new ArrayList<>();
    while (m.find()) {
      Path file = Path.of("..").resolve(m.group(1));
      assertThat(file).as("the file of an excerpt").isRegularFile();
      List<String> lines = Files.readString(file, StandardCharsets.UTF_8).lines().toList();
      List<String> excerpt = dedent(m.group(2).lines().toList());
      boolean found = false;
      for (int start = 0; start + excerpt.size() <= lines.size() && !found; start++) {
        found = dedent(lines.subList(start, start + excerpt.size())).equals(excerpt);
      }
      assertThat(found).as("README excerpt of %s:\n%s", m.group(1), String.join("\n", excerpt)).isTrue();
      checked.add(m.group(1));
    }
    assertThat(checked).as("excerpts in the README").hasSizeGreaterThanOrEqualTo(5);
  }

  /** The lines without the indentation they all share (blank lines aside), trailing spaces dropped. */
  private static List<String> dedent(List<String> lines) {
    int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
        .min().orElse(0);
    return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing()).toList();
  }
}
