package io.geneid.client;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.internal.Checks;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Gene ids from one or more gene-id servers ({@code gene-id-server}, docs/server.md), buffered ahead so that a caller
 * rarely waits on the network. It is a {@link GeneIdGenerator}: ShardingSphere ({@code GENE_SERVER}), MyBatis-Plus
 * ({@code new GeneIdentifierGenerator(client)}) and application code take ids from it as from the library's own
 * generator, with the same gene rules and the same {@link GeneContext} scopes.
 *
 * <pre>{@code
 * GeneIdClient ids = GeneIdClient.builder()
 *     .addresses("http://ids-1.internal:8080", "http://ids-2.internal:8080")
 *     .bearerToken(System.getenv("GENE_ID_TOKEN"))
 *     .build();
 * long orderId = ids.nextId();              // a root row: genes spread over all 2^G genes
 * long itemId = ids.nextIdFor(orderId);     // carries the order's gene: same shard
 * GeneIdGenerator orders = ids.segments("order");
 * long shortId = orders.nextIdFor(orderId); // a segment id of key 'order' with the order's gene
 * }</pre>
 *
 * <h2>Buffers</h2>
 * Snowflake ids are bought per gene: each gene has a buffer of ids asked for with that gene, checked on arrival to
 * carry it, and handed out only for it. Segment ids are bought per key (see {@link #segments(String)}). A buffer is
 * filled with {@link Builder#batchSize(int) batchSize} ids on first use; whenever a take leaves
 * {@link Builder#lowWaterMark(int) lowWaterMark} ids or fewer, the next batch is fetched on a background thread, so
 * callers take ids from memory. A caller waits only when a buffer is empty, for at most one fetch: if that fails, it
 * gets the fetch's exception. Every id is handed out once: buffers are taken from under a lock that no network call
 * holds. A batch above {@code batchSize} ({@link #nextIds(int)}) is fetched for the caller alone, in requests of at
 * most the server's {@code maxCount}.
 *
 * <p>What buffering changes: an id's timestamp is when the server issued it, which may be a while before the client
 * hands it out, and ids of one gene from two servers are not ordered by the time the client hands them out. Ids
 * still never repeat; ids left in buffers at {@link #close()} (or at exit) are gaps.
 *
 * <h2>Servers, time-outs and failures</h2>
 * Each request goes to the address that answered last, and on failure to the next address within the same call
 * (each attempt bounded by {@link Builder#requestTimeout(Duration)}), round the list
 * {@link Builder#retryRounds(int) 1 + retryRounds} times. When no server answers the caller gets a
 * {@link GeneServerUnavailableException} that names every address tried and what happened there, with the last
 * failure as its cause; when a server refuses the request (a bad token, an unknown segment key), a
 * {@link GeneServerRefusedException} with the server's code and reason. No exception means an id was issued twice: a
 * caller that retries later cannot get a duplicate. Before its first ids, each server's layout ({@code /v1/info}) is
 * checked against the others' and against {@link Builder#geneBits(int)}: a server on another layout is passed over.
 *
 * <p>Thread-safe. Build one client per process (per set of servers) and share it; it starts no thread until ids are
 * asked for, and {@link #close()} stops its refill threads.
 */
public final class GeneIdClient implements GeneIdGenerator, AutoCloseable {

  /** Segment keys the server accepts: 1 to 128 of {@code A-Z a-z 0-9 . _ - :}. */
  private static final Pattern SEGMENT_KEY = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final AtomicInteger CLIENTS = new AtomicInteger();

  private final ClientSettings settings;
  private final ServerCalls calls;
  private final ExecutorService refills;
  private final SnowflakeIds snowflakes;
  private final ConcurrentMap<String, SegmentIds> segments = new ConcurrentHashMap<>();
  private final String name;
  private volatile boolean closed;

  private GeneIdClient(ClientSettings settings) {
    this.settings = settings;
    this.calls = new ServerCalls(settings);
    this.name = "GeneIdClient-" + CLIENTS.incrementAndGet() + settings.addresses();
    this.refills = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "gene-id-client-refill");
      t.setDaemon(true);
      return t;
    });
    this.snowflakes = new SnowflakeIds(this);
  }

  /** A builder; {@link Builder#addresses(String...)} is required, every other setting has a default. */
  public static Builder builder() {
    return new Builder();
  }

  // ------------------------------------------------------------------------------------------------ ids

  /**
   * An id for a root row (its gene from a spread over all genes, so roots balance over shards), or inside a
   * {@link GeneContext} scope one carrying the gene of the scope's parent key.
   *
   * @throws GeneServerUnavailableException if the buffer is empty and no server answers
   */
  @Override
  public long nextId() {
    return snowflakes.nextId();
  }

  /** An id carrying {@code gene}; {@link IllegalArgumentException} if it is not in {@code [0, 2^G - 1]}. */
  @Override
  public long nextId(long gene) {
    return snowflakes.nextId(gene);
  }

  /** An id carrying the gene of a numeric parent key (its low G bits). */
  @Override
  public long nextIdFor(long parentKey) {
    return snowflakes.nextIdFor(parentKey);
  }

  /** An id carrying the gene of a string parent key (CRC-32C of its UTF-8 bytes, low G bits). */
  @Override
  public long nextIdFor(String parentKey) {
    return snowflakes.nextIdFor(parentKey);
  }

  /** An id carrying the gene of a whole-number, string or UUID parent key. */
  @Override
  public long nextIdForKey(Object parentKey) {
    return snowflakes.nextIdForKey(parentKey);
  }

  /**
   * {@code n} ids as {@code n} calls of {@link #nextId()} would give them, each gene's ids taken from its buffer as
   * one run (or fetched for this call when more than {@code batchSize}).
   */
  @Override
  public long[] nextIds(int n) {
    return snowflakes.nextIds(n);
  }

  /** {@code n} ids carrying the gene of a numeric parent key, in the order the server issued them. */
  @Override
  public long[] nextIdsFor(long parentKey, int n) {
    return snowflakes.nextIdsFor(parentKey, n);
  }

  /** {@code id & (2^G - 1)}, G of the servers' layout. */
  @Override
  public long getGene(long id) {
    return snowflakes.getGene(id);
  }

  /** G of the servers' layout (read from the first server that answers, once). */
  @Override
  public int geneBits() {
    return snowflakes.geneBits();
  }

  /**
   * The servers' layout, from the {@code /v1/info} of the first server that answers (once): to decode ids
   * ({@link GeneIdLayout#decode(long)}) and compute genes without a request.
   *
   * @throws GeneServerUnavailableException if it is not known yet and no server answers
   */
  public GeneIdLayout layout() {
    return calls.info().layout();
  }

  /**
   * The segment ids of a business key (the server's {@code /v1/segments/{key}/ids}): short, dense ids
   * {@code value << G | gene}, as a {@link GeneIdGenerator} with the same gene rules. One buffer per key serves all
   * genes: a segment value is unique for its key whatever gene it carries, so the client buys values and sets the
   * gene when it hands an id out. The same key always gives the same object.
   *
   * @throws IllegalArgumentException if the key is not 1 to 128 of {@code A-Z a-z 0-9 . _ - :}
   */
  public GeneIdGenerator segments(String key) {
    Objects.requireNonNull(key, "key");
    if (!SEGMENT_KEY.matcher(key).matches()) {
      throw new IllegalArgumentException("segment key must be 1 to 128 of A-Z a-z 0-9 . _ - : but was '" + key + "'");
    }
    if (closed) {
      throw new GeneIdException(this + " is closed");
    }
    return segments.computeIfAbsent(key, k -> new SegmentIds(this, k));
  }

  /** Ids held in this client's buffers now, over all genes and segment keys (for metrics and tests). */
  public long bufferedIds() {
    long sum = snowflakes.buffered();
    for (SegmentIds s : segments.values()) {
      sum += s.buffered();
    }
    return sum;
  }

  /**
   * Drops the buffered ids (gaps, never handed out), fails the callers waiting for a refill and stops the refill
   * threads. Later calls throw a {@link GeneIdException}. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    snowflakes.close();
    segments.values().forEach(SegmentIds::close);
    refills.shutdownNow();
  }

  @Override
  public String toString() {
    return name;
  }

  // ------------------------------------------------------------------------------------------- for the buffers

  ClientSettings settings() {
    return settings;
  }

  ServerCalls calls() {
    return calls;
  }

  IdBuffer newBuffer(String what, IdBuffer.Source source) {
    return new IdBuffer(this + " " + what, source, settings.batchSize(), settings.lowWaterMark(),
        settings.retryPause().toNanos(), settings.maxWait().toNanos(), refills);
  }

  /** {@code n} ids from {@code request}, in requests of at most the server's {@code maxCount}. */
  long[] fetchChunked(int n, IntFunction<long[]> request) {
    int max = calls.info().maxCount();
    if (n <= max) {
      return request.apply(n);
    }
    long[] ids = new long[n];
    for (int done = 0; done < n; ) {
      int chunk = Math.min(max, n - done);
      System.arraycopy(request.apply(chunk), 0, ids, done, chunk);
      done += chunk;
    }
    return ids;
  }

  /** A batch above {@code batchSize}, fetched for this caller alone, into {@code into[from ..]}. */
  void fetchDirect(long[] into, int from, int count, IntFunction<long[]> request) {
    if (closed) {
      throw new GeneIdException(this + " is closed");
    }
    System.arraycopy(fetchChunked(count, request), 0, into, from, count);
  }

  /**
   * Configuration of a {@link GeneIdClient}. Each setter checks its value at once (naming it and its range); build()
   * checks the rest.
   */
  public static final class Builder {
    private final List<URI> addresses = new ArrayList<>();
    private Duration connectTimeout = Duration.ofSeconds(1);
    private Duration requestTimeout = Duration.ofSeconds(2);
    private int retryRounds = 1;
    private Duration retryPause = Duration.ofMillis(100);
    private int batchSize = 1000;
    private int lowWaterMark = -1;
    private @Nullable String bearerToken;
    private @Nullable Integer geneBits;
    private @Nullable SSLContext sslContext;

    private Builder() {}

    /**
     * The servers, tried in this order first: base URLs such as {@code http://127.0.0.1:8080} or
     * {@code https://ids.internal/gene-id} (a path is a prefix before {@code /v1/...}). Replaces earlier addresses.
     *
     * @throws IllegalArgumentException for an address that is not an http or https URL with a host, naming it
     */
    public Builder addresses(String... urls) {
      List<URI> parsed = new ArrayList<>();
      for (String url : urls) {
        parsed.add(parse(url));
      }
      return addresses(parsed);
    }

    /** As {@link #addresses(String...)}. */
    public Builder addresses(Collection<URI> urls) {
      List<URI> checked = new ArrayList<>();
      for (URI url : urls) {
        checked.add(check(Objects.requireNonNull(url, "address")));
      }
      addresses.clear();
      addresses.addAll(checked);
      return this;
    }

    private static URI parse(String url) {
      try {
        return check(new URI(Objects.requireNonNull(url, "address").trim()));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("address must be an http or https URL such as http://127.0.0.1:8080 but"
            + " was '" + url + "'", e);
      }
    }

    private static URI check(URI url) {
      String scheme = url.getScheme();
      if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null
          || url.getRawQuery() != null || url.getRawFragment() != null || url.getRawUserInfo() != null) {
        throw new IllegalArgumentException("address must be an http or https URL with a host and no query, fragment"
            + " or user info, such as http://127.0.0.1:8080, but was '" + url + "'");
      }
      String text = url.toString();
      while (text.endsWith("/")) {
        text = text.substring(0, text.length() - 1);
      }
      return URI.create(text);
    }

    /** How long to wait for a TCP (and TLS) connection, in [1ms, 1m]; default 1s. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = Checks.duration("connectTimeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(1));
      return this;
    }

    /**
     * How long one attempt at one address may take, connection included, in [1ms, 10m]; default 2s. Past it the
     * attempt is abandoned (a late answer is dropped: its ids are a gap) and the next address is tried.
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = Checks.duration("requestTimeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(10));
      return this;
    }

    /** How many more times to go round the addresses after a round without an answer, in [0, 10]; default 1. */
    public Builder retryRounds(int rounds) {
      Checks.range("retryRounds", rounds, 0, 10);
      this.retryRounds = rounds;
      return this;
    }

    /**
     * The pause before another round, and between background refills while the servers fail, in [0, 1m]; default
     * 100ms.
     */
    public Builder retryPause(Duration pause) {
      this.retryPause = Checks.duration("retryPause", pause, Duration.ZERO, Duration.ofMinutes(1));
      return this;
    }

    /**
     * Ids fetched per refill of a buffer (a gene's, or a segment key's), in [1, 65536]; default 1000. Requests above
     * the server's {@code maxCount} are split.
     */
    public Builder batchSize(int size) {
      Checks.range("batchSize", size, 1, GeneIdGenerator.MAX_BATCH);
      this.batchSize = size;
      return this;
    }

    /**
     * A buffer with this many ids or fewer left is refilled in the background, in [0, 65536]; default a quarter of
     * the batch size. 0 refills only when a buffer is empty (a caller then waits); a mark above the batch size keeps
     * several batches ready.
     */
    public Builder lowWaterMark(int ids) {
      Checks.range("lowWaterMark", ids, 0, GeneIdGenerator.MAX_BATCH);
      this.lowWaterMark = ids;
      return this;
    }

    /**
     * The token sent as {@code Authorization: Bearer <token>} (the server's {@code auth-tokens}); default none. Never
     * logged, nor written by {@code toString()}.
     *
     * @throws IllegalArgumentException if it is empty or holds anything but visible ASCII (the token is not shown)
     */
    public Builder bearerToken(@Nullable String token) {
      if (token != null && (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f))) {
        throw new IllegalArgumentException("bearerToken must be 1 or more visible ASCII characters without spaces"
            + " (the value is not shown)");
      }
      this.bearerToken = token;
      return this;
    }

    /**
     * The gene bits G the application routes with (its {@code GENE_MOD} {@code gene-bits}), in [0, 16]: a server
     * whose layout has another G is refused. Default: any, the servers' own.
     */
    public Builder geneBits(int bits) {
      Checks.range("geneBits", bits, 0, GeneIdLayout.MAX_GENE_BITS);
      this.geneBits = bits;
      return this;
    }

    /** The TLS context for {@code https} addresses (a trust store, or a key store for mutual TLS). */
    public Builder sslContext(SSLContext context) {
      this.sslContext = Objects.requireNonNull(context, "sslContext");
      return this;
    }

    /**
     * For {@code https} addresses, trusts exactly the certificates of a PEM file (the servers' own certificate, such
     * as a self-signed one, or the authority that signed theirs) instead of the JDK's trust store. Replaces an
     * earlier {@link #sslContext}; for mutual TLS build the {@link SSLContext} yourself.
     *
     * @throws IllegalArgumentException if the file cannot be read or holds no PEM certificate, naming it
     */
    public Builder trustCertificates(Path pemFile) {
      Objects.requireNonNull(pemFile, "pemFile");
      try (InputStream in = Files.newInputStream(pemFile)) {
        Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
        if (certs.isEmpty()) {
          throw new IllegalArgumentException("trustCertificates: " + pemFile + " holds no certificate "
              + "(-----BEGIN CERTIFICATE-----)");
        }
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        int i = 0;
        for (Certificate c : certs) {
          trusted.setCertificateEntry("gene-id-server-" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        this.sslContext = context;
        return this;
      } catch (IOException e) {
        throw new IllegalArgumentException("trustCertificates: cannot read " + pemFile + " ("
            + e.getClass().getSimpleName() + ")", e);
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException("trustCertificates: " + pemFile + " is not a PEM file of X.509 "
            + "certificates (" + e.getMessage() + ")", e);
      }
    }

    /**
     * A client with these settings. Contacts no server: the first id request does.
     *
     * @throws IllegalArgumentException if no address was given
     */
    public GeneIdClient build() {
      if (addresses.isEmpty()) {
        throw new IllegalArgumentException("addresses must name at least one gene-id server, such as"
            + " http://127.0.0.1:8080");
      }
      int mark = lowWaterMark >= 0 ? lowWaterMark : batchSize / 4;
      return new GeneIdClient(new ClientSettings(addresses, connectTimeout, requestTimeout, retryRounds, retryPause,
          batchSize, mark, bearerToken, geneBits, sslContext));
    }
  }
}
