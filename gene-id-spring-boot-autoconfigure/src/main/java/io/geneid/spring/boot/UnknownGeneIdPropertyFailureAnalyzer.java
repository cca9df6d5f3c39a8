package io.geneid.spring.boot;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@code gene-id.*} property that no setting reads (a misspelling, or a ShardingSphere spelling such as
 * {@code gene-id.jdbc.create-table}) into a start-up report that names it and the closest valid key. The valid keys
 * come from the starter's configuration metadata, the same list an IDE completes from.
 */
final class UnknownGeneIdPropertyFailureAnalyzer
    extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

  private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"(gene-id\\.[^\"]+)\"");

  @Override
  protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
    List<String> lines = new ArrayList<>();
    TreeSet<String> known = knownKeys();
    for (ConfigurationProperty property : cause.getUnboundProperties()) {
      String name = property.getName().toString();
      if (!name.startsWith(GeneIdProperties.PREFIX + ".")) {
        continue;
      }
      String closest = closest(name, known);
      lines.add(name + " (from " + property.getOrigin() + ") is not a gene-id property"
          + (closest == null ? "" : "; did you mean " + closest + "?"));
    }
    if (lines.isEmpty()) {
      return null; // not ours: Spring's own analysis applies
    }
    return new FailureAnalysis("Unknown gene-id configuration:\n  " + String.join("\n  ", lines),
        "Fix or remove the property. gene-id refuses keys it does not read, so a misspelt setting cannot be silently "
            + "ignored. The valid keys: " + String.join(", ", known), cause);
  }

  /** The {@code gene-id.*} keys of every configuration metadata file on the class path. */
  static TreeSet<String> knownKeys() {
    TreeSet<String> keys = new TreeSet<>();
    try {
      Enumeration<URL> files = UnknownGeneIdPropertyFailureAnalyzer.class.getClassLoader()
          .getResources("META-INF/spring-configuration-metadata.json");
      while (files.hasMoreElements()) {
        try (InputStream in = files.nextElement().openStream()) {
          Matcher m = NAME.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          while (m.find()) {
            keys.add(m.group(1));
          }
        }
      }
    } catch (IOException e) {
      // no suggestion then
    }
    return keys;
  }

  /** The known key nearest to {@code name} by edit distance, if it is near enough to be a likely intent. */
  static @Nullable String closest(String name, Iterable<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String key : known) {
      int d = distance(name, key);
      if (d < bestDistance) {
        best = key;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(3, name.length() / 4) ? best : null;
  }

  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
