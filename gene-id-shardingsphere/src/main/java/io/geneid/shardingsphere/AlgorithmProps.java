package io.geneid.shardingsphere;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.lease.WorkerIdAssigners;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Reads the kebab-case properties of one algorithm, rejecting unknown names and out-of-range values with a message
 * that names the algorithm type, the property and what is allowed. YAML hands values over as numbers or strings;
 * both are accepted.
 */
final class AlgorithmProps {

  /** The property every gene-id algorithm has: G, the gene bits. */
  static final String GENE_BITS = "gene-bits";

  private final String type;
  private final Properties props;

  private AlgorithmProps(String type, Properties props) {
    this.type = type;
    this.props = props;
  }

  /**
   * @throws IllegalArgumentException for a property name not in {@code allowed}
   */
  static AlgorithmProps of(String type, @Nullable Properties props, List<String> allowed) {
    Properties copy = new Properties();
    if (props != null) {
      for (Object key : props.keySet()) {
        String name = String.valueOf(key);
        if (!allowed.contains(name)) {
          throw new IllegalArgumentException(type + " has no property '" + name + "'; allowed: "
              + String.join(", ", allowed));
        }
        Object value = props.get(key);
        if (value != null) {
          copy.put(name, value);
        }
      }
    }
    return new AlgorithmProps(type, copy);
  }

  String type() {
    return type;
  }

  boolean has(String name) {
    return props.containsKey(name);
  }

  @Nullable Object raw(String name) {
    return props.get(name);
  }

  /**
   * {@code settings} once {@code init(Properties)} has set them.
   *
   * @throws IllegalStateException naming the algorithm type when it has not
   */
  static <T> T initialised(String type, @Nullable T settings) {
    if (settings == null) {
      throw new IllegalStateException(type + " was used before init(Properties)");
    }
    return settings;
  }

  /** {@link #GENE_BITS}: G in [0, {@value GeneIdLayout#MAX_GENE_BITS}], default that of the default layout. */
  int geneBits() {
    return (int) longValue(GENE_BITS, 0, GeneIdLayout.MAX_GENE_BITS, GeneIdLayout.defaults().geneBits());
  }

  /** A whole number in {@code [min, max]}, or {@code defaultValue} when absent. */
  long longValue(String name, long min, long max, long defaultValue) {
    return has(name) ? requiredLong(name, min, max) : defaultValue;
  }

  /** A whole number in {@code [min, max]}; absence is an error. */
  long requiredLong(String name, long min, long max) {
    Object raw = props.get(name);
    if (raw == null) {
      throw new IllegalArgumentException(type + " property '" + name + "' is required: a whole number in ["
          + min + ", " + max + "]");
    }
    long value;
    try {
      value = Long.parseLong(String.valueOf(raw).trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be a whole number in [" + min + ", "
          + max + "] but was '" + raw + "'", e);
    }
    return checkRange(name, value, min, max);
  }

  /** Text, trimmed, or {@code defaultValue} when absent. */
  String string(String name, String defaultValue) {
    Object raw = props.get(name);
    return raw == null ? defaultValue : String.valueOf(raw).trim();
  }

  /** Text, trimmed; absence or blank is an error naming {@code what} is expected. */
  String requiredString(String name, String what) {
    String value = string(name, "");
    if (value.isEmpty()) {
      throw new IllegalArgumentException(type + " property '" + name + "' is required: " + what);
    }
    return value;
  }

  /** {@code true} or {@code false}, or {@code defaultValue} when absent. */
  boolean bool(String name, boolean defaultValue) {
    String value = string(name, Boolean.toString(defaultValue)).toLowerCase(java.util.Locale.ROOT);
    if (!value.equals("true") && !value.equals("false")) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be true or false but was '"
          + raw(name) + "'");
    }
    return value.equals("true");
  }

  /** A number in {@code [min, max]}, or {@code defaultValue} when absent. */
  double doubleValue(String name, double min, double max, double defaultValue) {
    Object raw = props.get(name);
    if (raw == null) {
      return defaultValue;
    }
    double value;
    try {
      value = Double.parseDouble(String.valueOf(raw).trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be a number in [" + min + ", " + max
          + "] but was '" + raw + "'", e);
    }
    if (!(value >= min && value <= max)) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be in [" + min + ", " + max
          + "] but was " + raw);
    }
    return value;
  }

  /**
   * A duration ({@code 1500ms}, {@code 30s}, {@code 10m}, {@code 1h}, ISO-8601 {@code PT30S}, or plain milliseconds)
   * in {@code [min, max]}, or {@code defaultValue} when absent.
   */
  Duration duration(String name, Duration min, Duration max, Duration defaultValue) {
    Object raw = props.get(name);
    if (raw == null) {
      return defaultValue;
    }
    Duration value;
    try {
      value = WorkerIdAssigners.parseDuration(name, String.valueOf(raw));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be a duration such as 30s, 1500ms or"
          + " PT30S but was '" + raw + "'", e);
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be in [" + min.toMillis() + "ms, "
          + max.toMillis() + "ms] but was " + value.toMillis() + "ms");
    }
    return value;
  }

  long checkRange(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be in [" + min + ", " + max
          + "] but was " + value);
    }
    return value;
  }
}
