package io.geneid.shardingsphere;

import java.util.List;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Reads the kebab-case properties of one algorithm, rejecting unknown names and out-of-range values with a message
 * that names the algorithm type, the property and what is allowed. YAML hands values over as numbers or strings;
 * both are accepted.
 */
final class AlgorithmProps {

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

  long checkRange(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(type + " property '" + name + "' must be in [" + min + ", " + max
          + "] but was " + value);
    }
    return value;
  }
}
