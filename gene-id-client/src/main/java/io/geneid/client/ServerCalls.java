package io.geneid.client;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP/JSON calls of the client (docs/server.md), each tried on the server addresses in turn until one answers.
 *
 * <p>A call starts at the address that answered last and goes round the list: an address that refuses the
 * connection, times out ({@link ClientSettings#requestTimeout()} per attempt, connection included), answers 5xx,
 * 429, a 404 that is not the server's own {@code unknown_key}, or a body that is not the documented shape, is passed
 * over for the next one, within the same call. After a whole round without an answer the call pauses
 * {@link ClientSettings#retryPause()} and goes round again, {@link ClientSettings#retryRounds()} more times, then
 * throws {@link GeneServerUnavailableException} naming every address tried and what went wrong there. A 4xx with the
 * server's error code (a bad argument, an unknown key, a wrong token) is thrown at once as
 * {@link GeneServerRefusedException}: every server would answer the same.
 *
 * <p>Before the first ids from an address, its {@code /v1/info} is read and its layout compared with the client's
 * (the configured gene bits, and the first server's layout): a server on another layout would issue ids that route
 * elsewhere or collide, so it is passed over like a server that does not answer, with the mismatch in the message.
 */
final class ServerCalls {

  private static final System.Logger LOG = System.getLogger(GeneIdClient.class.getName());

  private final ClientSettings settings;
  /** Made on the first request: building an HttpClient starts its selector thread. */
  private volatile @Nullable HttpClient http;
  private final @Nullable String authorization;
  /** Index of the address that answered last: the next call starts there. */
  private final AtomicInteger preferred = new AtomicInteger();
  /** Per address, its layout once its {@code /v1/info} was read and matched. */
  private final AtomicReferenceArray<@Nullable Info> checked;
  /** The layout every server must have: the first one read (guarded by this). */
  private volatile @Nullable Info agreed;

  /** What {@code /v1/info} says and the client uses. */
  record Info(GeneIdLayout layout, int maxCount, long workerId, @Nullable String instance) {}

  /** Set once every address's {@code /v1/info} was asked for (before the first ids). */
  private final java.util.concurrent.atomic.AtomicBoolean surveyed = new java.util.concurrent.atomic.AtomicBoolean();

  ServerCalls(ClientSettings settings) {
    this.settings = settings;
    this.authorization = settings.bearerToken() == null ? null : "Bearer " + settings.bearerToken();
    this.checked = new AtomicReferenceArray<>(settings.addresses().size());
  }

  /** The layout of the servers (read from the first that answers, once). */
  Info info() {
    Info info = agreed;
    if (info != null) {
      return info;
    }
    return call("/v1/info", (address, body) -> checkInfo(address, body), false);
  }

  /** {@code n} snowflake ids carrying {@code gene}, each checked to carry it. */
  long[] ids(long gene, int n) {
    return call("/v1/ids?count=" + n + "&gene=" + gene, (address, body) -> idsOf(body, gene, n, true), true);
  }

  /** {@code n} segment ids of {@code key} carrying gene 0, each checked to carry it. */
  long[] segmentIds(String key, int n) {
    String path = "/v1/segments/" + URLEncoder.encode(key, StandardCharsets.UTF_8) + "/ids?count=" + n + "&gene=0";
    return call(path, (address, body) -> idsOf(body, 0, n, false), true);
  }

  @FunctionalInterface
  private interface Reader<T> {
    /** The answer of {@code body}; a {@link RuntimeException} passes the address over. */
    T read(URI address, Map<String, @Nullable Object> body);
  }

  private <T> T call(String pathAndQuery, Reader<T> reader, boolean needsInfo) {
    List<URI> addresses = settings.addresses();
    int count = addresses.size();
    List<URI> tried = new ArrayList<>();
    StringBuilder what = new StringBuilder();
    Throwable last = null;
    for (int round = 0; round <= settings.retryRounds(); round++) {
      if (round > 0) {
        pause();
      }
      int start = preferred.get();
      for (int i = 0; i < count; i++) {
        int index = (start + i) % count;
        URI address = addresses.get(index);
        tried.add(address);
        try {
          if (needsInfo && !surveyed.get()) {
            survey();
          }
          if (needsInfo && checked.get(index) == null) {
            Info info = send(address, "/v1/info", this::checkInfo);
            checked.set(index, info);
          }
          T answer = send(address, pathAndQuery, reader);
          if (answer instanceof Info info) {
            checked.set(index, info); // read and matched: the address needs no second /v1/info
          }
          if (index != start) {
            preferred.set(index);
          }
          return answer;
        } catch (GeneServerRefusedException | GeneServerConflictException refused) {
          throw refused;
        } catch (RuntimeException e) {
          last = e;
          what.append(what.length() == 0 ? "" : ", ").append(address).append(" (").append(e.getMessage())
              .append(')');
          LOG.log(System.Logger.Level.DEBUG, "gene-id server {0} did not answer {1}: {2}", address, pathAndQuery,
              e.getMessage());
        }
      }
    }
    throw new GeneServerUnavailableException("no gene-id server answered GET " + pathQuiet(pathAndQuery) + " after "
        + (settings.retryRounds() + 1) + " round(s) over " + count + " address(es): " + what, tried,
        last == null ? new IllegalStateException("no address") : last);
  }

  /**
   * Reads the {@code /v1/info} of every address not read yet, all at once, so that two servers on one worker id are
   * seen before the first ids; an address that does not answer is read when a call first uses it.
   *
   * @throws GeneServerConflictException when two of them issue as the same worker id
   */
  private void survey() {
    List<URI> addresses = settings.addresses();
    List<CompletableFuture<@Nullable Info>> reads = new ArrayList<>();
    for (int i = 0; i < addresses.size(); i++) {
      URI address = addresses.get(i);
      reads.add(checked.get(i) != null ? CompletableFuture.completedFuture(null)
          : CompletableFuture.supplyAsync(() -> {
            try {
              return send(address, "/v1/info", (a, body) -> parseInfo(body));
            } catch (RuntimeException e) {
              return null; // read again when a call uses it
            }
          }));
    }
    for (int i = 0; i < reads.size(); i++) {
      Info info = reads.get(i).join();
      if (info != null && checked.get(i) == null) {
        checked.set(i, checkInfo(addresses.get(i), info));
      }
    }
    surveyed.set(true);
  }

  /** The path without the query: what the message names. */
  private static String pathQuiet(String pathAndQuery) {
    int q = pathAndQuery.indexOf('?');
    return q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
  }

  private void pause() {
    try {
      Thread.sleep(settings.retryPause().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GeneIdException("interrupted while waiting to retry the gene-id servers", e);
    }
  }

  /** One attempt at one address: the reader's answer, or a RuntimeException that passes the address over. */
  private <T> T send(URI address, String pathAndQuery, Reader<T> reader) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(address + pathAndQuery))
        .header("Accept", "application/json")
        .GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    HttpResponse<String> response = exchange(request.build());
    int status = response.statusCode();
    Map<String, @Nullable Object> body = bodyOf(response);
    if (status == 200) {
      if (body == null) {
        throw new IllegalStateException("answered 200 with a body that is not a JSON object");
      }
      return reader.read(address, body);
    }
    String code = body == null ? null : stringOrNull(body.get("code"));
    String reason = body == null ? null : stringOrNull(body.get("reason"));
    boolean refusal = status >= 400 && status < 500 && status != 408 && status != 429 && code != null
        && reason != null && !(status == 404 && code.equals("not_found"));
    if (refusal) {
      throw new GeneServerRefusedException(address, status, code, reason);
    }
    throw new IllegalStateException("HTTP " + status + (code == null ? "" : " " + code)
        + (reason == null ? "" : ": " + reason));
  }

  private HttpClient http() {
    HttpClient h = http;
    if (h == null) {
      synchronized (this) {
        h = http;
        if (h == null) {
          HttpClient.Builder b = HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade on plain http
              .connectTimeout(settings.connectTimeout())
              .followRedirects(HttpClient.Redirect.NEVER);
          SSLContext ssl = settings.sslContext();
          if (ssl != null) {
            b.sslContext(ssl);
          }
          http = h = b.build();
        }
      }
    }
    return h;
  }

  private HttpResponse<String> exchange(HttpRequest request) {
    CompletableFuture<HttpResponse<String>> future = http().sendAsync(request,
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    long millis = settings.requestTimeout().toMillis();
    try {
      // one bound for the whole exchange, connection, headers and body (a request's own time-out covers only part
      // of it, and reports a late body as "connection closed locally")
      return future.get(millis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true); // aborts the exchange (JDK 16+): a late answer is never read, its ids are a gap
      throw new IllegalStateException("timed out after " + millis + " ms", e);
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new GeneIdException("interrupted while waiting for a gene-id server", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof HttpConnectTimeoutException) {
        throw new IllegalStateException("no connection within " + settings.connectTimeout().toMillis() + " ms", cause);
      }
      if (cause instanceof HttpTimeoutException) {
        throw new IllegalStateException("timed out after " + millis + " ms", cause);
      }
      if (cause instanceof ConnectException) {
        throw new IllegalStateException("connection refused", cause);
      }
      if (cause instanceof IOException) {
        throw new IllegalStateException(cause.getClass().getSimpleName()
            + (cause.getMessage() == null ? "" : ": " + cause.getMessage()), cause);
      }
      throw new IllegalStateException(String.valueOf(cause), cause);
    }
  }

  @SuppressWarnings("unchecked")
  private static @Nullable Map<String, @Nullable Object> bodyOf(HttpResponse<String> response) {
    try {
      Object parsed = Json.parse(response.body());
      return parsed instanceof Map ? (Map<String, @Nullable Object>) parsed : null;
    } catch (IllegalArgumentException notJson) {
      return null;
    }
  }

  private Info checkInfo(URI address, Map<String, @Nullable Object> body) {
    return checkInfo(address, parseInfo(body));
  }

  private static Info parseInfo(Map<String, @Nullable Object> body) {
    GeneIdLayout layout;
    int maxCount;
    long workerId;
    try {
      layout = GeneIdLayout.builder()
          .epoch(Instant.ofEpochMilli(Long.parseLong(string(body, "epochMillis"))))
          .timestampBits(integer(body, "timestampBits"))
          .workerBits(integer(body, "workerBits"))
          .sequenceBits(integer(body, "sequenceBits"))
          .geneBits(integer(body, "geneBits"))
          .build();
      maxCount = integer(body, "maxCount");
      workerId = body.get("workerId") instanceof Long w ? w : -1;
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("/v1/info is not the documented shape: " + e.getMessage(), e);
    }
    return new Info(layout, Math.max(1, maxCount), workerId, stringOrNull(body.get("instance")));
  }

  private Info checkInfo(URI address, Info info) {
    GeneIdLayout layout = info.layout();
    Integer expected = settings.geneBits();
    if (expected != null && layout.geneBits() != expected) {
      throw new IllegalStateException("its ids carry " + layout.geneBits() + " gene bits but this client is"
          + " configured for " + expected);
    }
    synchronized (this) {
      Info first = agreed;
      if (first == null) {
        agreed = info;
      } else if (!first.layout().equals(layout)) {
        throw new IllegalStateException("its layout " + layout + " differs from the other servers' " + first.layout()
            + "; all servers of a client must share one layout");
      }
    }
    checkWorkerId(address, info);
    return info;
  }

  /**
   * Refuses a server that issues as the worker id of another address's server (a different instance: one server
   * listed under two addresses is no conflict). The other address is read again first: worker ids move between
   * servers that lease them, and what was read earlier may be stale.
   */
  private void checkWorkerId(URI address, Info info) {
    if (info.workerId() < 0) {
      return;
    }
    List<URI> addresses = settings.addresses();
    for (int j = 0; j < addresses.size(); j++) {
      Info other = checked.get(j);
      URI otherAddress = addresses.get(j);
      if (other == null || otherAddress.equals(address) || other.workerId() != info.workerId()
          || sameInstance(other, info)) {
        continue;
      }
      Info now;
      try {
        now = send(otherAddress, "/v1/info", (a, body) -> parseInfo(body));
      } catch (RuntimeException gone) {
        checked.set(j, null); // read again when used
        continue;
      }
      checked.set(j, now);
      if (now.workerId() == info.workerId() && !sameInstance(now, info)) {
        throw new GeneServerConflictException(info.workerId(), otherAddress, address);
      }
    }
  }

  private static boolean sameInstance(Info a, Info b) {
    return a.instance() != null && a.instance().equals(b.instance());
  }

  /**
   * The {@code n} ids of an answer, each checked to be a non-negative 64-bit decimal string carrying {@code gene}
   * (under the agreed layout), and with {@code ascending} each above the one before (the server's ids of one gene
   * ascend): a server that breaks the contract is passed over, its ids are never handed out.
   */
  private long[] idsOf(Map<String, @Nullable Object> body, long gene, int n, boolean ascending) {
    Info info = agreed;
    long mask = info == null ? 0 : info.layout().maxGene();
    Object raw = body.get("ids");
    if (!(raw instanceof List<?> list)) {
      throw new IllegalStateException("answered without an \"ids\" array");
    }
    if (list.size() != n) {
      throw new IllegalStateException("answered " + list.size() + " ids for count=" + n);
    }
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) {
      Object id = list.get(i);
      if (!(id instanceof String s)) {
        throw new IllegalStateException("answered an id that is not a JSON string: " + id);
      }
      long value;
      try {
        value = Long.parseLong(s);
      } catch (NumberFormatException e) {
        throw new IllegalStateException("answered an id that is not a 64-bit decimal: '" + s + "'", e);
      }
      if (value < 0) {
        throw new IllegalStateException("answered a negative id " + value);
      }
      if ((value & mask) != gene) {
        throw new IllegalStateException("answered id " + value + " of gene " + (value & mask) + " when asked for"
            + " gene " + gene);
      }
      if (ascending && i > 0 && value <= ids[i - 1]) {
        throw new IllegalStateException("answered id " + value + " after " + ids[i - 1] + ": ids of one gene must"
            + " ascend");
      }
      ids[i] = value;
    }
    return ids;
  }

  private static String string(Map<String, @Nullable Object> body, String name) {
    Object value = body.get(name);
    if (value instanceof String s) {
      return s;
    }
    throw new IllegalArgumentException("\"" + name + "\" must be a string but was " + value);
  }

  private static int integer(Map<String, @Nullable Object> body, String name) {
    Object value = body.get(name);
    if (value instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
      return (int) (long) l;
    }
    throw new IllegalArgumentException("\"" + name + "\" must be a whole number but was " + value);
  }

  private static @Nullable String stringOrNull(@Nullable Object value) {
    return value instanceof String s ? s : null;
  }

  @Override
  public String toString() {
    return "ServerCalls" + settings.addresses();
  }
}
