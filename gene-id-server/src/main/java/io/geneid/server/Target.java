package io.geneid.server;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request target ({@code /path?query}) read strictly: {@code &} is the only separator ({@code ;} is an ordinary
 * character), {@code +} in the query is a space, a {@code %} must be followed by two hexadecimal digits, and the
 * decoded bytes must be UTF-8. A target that breaks a rule is an {@code invalid_argument} naming the part.
 *
 * @param path the decoded path
 * @param parameters the decoded parameters, in order, each with every value given
 */
record Target(String path, Map<String, List<String>> parameters) {
  /** The most parameters one request may carry. */
  static final int MAX_PARAMETERS = 64;

  static Target parse(String uri) {
    int q = uri.indexOf('?');
    String rawPath = q < 0 ? uri : uri.substring(0, q);
    int hash = rawPath.indexOf('#');
    if (hash >= 0) {
      rawPath = rawPath.substring(0, hash);
    }
    String path = decode(rawPath, false, "path", rawPath);
    Map<String, List<String>> params = new LinkedHashMap<>();
    if (q >= 0) {
      String query = uri.substring(q + 1);
      int h = query.indexOf('#');
      if (h >= 0) {
        query = query.substring(0, h);
      }
      int count = 0;
      for (String pair : query.split("&", -1)) {
        if (pair.isEmpty()) {
          continue;
        }
        if (++count > MAX_PARAMETERS) {
          throw ApiException.invalid("the query has more than " + MAX_PARAMETERS + " parameters");
        }
        int eq = pair.indexOf('=');
        String name = decode(eq < 0 ? pair : pair.substring(0, eq), true, "query", pair);
        String value = eq < 0 ? "" : decode(pair.substring(eq + 1), true, "query", pair);
        params.computeIfAbsent(name, k -> new ArrayList<>(1)).add(value);
      }
    }
    return new Target(path, params);
  }

  private static String decode(String s, boolean plusIsSpace, String part, String context) {
    if (s.indexOf('%') < 0) {
      return plusIsSpace ? s.replace('+', ' ') : s;
    }
    byte[] bytes = new byte[s.length()];
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        int hi = i + 1 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
        int lo = i + 2 < s.length() ? Character.digit(s.charAt(i + 2), 16) : -1;
        if (hi < 0 || lo < 0) {
          throw ApiException.invalid("the " + part + " has a bad percent-encoding at '" + ParentKey.clip(context)
              + "': '%' must be followed by two hexadecimal digits");
        }
        bytes[n++] = (byte) (hi << 4 | lo);
        i += 2;
      } else if (c > 0x7f) {
        // not sent by a conforming client; keep it as its UTF-8 bytes
        byte[] u = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (n + u.length > bytes.length) {
          bytes = java.util.Arrays.copyOf(bytes, bytes.length + u.length + 8);
        }
        System.arraycopy(u, 0, bytes, n, u.length);
        n += u.length;
      } else {
        bytes[n++] = (byte) (plusIsSpace && c == '+' ? ' ' : c);
      }
    }
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer out = d.decode(ByteBuffer.wrap(bytes, 0, n));
      return out.toString();
    } catch (CharacterCodingException e) {
      throw ApiException.invalid("the " + part + " has a bad percent-encoding at '" + ParentKey.clip(context)
          + "': the bytes are not UTF-8");
    }
  }
}
