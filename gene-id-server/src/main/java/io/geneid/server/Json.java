package io.geneid.server;

/** A minimal JSON writer: the server's answers are small flat objects, so no JSON library is needed. */
final class Json {
  private final StringBuilder out;
  private boolean first = true;

  private Json(int capacity) {
    out = new StringBuilder(capacity).append('{');
  }

  static Json object(int capacity) {
    return new Json(capacity);
  }

  private StringBuilder key(String name) {
    if (!first) {
      out.append(',');
    }
    first = false;
    return quote(out, name).append(':');
  }

  Json string(String name, String value) {
    quote(key(name), value);
    return this;
  }

  Json number(String name, long value) {
    key(name).append(value);
    return this;
  }

  Json bool(String name, boolean value) {
    key(name).append(value);
    return this;
  }

  /** Ids as JSON strings: they exceed 2^53. */
  Json idStrings(String name, long[] ids) {
    StringBuilder b = key(name).append('[');
    for (int i = 0; i < ids.length; i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append('"').append(ids[i]).append('"');
    }
    b.append(']');
    return this;
  }

  Json strings(String name, String[] values) {
    StringBuilder b = key(name).append('[');
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        b.append(',');
      }
      quote(b, values[i]);
    }
    b.append(']');
    return this;
  }

  /** A value that is already JSON. */
  Json raw(String name, String json) {
    key(name).append(json);
    return this;
  }

  String end() {
    return out.append('}').toString();
  }

  static StringBuilder quote(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"');
  }

  private static final java.time.format.DateTimeFormatter MILLIS = java.time.format.DateTimeFormatter
      .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(java.time.ZoneOffset.UTC);

  /** An instant in UTC, always with three digits of milliseconds ({@code 2026-11-28T02:12:01.000Z}). */
  static String instant(java.time.Instant t) {
    return MILLIS.format(t);
  }

  static String error(ApiException e) {
    return object(64 + e.reason().length()).string("code", e.code().code()).string("reason", e.reason()).end();
  }
}
