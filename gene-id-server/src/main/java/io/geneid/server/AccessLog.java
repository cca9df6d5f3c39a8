package io.geneid.server;

/**
 * The structured access log (off by default, {@code access-log=true}): one JSON line per request on standard
 * output. It holds the path but no query value and no header, so no token ever reaches it.
 */
final class AccessLog {
  private AccessLog() {}

  static void line(String protocol, String client, String method, String path, int status, String outcome, int ids,
      long nanos) {
    String line = Json.object(200).string("time", java.time.Instant.now().toString()).string("protocol", protocol)
        .string("client", client).string("method", method).string("path", ParentKey.clip(path))
        .number("status", status).string("outcome", outcome).number("ids", ids)
        .number("micros", nanos / 1000).end();
    System.out.println(line);
  }
}
