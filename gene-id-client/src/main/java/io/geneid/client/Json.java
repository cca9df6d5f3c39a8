package io.geneid.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A small JSON reader for the server's answers (RFC 8259): objects become {@link Map}s, arrays {@link List}s,
 * strings {@link String}s, numbers their source text as a {@link Number} ({@link Long} when whole and in range, else
 * {@link Double}), {@code true}/{@code false} {@link Boolean}s and {@code null} null. Ids travel as strings, so no
 * id passes through a double. Not a general-purpose library: enough for the documented shapes, strict about syntax.
 */
final class Json {

  private final String text;
  private int pos;

  private Json(String text) {
    this.text = text;
  }

  /**
   * The value {@code text} holds.
   *
   * @throws IllegalArgumentException naming the offset of the first syntax error
   */
  static @Nullable Object parse(String text) {
    Json json = new Json(text);
    json.space();
    Object value = json.value();
    json.space();
    if (json.pos != text.length()) {
      throw json.error("unexpected text after the value");
    }
    return value;
  }

  private @Nullable Object value() {
    if (pos >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw error("unexpected character '" + c + "'");
    }
  }

  private Map<String, @Nullable Object> object() {
    Map<String, @Nullable Object> map = new LinkedHashMap<>();
    pos++; // {
    space();
    if (peek() == '}') {
      pos++;
      return map;
    }
    while (true) {
      space();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      String name = string();
      space();
      expect(':');
      space();
      map.put(name, value());
      space();
      char c = next();
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<@Nullable Object> array() {
    List<@Nullable Object> list = new ArrayList<>();
    pos++; // [
    space();
    if (peek() == ']') {
      pos++;
      return list;
    }
    while (true) {
      space();
      list.add(value());
      space();
      char c = next();
      if (c == ']') {
        return list;
      }
      if (c != ',') {
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    pos++; // "
    StringBuilder sb = null;
    int start = pos;
    while (true) {
      char c = next();
      if (c == '"') {
        return sb == null ? text.substring(start, pos - 1) : sb.toString();
      }
      if (c < 0x20) {
        throw error("control character in a string");
      }
      if (c == '\\') {
        if (sb == null) {
          sb = new StringBuilder().append(text, start, pos - 1);
        }
        char e = next();
        switch (e) {
          case '"', '\\', '/' -> sb.append(e);
          case 'b' -> sb.append('\b');
          case 'f' -> sb.append('\f');
          case 'n' -> sb.append('\n');
          case 'r' -> sb.append('\r');
          case 't' -> sb.append('\t');
          case 'u' -> {
            if (pos + 4 > text.length()) {
              throw error("short \\u escape");
            }
            try {
              sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
            } catch (NumberFormatException ex) {
              throw error("bad \\u escape");
            }
            pos += 4;
          }
          default -> throw error("bad escape '\\" + e + "'");
        }
      } else if (sb != null) {
        sb.append(c);
      }
    }
  }

  private Number number() {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    digits();
    boolean whole = true;
    if (pos < text.length() && text.charAt(pos) == '.') {
      pos++;
      digits();
      whole = false;
    }
    if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
      pos++;
      if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
        pos++;
      }
      digits();
      whole = false;
    }
    String number = text.substring(start, pos);
    if (whole) {
      try {
        return Long.parseLong(number);
      } catch (NumberFormatException tooLarge) {
        // falls through to a double, as JSON readers do
      }
    }
    return Double.parseDouble(number);
  }

  private void digits() {
    int start = pos;
    while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
      pos++;
    }
    if (pos == start) {
      throw error("expected a digit");
    }
  }

  private @Nullable Object literal(String word, @Nullable Object value) {
    if (!text.startsWith(word, pos)) {
      throw error("expected " + word);
    }
    pos += word.length();
    return value;
  }

  private void space() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private char peek() {
    if (pos >= text.length()) {
      throw error("unexpected end");
    }
    return text.charAt(pos);
  }

  private char next() {
    char c = peek();
    pos++;
    return c;
  }

  private void expect(char c) {
    if (next() != c) {
      pos--;
      throw error("expected '" + c + "'");
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("not JSON: " + what + " at offset " + pos);
  }
}
