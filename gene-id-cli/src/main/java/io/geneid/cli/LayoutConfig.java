package io.geneid.cli;

import io.geneid.core.settings.SettingsReader;
import io.geneid.core.GeneIdLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads the layout keys of a config file.
 *
 * <p>A file is flattened to dotted keys ({@code gene-id.gene-bits}, {@code rules[0].keyGenerators.gene.props.gene-bits}).
 * A key is a layout key when its last part is one of {@link #KEYS} (Spring's relaxed forms {@code geneBits} and
 * {@code gene_bits} too) and it sits at the top level, in a {@code gene-id} block (Spring Boot) or in a
 * {@code props} block (ShardingSphere key-generator props, also inside a whole ShardingSphere YAML). Other keys of
 * those blocks ({@code worker-id}, {@code max-borrow-millis}, ...) are ignored, except one that looks like a layout
 * key and is not ({@code gene-bit}, {@code epoch-millis}): that is an error naming it. Several blocks must agree.
 */
final class LayoutConfig {

  static final List<String> KEYS = List.of("epoch", "timestamp-bits", "worker-bits", "sequence-bits", "gene-bits");

  /** One layout key as the file spells it ({@code gene-id.geneBits}) and its value. */
  record Setting(String key, Object value) {}

  private LayoutConfig() {}

  /** Layout key (canonical kebab-case) to its setting, empty if the file sets none. */
  static Map<String, Setting> read(Path file) {
    Map<String, Object> flat = new LinkedHashMap<>();
    String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".properties")) {
      Properties properties = new Properties();
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        properties.load(reader);
      } catch (NoSuchFileException e) {
        throw new BadInputException("config file " + file + " does not exist");
      } catch (IOException | IllegalArgumentException e) {
        throw new BadInputException("cannot read config file " + file + ": " + e.getMessage());
      }
      new TreeMap<>(properties).forEach((k, v) -> flat.put(k.toString(), v));
    } else if (name.endsWith(".yml") || name.endsWith(".yaml")) {
      flatten("", loadYaml(file), flat);
    } else {
      throw new BadInputException("config file must end with .properties, .yml or .yaml but was " + file);
    }
    return layoutKeys(flat, file);
  }

  static @org.jspecify.annotations.Nullable Object loadYaml(Path file) {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    Yaml yaml = new Yaml(new TagTolerantConstructor(options));
    try (InputStream in = Files.newInputStream(file)) {
      Object last = null;
      for (Object document : yaml.loadAll(in)) {
        if (document != null) {
          if (last != null) {
            throw new BadInputException("config file " + file + " holds several YAML documents: keep the one with"
                + " the layout");
          }
          last = document;
        }
      }
      return last;
    } catch (NoSuchFileException e) {
      throw new BadInputException("config file " + file + " does not exist");
    } catch (MarkedYAMLException e) {
      throw new BadInputException("config file " + file + " is not valid YAML: " + e.getProblem()
          + (e.getProblemMark() == null ? "" : " at line " + (e.getProblemMark().getLine() + 1)));
    } catch (IOException | YAMLException e) {
      throw new BadInputException("cannot read config file " + file + ": " + e.getMessage());
    }
  }

  private static void flatten(String prefix, @org.jspecify.annotations.Nullable Object value, Map<String, Object> out) {
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, out));
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        flatten(prefix + "[" + i + "]", list.get(i), out);
      }
    } else if (value != null && !prefix.isEmpty()) {
      out.put(prefix, value);
    }
  }

  private static Map<String, Setting> layoutKeys(Map<String, Object> flat, Path file) {
    // scope (the key without its last part) -> canonical key -> setting
    Map<String, Map<String, Setting>> scopes = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : flat.entrySet()) {
      String key = e.getKey();
      int dot = key.lastIndexOf('.');
      String scope = dot < 0 ? "" : key.substring(0, dot);
      String last = key.substring(dot + 1);
      if (!inScope(scope)) {
        continue;
      }
      String canonical = canonical(last);
      if (canonical == null) {
        String relaxed = relaxed(last);
        if (relaxed.contains("bit") || relaxed.contains("epoch")) {
          throw new BadInputException("unknown layout key '" + key + "' in " + file + ": the layout keys are "
              + String.join(", ", KEYS));
        }
        continue;
      }
      Setting before = scopes.computeIfAbsent(scope, s -> new LinkedHashMap<>())
          .put(canonical, new Setting(key, e.getValue()));
      if (before != null) {
        throw new BadInputException(file + " sets " + canonical + " twice: " + before.key() + " and " + key);
      }
    }
    if (scopes.isEmpty()) {
      return Map.of();
    }
    List<String> names = new ArrayList<>();
    Map<String, Setting> first = null;
    for (Map.Entry<String, Map<String, Setting>> scope : scopes.entrySet()) {
      Map<String, Setting> values = scope.getValue();
      names.add(scope.getKey().isEmpty() ? "the top level" : "'" + scope.getKey() + "'");
      if (first == null) {
        first = values;
      } else if (!sameLayout(first, values)) {
        throw new BadInputException(file + " holds " + scopes.size() + " different layouts (under "
            + String.join(" and ", names) + (names.size() < scopes.size() ? " and more" : "")
            + "): pass the one you mean with flags");
      }
    }
    return Objects.requireNonNull(first);
  }

  private static boolean sameLayout(Map<String, Setting> a, Map<String, Setting> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    for (String key : a.keySet()) {
      if (!String.valueOf(a.get(key).value()).equals(String.valueOf(b.get(key).value()))) {
        return false;
      }
    }
    return true;
  }

  private static boolean inScope(String scope) {
    if (scope.isEmpty()) {
      return true;
    }
    String last = relaxed(scope.substring(scope.lastIndexOf('.') + 1));
    return last.equals("geneid") || last.equals("props");
  }

  private static String relaxed(String key) {
    return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  private static @org.jspecify.annotations.Nullable String canonical(String key) {
    String relaxed = relaxed(key);
    for (String k : KEYS) {
      if (relaxed(k).equals(relaxed)) {
        return k;
      }
    }
    return null;
  }

  /** Sets one layout key on {@code builder}; {@code where} names it in errors. */
  static void apply(GeneIdLayout.Builder builder, String key, Object value, String where) {
    switch (key) {
      case "epoch" -> builder.epoch(epoch(value, where));
      case "timestamp-bits" -> builder.timestampBits(bits(value, where));
      case "worker-bits" -> builder.workerBits(bits(value, where));
      case "sequence-bits" -> builder.sequenceBits(bits(value, where));
      case "gene-bits" -> builder.geneBits(bits(value, where));
      default -> throw new IllegalStateException("not a layout key: " + key);
    }
  }

  private static int bits(Object value, String where) {
    if (value instanceof Integer i) {
      return i;
    }
    try {
      return Integer.parseInt(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new BadInputException(where + " must be a whole number but was '" + value + "'");
    }
  }

  /** An epoch in any form {@link SettingsReader#epoch(String, Instant)} reads; {@code where} names it in errors. */
  static Instant epoch(Object value, String where) {
    try {
      return SettingsReader.of(Map.of("epoch", value)).named(k -> where).epoch("epoch", GeneIdLayout.DEFAULT_EPOCH);
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
  }

  /**
   * Reads YAML whatever its tags: a whole ShardingSphere config ({@code !SHARDING}, {@code !READWRITE_SPLITTING})
   * loads as plain maps and lists. Nothing but maps, lists and scalars is ever constructed.
   */
  private static final class TagTolerantConstructor extends SafeConstructor {
    TagTolerantConstructor(LoaderOptions options) {
      super(options);
      this.yamlConstructors.put(null, new AbstractConstruct() {
        @Override
        public Object construct(Node node) {
          Tag plain = switch (node.getNodeId()) {
            case mapping -> Tag.MAP;
            case sequence -> Tag.SEQ;
            default -> Tag.STR;
          };
          return yamlConstructors.get(plain).construct(node);
        }
      });
    }
  }
}
