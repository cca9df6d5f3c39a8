package io.geneid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.TestTime;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.redis.PrivateRedis;
import io.geneid.redis.TestRedis;
import io.geneid.spring.boot.actuate.GeneIdActuatorAutoConfiguration;
import io.geneid.spring.boot.actuate.GeneIdEndpoint;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.infra.spi.type.typed.TypedSPILoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A store password never reaches the user in any form, whatever the store, the URL form and the outcome (#12): every
 * log line (captured stdout/stderr, where Spring Boot's console logging and the JDK's System.Logger write), every
 * exception message, cause and stack trace, the {@code toString()} of every gene-id bean, the health JSON, the
 * endpoint JSON and the Spring failure report. The password holds {@code / + @ : %} and a space; it is looked for
 * raw, percent-encoded, and by each of its 4-character pieces.
 *
 * <p>A private {@code redis-server} with {@code requirepass} is started on a free loopback port (and stopped by pid);
 * PostgreSQL on 127.0.0.1:5432 trusts any password, so its URLs with the secret work; MariaDB's root has none, so its
 * URLs with the secret are refused.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecretsNeverPrintedTest {

  static final String SECRET = "Sx7q/Kp4z+Zr9w@Yt3v:Wv8u%Um2k Hn5j";
  static final String ENCODED = URLEncoder.encode(SECRET, StandardCharsets.UTF_8).replace("+", "%20");
  static final List<String> PIECES =
      List.of(SECRET, ENCODED, "Sx7q", "Kp4z", "Zr9w", "Yt3v", "Wv8u", "Um2k", "Hn5j");
  /** The lease TTL of the runs that must work: 2 s at the tests' time scale (leases on real stores, real time). */
  static final String TTL = TestTime.seconds(2).toMillis() + "ms";

  @TempDir
  static Path dir;
  static PrivateRedis redis;
  static String prefix;
  static final List<String> tables = new ArrayList<>();

  @SpringBootConfiguration
  @ImportAutoConfiguration({GeneIdAutoConfiguration.class, GeneIdActuatorAutoConfiguration.class,
      io.geneid.spring.boot3.actuate.GeneIdHealthAutoConfiguration.class, EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class})
  static class App {}

  @BeforeAll
  static void start() {
    redis = PrivateRedis.startWithPassword(dir.resolve("redis"), SECRET);
    prefix = "secrets" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  @AfterAll
  static void stop() throws Exception {
    redis.close();
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
        Statement s = c.createStatement()) {
      for (String table : tables) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
    }
  }

  // ---------------------------------------------------------------- Redis

  @Test
  void redisLeasesThatWorkLogOneLineEachAndShowNoPassword(CapturedOutput output) {
    for (String uri : List.of("redis://:" + ENCODED + "@127.0.0.1:" + redis.port() + "/0",
        "redis://default:" + ENCODED + "@127.0.0.1:" + redis.port() + "/0")) {
      int from = output.getAll().length();
      String space = agedSpace();
      String seen = run(true, "--gene-id.worker-assigner=redis", "--gene-id.redis.uri=" + uri,
          "--gene-id.redis.lease-key-prefix=" + prefix, "--gene-id.lease.space=" + space, "--gene-id.lease.ttl=" + TTL);
      assertNoSecret(uri, seen + output.getAll());
      // #12 item 13: one line per lease event, naming space, worker id and the store as host:port/db
      String log = output.getAll().substring(from);
      String store = "at redis://127.0.0.1:" + redis.port() + "/0";
      assertThat(lines(log, "\\bleased worker id \\d+ of space '" + space + "' " + Pattern.quote(store))).as(log)
          .hasSize(1);
      assertThat(lines(log, "released worker id \\d+ of space '" + space + "' " + Pattern.quote(store))).as(log)
          .hasSize(1);
      assertThat(lines(log, "worker id \\d+ of space '" + space + "'")).as(log).hasSize(2);
    }
  }

  @Test
  void redisFailuresShowNoPassword(CapturedOutput output) {
    int closed = PrivateRedis.freePort();
    for (String uri : List.of(
        "redis://:" + ENCODED + "x@127.0.0.1:" + redis.port() + "/0", // wrong password: authentication failed
        "redis://:" + ENCODED + "@127.0.0.1:" + closed + "/0", // nobody listening
        "redis://:" + SECRET + "@127.0.0.1:" + redis.port() + "/0", // not percent-encoded: unparsable
        "redis://:" + ENCODED + "@127.0.0.1:" + redis.port() + "/zero")) { // unparsable database
      String seen = run(false, "--gene-id.worker-assigner=redis", "--gene-id.redis.uri=" + uri,
          "--gene-id.redis.lease-key-prefix=" + prefix, "--gene-id.lease.space=" + agedSpace(),
          "--gene-id.lease.acquire-timeout=0s", "--gene-id.redis.timeout=1s");
      assertNoSecret(uri, seen + output.getAll());
    }
  }

  @Test
  void redisSegmentsShowNoPassword(CapturedOutput output) {
    String good = "redis://:" + ENCODED + "@127.0.0.1:" + redis.port() + "/0";
    String seen = run(true, "--gene-id.worker-assigner=none", "--gene-id.segment.store=redis", "--gene-id.redis.uri=" + good,
        "--gene-id.redis.segment-key-prefix=" + prefix + ":seg:", "--gene-id.segment.tags=order",
        "--gene-id.redis.segment-allow-without-persistence=true");
    assertNoSecret(good, seen + output.getAll());
    String wrong = "redis://:" + ENCODED + "x@127.0.0.1:" + redis.port() + "/0";
    seen = run(false, "--gene-id.worker-assigner=none", "--gene-id.segment.store=redis", "--gene-id.redis.uri=" + wrong,
        "--gene-id.redis.segment-key-prefix=" + prefix + ":seg:", "--gene-id.segment.tags=order",
        "--gene-id.redis.segment-allow-without-persistence=true");
    assertNoSecret(wrong, seen + output.getAll());
  }

  // ---------------------------------------------------------------- JDBC

  @Test
  void jdbcLeasesThatWorkShowNoPassword(CapturedOutput output) {
    String url = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&password=" + ENCODED;
    String seen = run(true, "--gene-id.worker-assigner=jdbc", "--gene-id.jdbc.url=" + url,
        "--gene-id.jdbc.create-tables=true", "--gene-id.jdbc.lease-table=" + table(), "--gene-id.lease.ttl=" + TTL);
    assertNoSecret(url, seen + output.getAll());
    seen = run(true, "--gene-id.worker-assigner=jdbc", "--gene-id.jdbc.url=jdbc:postgresql://127.0.0.1:5432/test",
        "--gene-id.jdbc.username=postgres", "--gene-id.jdbc.password=" + SECRET,
        "--gene-id.jdbc.create-tables=true", "--gene-id.jdbc.lease-table=" + table(), "--gene-id.lease.ttl=" + TTL);
    assertNoSecret("gene-id.jdbc.password", seen + output.getAll());
  }

  @Test
  void jdbcFailuresShowNoPassword(CapturedOutput output) {
    for (String url : List.of(
        "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=" + ENCODED, // access denied
        "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=" + SECRET, // as typed
        "jdbc:mariadb://root:" + SECRET + "@127.0.0.1:3306/test", // user-info form
        "jdbc:mariadb://127.0.0.1:" + PrivateRedis.freePort() + "/test?user=root&pwd=" + SECRET, // nobody there
        "jdbc:nosuchdb://127.0.0.1/test?user=root&password=" + SECRET)) { // no driver
      String seen = run(false, "--gene-id.worker-assigner=jdbc", "--gene-id.jdbc.url=" + url,
          "--gene-id.jdbc.create-tables=true", "--gene-id.jdbc.lease-table=" + table(),
          "--gene-id.lease.acquire-timeout=0s");
      assertNoSecret(url, seen + output.getAll());
    }
  }

  // ---------------------------------------------------------------- ShardingSphere

  @Test
  void shardingSphereAlgorithmsShowNoPassword(CapturedOutput output) {
    String goodRedis = "redis://:" + ENCODED + "@127.0.0.1:" + redis.port() + "/0";
    String space = agedSpace();
    StringBuilder seen = new StringBuilder();
    seen.append(keys("GENE_SNOWFLAKE", "worker-assigner", "redis", "redis-uri", goodRedis,
        "redis-key-prefix", prefix, "space", space, "lease-ttl", TTL));
    seen.append(keys("GENE_SNOWFLAKE", "worker-assigner", "redis", "redis-uri", goodRedis + "x",
        "redis-key-prefix", prefix, "space", agedSpace(), "lease-acquire-timeout", "0s"));
    seen.append(keys("GENE_SNOWFLAKE", "worker-assigner", "redis",
        "redis-uri", "redis://:" + SECRET + "@127.0.0.1:" + redis.port() + "/0"));
    seen.append(keys("GENE_SNOWFLAKE", "worker-assigner", "jdbc",
        "jdbc-url", "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=" + SECRET, "lease-acquire-timeout", "0s"));
    seen.append(keys("GENE_SNOWFLAKE", "worker-assigner", "jdbc", "jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test",
        "jdbc-username", "postgres", "jdbc-password", SECRET, "jdbc-create-table", "true", "jdbc-table", table()));
    seen.append(keys("GENE_SEGMENT", "store", "redis", "redis-uri", goodRedis, "redis-key-prefix", prefix + ":ss:",
        "redis-allow-without-persistence", "true"));
    seen.append(keys("GENE_SEGMENT", "store", "redis", "redis-uri", "redis://:" + SECRET + "@127.0.0.1:1/0"));
    seen.append(keys("GENE_SEGMENT", "store", "jdbc", "jdbc-url", "jdbc:nosuchdb://h/db?password=" + SECRET));
    seen.append(keys("GENE_SEGMENT", "store", "jdbc", "jdbc-url", "jdbc:mariadb://root:" + SECRET
        + "@127.0.0.1:3306/test"));
    assertNoSecret("ShardingSphere", seen + output.getAll());
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Starts the application with {@code args}; returns what a user can see of it besides the log: the exception
   * chain (messages, causes, suppressed, stack traces) if it fails; else the {@code toString()} of every gene-id
   * bean, the health and endpoint JSON, and an id. The context is closed (releasing leases) before it returns.
   */
  private static String run(boolean mustStart, String... args) {
    SpringApplication app = new SpringApplication(App.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.setBannerMode(Banner.Mode.OFF);
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--management.endpoints.web.exposure.include=health,geneid");
    all.add("--management.endpoint.health.show-details=always");
    all.add("--spring.main.register-shutdown-hook=false");
    StringBuilder seen = new StringBuilder();
    ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    try (ConfigurableApplicationContext context = app.run(all.toArray(String[]::new))) {
      for (Object bean : context.getBeansOfType(Object.class).values()) {
        if (bean.getClass().getName().startsWith("io.geneid")) {
          seen.append(bean).append('\n');
        }
      }
      for (GeneIdGenerator ids : context.getBeansOfType(GeneIdGenerator.class).values()) {
        seen.append(ids.nextId()).append('\n');
        if (ids instanceof LeasedGeneGenerator leased) {
          seen.append(leased.stats()).append(leased.lease().orElse(null)).append('\n');
        }
      }
      for (GeneSegmentGenerators segments : context.getBeansOfType(GeneSegmentGenerators.class).values()) {
        seen.append(segments).append(segments.forTag("order").nextId()).append('\n');
      }
      for (HealthIndicator health : context.getBeansOfType(HealthIndicator.class).values()) {
        seen.append(json.writeValueAsString(health.health())).append('\n');
      }
      for (GeneIdEndpoint endpoint : context.getBeansOfType(GeneIdEndpoint.class).values()) {
        seen.append(json.writeValueAsString(endpoint.layout()))
            .append(json.writeValueAsString(endpoint.decode("12345678901234", null, null).getBody())).append('\n');
      }
      assertThat(mustStart).as("started with %s", String.join(" ", args)).isTrue();
    } catch (AssertionError e) {
      throw e;
    } catch (Throwable t) {
      assertThat(mustStart).as("%s failed: %s", String.join(" ", args), t).isFalse();
      seen.append(chain(t));
    }
    return seen.toString();
  }

  /** {@code keys} from a ShardingSphere key generator built by ShardingSphere from {@code props}, or the failure. */
  private static String keys(String type, String... props) {
    Properties p = new Properties();
    for (int i = 0; i < props.length; i += 2) {
      p.setProperty(props[i], props[i + 1]);
    }
    StringBuilder seen = new StringBuilder();
    try {
      KeyGenerateAlgorithm algorithm = TypedSPILoader.getService(KeyGenerateAlgorithm.class, type, p);
      seen.append(algorithm).append(algorithm.generateKeys(new AlgorithmSQLContext("db", "public", "t_order", "id"),
          2));
    } catch (Throwable t) {
      seen.append(chain(t));
    }
    return seen.append('\n').toString();
  }

  private static String chain(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w)); // messages, causes, suppressed and frames, as a log would show them
    for (Throwable c = t; c != null; c = c.getCause()) {
      w.append(String.valueOf(c)).append('\n');
    }
    return w.toString();
  }

  private static void assertNoSecret(String what, String text) {
    for (String piece : PIECES) {
      int at = text.indexOf(piece);
      assertThat(at).as("the password (%s) of %s appears in: ...%s...", piece, what,
          at < 0 ? "" : text.substring(Math.max(0, at - 300), Math.min(text.length(), at + 100))).isNegative();
    }
  }

  private static List<String> lines(String log, String regex) {
    List<String> found = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^.*" + regex + ".*$").matcher(log);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  private static String agedSpace() {
    String space = "s" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    TestRedis.agePool(redis.redis(), prefix, space);
    return space;
  }

  private static String table() {
    String table = "gid_secret_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    tables.add(table);
    return table;
  }
}
