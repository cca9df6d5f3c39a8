package io.geneid.core.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Not API: the one place that turns a store's URL into text fit for a log line, an exception message, a
 * {@code toString()}, a health detail or a registry key. A store is named by scheme, host, port and database only:
 * never its user info (a password may hold {@code / + @ : %} or spaces), never its parameters.
 */
public final class StoreUrls {

  /** A JDBC or Redis URL inside a longer text (a driver's or a parser's message). */
  private static final Pattern URL =
      Pattern.compile("(?i)(?:jdbc:[a-z0-9]+:|rediss?(?:-sentinel|-socket)?(?:\\+[a-z]+)?://)[^\\s'\"]+");
  /** host[:port][/database], then the end or a parameter separator. */
  private static final Pattern ADDRESS = Pattern.compile(
      "((?:[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\])(?::\\d{1,5})?(?:,(?:[A-Za-z0-9._-]+)(?::\\d{1,5})?)*"
          + "(?:/[A-Za-z0-9._$:-]*)?)(?=$|[?;&#])");
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile("(?i)\\b(password|pwd|passwd)\\s*=\\s*[^&;\\s'\"]*");
  /** A password parameter's value in a configured URL, which may hold spaces: up to the next parameter. */
  private static final Pattern SECRET_PARAMETER_VALUE = Pattern.compile("(?i)\\b(?:password|pwd|passwd)=([^&;]*)");

  private StoreUrls() {}

  /**
   * A URL cut to scheme, host, port and database: {@code jdbc:mariadb://app:pw@db1:3306/ids?password=pw} is
   * {@code mariadb://db1:3306/ids}, {@code redis://:p/w@h:6379/0} is {@code redis://h:6379/0},
   * {@code jdbc:oracle:thin:scott/tiger@db3:1521/ids} is {@code oracle://db3:1521/ids}.
   */
  public static String describe(@Nullable String url) {
    if (url == null || url.isEmpty()) {
      return "(unknown URL)";
    }
    String u = url.startsWith("jdbc:") ? url.substring(5) : url;
    int sep = u.indexOf("://");
    String scheme = sep >= 0 ? u.substring(0, sep) : u.substring(0, Math.max(0, u.indexOf(':')));
    String rest = sep >= 0 ? u.substring(sep + 3) : u.substring(scheme.length() + (scheme.isEmpty() ? 0 : 1));
    // A password may hold '/', '@', ':', '?', ';' or spaces, in the user info or in the parameters: the address is
    // the leftmost place (the start, or just after an '@') where host[:port][/database] runs up to the end or a
    // parameter separator.
    int from = addressFrom(rest);
    if (from > 0 || (from == 0 && sep >= 0)) { // without "://", only user/password@host:port is an address
      Matcher m = ADDRESS.matcher(rest).region(from, rest.length());
      if (m.lookingAt()) {
        return scheme + "://" + m.group(1);
      }
    }
    if (sep < 0) {
      int end = rest.length(); // h2:mem:x;PASSWORD=... : the part before the first parameter, if it has no '@'
      for (char stop : new char[] {'?', ';', '&', '#'}) {
        int k = rest.indexOf(stop);
        end = k >= 0 ? Math.min(end, k) : end;
      }
      if (rest.lastIndexOf('@', end) < 0) {
        return scheme + ":" + rest.substring(0, end);
      }
    }
    return scheme + "://(an address that cannot be shown without its user info)";
  }

  /** Where host[:port][/database] starts in {@code rest} (a URL after its scheme), or -1. */
  private static int addressFrom(String rest) {
    for (int from = 0; from <= rest.length(); from = rest.indexOf('@', from) + 1) {
      if (ADDRESS.matcher(rest).region(from, rest.length()).lookingAt()) {
        return from;
      }
      if (rest.indexOf('@', from) < 0) {
        return -1;
      }
    }
    return -1;
  }

  /**
   * {@code text} with the configured {@code url} (which may hold spaces), then every other JDBC or Redis URL in it,
   * cut by {@link #describe}, and every {@code password=}/{@code pwd=} value masked: for a driver's, a pool's or a
   * parser's message that repeats a URL.
   */
  public static String scrub(@Nullable String text, @Nullable String url) {
    if (text == null) {
      return "";
    }
    if (url != null && !url.isEmpty()) {
      text = text.replace(url, describe(url));
    }
    Matcher m = URL.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String found = m.group();
      int end = found.length(); // a URL in a sentence may be followed by punctuation
      while (end > 0 && ",.)]".indexOf(found.charAt(end - 1)) >= 0) {
        end--;
      }
      m.appendReplacement(out, Matcher.quoteReplacement(describe(found.substring(0, end)) + found.substring(end)));
    }
    m.appendTail(out);
    String scrubbed = SECRET_PARAMETER.matcher(out).replaceAll("$1=***");
    // A driver that misreads the URL may quote a piece of the password alone ("Incorrect port value : Sx7q").
    for (String piece : secretPieces(url)) {
      scrubbed = scrubbed.replace(piece, "***");
    }
    return scrubbed;
  }

  /**
   * The pieces of the URL's secrets a parser may quote alone: its user info and its {@code password=} values, as
   * typed and percent-decoded, split where a parser would split them; pieces shorter than 3 characters are kept
   * (masking them would mask ordinary words).
   */
  private static Set<String> secretPieces(@Nullable String url) {
    Set<String> pieces = new TreeSet<>(Comparator.comparingInt(String::length).reversed().thenComparing(c -> c));
    if (url == null || url.isEmpty()) {
      return pieces;
    }
    List<String> secrets = new ArrayList<>();
    int sep = url.indexOf("://");
    String rest = sep >= 0 ? url.substring(sep + 3) : url;
    int from = addressFrom(rest);
    if (from > 0) {
      String userInfo = rest.substring(0, from - 1); // user:password, or jdbc:oracle:thin:user/password
      int colon = sep >= 0 ? userInfo.indexOf(':') : userInfo.lastIndexOf(':');
      secrets.add(colon >= 0 ? userInfo.substring(colon + 1) : userInfo);
    }
    Matcher p = SECRET_PARAMETER_VALUE.matcher(url);
    while (p.find()) {
      secrets.add(p.group(1));
    }
    for (String secret : secrets) {
      for (String form : List.of(secret, percentDecoded(secret))) {
        pieces.add(form);
        for (String piece : form.split("[/+@:%?&;#=\\s]+")) {
          if (piece.length() >= 3) {
            pieces.add(piece);
          }
        }
      }
    }
    pieces.removeIf(String::isEmpty);
    return pieces;
  }

  private static String percentDecoded(String s) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }
}
