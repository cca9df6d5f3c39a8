package io.geneid.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.spring.boot.GeneIdProperties;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.shardingsphere.driver.yaml.YamlJDBCConfiguration;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.infra.spi.type.typed.TypedSPILoader;
import org.apache.shardingsphere.infra.util.yaml.YamlEngine;
import org.apache.shardingsphere.sharding.spi.ShardingAlgorithm;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Every {@code yaml} and {@code properties} block of the README and of {@code docs/} goes through the parser that
 * reads it in real life: ShardingSphere configurations through ShardingSphere's YAML engine, and each gene-id
 * algorithm in them (also in fragments such as a {@code keyGenerators:} section) is created and initialised by
 * ShardingSphere's SPI loader, which refuses unknown properties and bad values; {@code gene-id.*} settings are bound
 * by Spring Boot's binder onto the starter's {@link GeneIdProperties}, refusing keys it does not know; any other
 * block must at least be valid YAML. A block that shows a mistake on purpose is preceded by
 * {@code <!-- not-parsed: why -->}.
 */
class DocsSnippetsTest {

  private static final Pattern BLOCK = Pattern.compile("(<!-- not-parsed: [^>]*-->\\s*\\n)?```(yaml|yml|properties)\\n"
      + "(.*?)```", Pattern.DOTALL);

  record Snippet(String where, String kind, String text) {}

  static List<Snippet> snippets() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(Path.of("..", "README.md"));
    try (Stream<Path> docs = Files.list(Path.of("..", "docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<Snippet> found = new ArrayList<>();
    for (Path page : pages) {
      String text = Files.readString(page, StandardCharsets.UTF_8);
      Matcher m = BLOCK.matcher(text);
      while (m.find()) {
        if (m.group(1) == null) {
          int line = text.substring(0, m.start(2)).split("\n", -1).length;
          found.add(new Snippet(page.getFileName() + ":" + line, m.group(2), m.group(3)));
        }
      }
    }
    return found;
  }

  @Test
  void everySnippetParsesWithTheParserThatReadsIt() throws Exception {
    List<Snippet> snippets = snippets();
    assertThat(snippets).as("yaml and properties blocks of README.md and docs/").hasSizeGreaterThan(8);
    int algorithms = 0;
    int springBlocks = 0;
    int shardingConfigs = 0;
    for (Snippet s : snippets) {
      try {
        Map<String, Object> tree = s.kind().equals("properties") ? properties(s.text()) : yaml(s.text());
        if (tree.containsKey("rules") || tree.containsKey("dataSources")) {
          YamlJDBCConfiguration config = YamlEngine.unmarshal(s.text().getBytes(StandardCharsets.UTF_8),
              YamlJDBCConfiguration.class);
          assertThat(config.getDataSources()).as("data sources").isNotEmpty();
          shardingConfigs++;
        }
        algorithms += initAlgorithms(tree);
        if (tree.containsKey("gene-id") || tree.keySet().stream().anyMatch(k -> k.startsWith("gene-id."))) {
          bindGeneId(tree);
          springBlocks++;
        }
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError(s.where() + ": the " + s.kind() + " block does not parse: " + e, e);
      }
    }
    assertThat(shardingConfigs).as("ShardingSphere configurations read").isGreaterThanOrEqualTo(3);
    assertThat(algorithms).as("gene-id algorithms initialised").isGreaterThanOrEqualTo(10);
    assertThat(springBlocks).as("gene-id.* blocks bound").isGreaterThanOrEqualTo(3);
  }

  @Test
  void aWrongPropertyInASnippetFailsTheTest() {
    String wrong = "keyGenerators:\n  ids:\n    type: GENE_SNOWFLAKE\n    props: {worker-id: '7', workers: 3}\n";
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> initAlgorithms(yaml(wrong)))
        .hasStackTraceContaining("GENE_SNOWFLAKE has no property 'workers'");
    String spring = "gene-id:\n  worker-id: '7'\n  jdbc:\n    create-table: true\n";
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> bindGeneId(yaml(spring)))
        .hasStackTraceContaining("gene-id.jdbc.create-table");
  }

  /** Creates and initialises every gene-id algorithm of every keyGenerators and shardingAlgorithms map. */
  @SuppressWarnings("unchecked")
  static int initAlgorithms(Object node) {
    int n = 0;
    if (node instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String key = String.valueOf(e.getKey());
        if ((key.equals("keyGenerators") || key.equals("shardingAlgorithms")) && e.getValue() instanceof Map<?, ?> a) {
          for (Object algorithm : a.values()) {
            Map<String, Object> spec = (Map<String, Object>) algorithm;
            String type = String.valueOf(spec.get("type"));
            if (!type.startsWith("GENE_")) {
              continue;
            }
            Properties props = new Properties();
            if (spec.get("props") instanceof Map<?, ?> p) {
              p.forEach((k, v) -> props.put(String.valueOf(k), v));
            }
            if (key.equals("keyGenerators")) {
              TypedSPILoader.getService(KeyGenerateAlgorithm.class, type, props);
            } else {
              TypedSPILoader.getService(ShardingAlgorithm.class, type, props);
            }
            n++;
          }
        } else {
          n += initAlgorithms(e.getValue());
        }
      }
    } else if (node instanceof List<?> list) {
      for (Object item : list) {
        n += initAlgorithms(item);
      }
    }
    return n;
  }

  /** Binds {@code gene-id.*} as Spring Boot does, refusing keys that no property reads. */
  static void bindGeneId(Map<String, Object> tree) {
    Map<String, Object> flat = new LinkedHashMap<>();
    flatten("", tree, flat);
    BindHandler strict = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
    GeneIdProperties bound = new Binder(new MapConfigurationPropertySource(flat))
        .bind(GeneIdProperties.PREFIX, Bindable.of(GeneIdProperties.class), strict)
        .orElseThrow(() -> new AssertionError("nothing under gene-id"));
    bound.layout(); // the layout the properties describe is valid
  }

  private static void flatten(String prefix, Object node, Map<String, Object> out) {
    if (node instanceof Map<?, ?> map) {
      map.forEach((k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, out));
    } else if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        flatten(prefix + "[" + i + "]", list.get(i), out);
      }
    } else if (node != null) {
      out.put(prefix, node instanceof java.util.Date d ? d.toInstant().toString() : String.valueOf(node));
    }
  }

  /** YAML as plain maps: ShardingSphere's rule tags ({@code - !SHARDING}) dropped, fragments dedented. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> yaml(String text) {
    String plain = text.stripIndent().replaceAll("(?m)^(\\s*- )![A-Z_]+\\s*$", "$1");
    Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(plain);
    assertThat(tree).as("a YAML mapping").isInstanceOf(Map.class);
    return (Map<String, Object>) tree;
  }

  private static Map<String, Object> properties(String text) throws RuntimeException {
    Properties p = new Properties();
    try {
      p.load(new StringReader(text));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    Map<String, Object> tree = new LinkedHashMap<>();
    p.forEach((k, v) -> tree.put(String.valueOf(k), v));
    return tree;
  }
}
