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

/** {@code gene-id-bom} names every published module, at the parent's version, and nothing else. */
class BomTest {

  private static final Path ROOT = Path.of("..");

  @Test
  void theBomNamesEveryPublishedModuleAtTheProjectVersion() throws Exception {
    String parent = read(ROOT.resolve("pom.xml"));
    String bom = read(ROOT.resolve("gene-id-bom/pom.xml"));
    List<String> published = new ArrayList<>();
    for (String module : all(parent, "<module>([^<]+)</module>")) {
      String pom = read(ROOT.resolve(module).resolve("pom.xml"));
      boolean skipped = pom.contains("<maven.deploy.skip>true</maven.deploy.skip>");
      if (!module.equals("gene-id-bom") && !skipped) {
        published.add(module);
      }
    }
    assertThat(all(bom, "<artifactId>(gene-id-[^<]+)</artifactId>")).as("modules the BOM manages")
        .filteredOn(a -> !a.equals("gene-id-bom"))
        .containsExactlyInAnyOrderElementsOf(published);
    assertThat(first(bom, "<artifactId>gene-id-bom</artifactId>\\s*<version>([^<]+)</version>"))
        .isEqualTo(first(parent, "<artifactId>gene-id-parent</artifactId>\\s*<version>([^<]+)</version>"));
    assertThat(bom).as("the BOM must not inherit the parent's third-party pins").doesNotContain("<parent>");
  }

  private static String read(Path p) throws Exception {
    return Files.readString(p, StandardCharsets.UTF_8);
  }

  private static List<String> all(String text, String regex) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile(regex).matcher(text);
    while (m.find()) {
      out.add(m.group(1).trim());
    }
    return out;
  }

  private static String first(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as(regex).isTrue();
    return m.group(1);
  }
}
