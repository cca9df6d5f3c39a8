package io.geneid.core.settings;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A setting with a bad value, thrown by every builder and by {@link SettingsReader}: it carries the key (as the core
 * knows it: {@code lease-ttl}, {@code timestamp-bits}), the value as given, and the rule the value broke, so that a
 * front end names the key its own way ({@link #named(UnaryOperator)}: {@code gene-id.lease.ttl} in Spring Boot,
 * {@code GENE_SNOWFLAKE property 'lease-ttl'} in ShardingSphere) without rewriting the message.
 *
 * <p>The message is {@code "<name> must be <rule> but was <value>"}, or {@code "<name> is required: <rule>"} for a
 * missing value; a rule over several keys (the layout's widths must add up to 63) names them joined with
 * {@code " + "}. A rule that mentions another key writes it in braces ({@code "at least {worker-id-min} (9)"}), and
 * the message names it as it names the key.
 */
public final class InvalidSettingException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final List<String> keys;
  private final String name;
  private final @Nullable String value;
  /** The rule as given, other keys in braces. */
  private final String rule;
  /** The rule with the keys in braces named. */
  private final String namedRule;

  /**
   * A bad value of {@code key}.
   *
   * @param key the key as the core knows it
   * @param value the value as given, as text (quoted by the caller if it was text); null when it is missing
   * @param rule what the value must be: {@code "in [0, 63]"}, {@code "a duration such as 30s"}
   */
  public InvalidSettingException(String key, @Nullable String value, String rule) {
    this(List.of(key), key, value, rule, UnaryOperator.identity(), null);
  }

  /** {@link #InvalidSettingException(String, String, String)} with the exception that made the value bad. */
  public InvalidSettingException(String key, @Nullable String value, String rule, @Nullable Throwable cause) {
    this(List.of(key), key, value, rule, UnaryOperator.identity(), cause);
  }

  /** A bad combination of several keys' values ({@code value} describes them together). */
  public InvalidSettingException(List<String> keys, String value, String rule) {
    this(List.copyOf(keys), String.join(" + ", keys), value, rule, UnaryOperator.identity(), null);
  }

  private InvalidSettingException(List<String> keys, String name, @Nullable String value, String rule,
      UnaryOperator<String> nameOf, @Nullable Throwable cause) {
    this(keys, name, value, rule, nameRule(rule, nameOf), cause);
  }

  private InvalidSettingException(List<String> keys, String name, @Nullable String value, String rule,
      String namedRule, @Nullable Throwable cause) {
    super(message(name, value, namedRule), cause);
    this.keys = keys;
    this.name = name;
    this.value = value;
    this.rule = Objects.requireNonNull(rule);
    this.namedRule = namedRule;
  }

  /** Whether {@code text} can be a key: letters, digits, {@code - . _}, not empty. */
  private static boolean isKey(String text) {
    return !text.isEmpty() && text.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '.'
        || c == '_');
  }

  /** {@code rule} with every {@code {key}} replaced by {@code nameOf.apply(key)}. */
  private static String nameRule(String rule, UnaryOperator<String> nameOf) {
    StringBuilder out = new StringBuilder();
    int from = 0;
    for (int open = rule.indexOf('{'); open >= 0; open = rule.indexOf('{', open + 1)) {
      int close = rule.indexOf('}', open);
      if (close < 0) {
        break;
      }
      String key = rule.substring(open + 1, close);
      if (isKey(key)) { // "free of { }" is text, not a key
        out.append(rule, from, open).append(nameOf.apply(key));
        from = close + 1;
      }
    }
    return out.append(rule, from, rule.length()).toString();
  }

  private static String message(String name, @Nullable String value, String rule) {
    return value == null ? name + " is required: " + rule : name + " must be " + rule + " but was " + value;
  }

  /**
   * Checks {@code min <= value <= max}.
   *
   * @return {@code value}
   * @throws InvalidSettingException {@code "<key> must be in [<min>, <max>] but was <value>"}
   */
  public static long requireRange(String key, long value, long min, long max) {
    if (value < min || value > max) {
      throw new InvalidSettingException(key, Long.toString(value), "in [" + min + ", " + max + "]");
    }
    return value;
  }

  /**
   * Checks {@code min <= value <= max}.
   *
   * @return {@code value}
   * @throws InvalidSettingException {@code "<key> must be in [<min>ms, <max>ms] but was <value>ms"}
   */
  public static Duration requireRange(String key, Duration value, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new InvalidSettingException(key, value.toMillis() + "ms", "in [" + min.toMillis() + "ms, "
          + max.toMillis() + "ms]");
    }
    return value;
  }

  /**
   * This exception with each key named {@code nameOf.apply(key)} in the message; the keys, the value, the rule, the
   * cause and the stack trace stay.
   */
  public InvalidSettingException named(UnaryOperator<String> nameOf) {
    return namedAll(all -> String.join(" + ", all.stream().map(nameOf).toList()), nameOf);
  }

  /**
   * This exception with its keys named together by {@code nameOfKeys} ({@code "GENE_SNOWFLAKE properties a + b"}) and
   * the keys its rule mentions by {@code nameOf}; the keys, the value, the rule, the cause and the stack trace stay.
   */
  public InvalidSettingException namedAll(Function<List<String>, String> nameOfKeys, UnaryOperator<String> nameOf) {
    InvalidSettingException named = new InvalidSettingException(keys, nameOfKeys.apply(keys), value, rule, nameOf,
        getCause());
    named.setStackTrace(getStackTrace());
    return named;
  }

  /** The key as the core knows it; the first one of a rule over several keys. */
  public String key() {
    return keys.get(0);
  }

  /** Every key the rule is about (one, but for rules over several keys). */
  public List<String> keys() {
    return keys;
  }

  /** The value as given, as text; null when it was missing. */
  public @Nullable String value() {
    return value;
  }

  /** What the value must be, other keys named as the message names them. */
  public String rule() {
    return namedRule;
  }
}
