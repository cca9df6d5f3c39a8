package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/server.md names only keys the server knows, and names every key it knows. */
class DocsServerTest {

  @Test
  void thePropertiesExampleAndTheKeyTableMatchTheServer() throws Exception {
    String page = Files.readString(Path.of("..", "docs", "server.md"), StandardCharsets.UTF_8);
    Matcher block = Pattern.compile("```properties\\n(.*?)```", Pattern.DOTALL).matcher(page);
    assertThat(block.find()).isTrue();
    Properties p = new Properties();
    p.load(new StringReader(block.group(1)));
    assertThat(ServerConfig.allowedKeys()).containsAll(p.stringPropertyNames());

    int table = page.indexOf("| key | default | meaning |");
    String rows = page.substring(table, page.indexOf("\n\n", table));
    Set<String> documented = new TreeSet<>();
    Matcher key = Pattern.compile("`([a-z][a-z-]+)`").matcher(rows);
    while (key.find()) {
      documented.add(key.group(1));
    }
    Set<String> own = new TreeSet<>(ServerConfig.SERVER_KEYS);
    own.addAll(ServerConfig.SEGMENT_KEYS);
    assertThat(documented).containsAll(own);
  }
}
