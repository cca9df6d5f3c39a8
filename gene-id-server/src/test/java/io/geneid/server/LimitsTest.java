package io.geneid.server;

import static io.geneid.server.HttpApiTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.testing.TestTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Issue #40 items 7 and 9: limits that hold for every client, and what the server says about its set-up. */
class LimitsTest {

  @Test
  void wrongTokensAreRateLimitedToo(@TempDir Path dir) {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "50", "auth-tokens", GuardTest.TOKEN,
        "rate-limit", "0.01", "rate-limit-burst", "3"))) {
      for (int i = 0; i < 3; i++) {
        assertThat(s.get("/v1/ids", "Authorization", "Bearer guess-" + i + "-0123456789").status()).isEqualTo(401);
      }
      assertError(s.get("/v1/ids", "Authorization", "Bearer guess-9-0123456789"), 429, "too_many_requests",
          "rate limit of 0.01 requests per second per client exceeded");
    }
  }

  @Test
  void aFloodOfAddressesDoesNotResetALimitedClient() {
    ClientGuard guard = new ClientGuard(ServerConfig.from(Map.of("rate-limit", "0.001", "rate-limit-burst", "1")));
    guard.admit("10.0.0.1");
    assertThatThrownBy(() -> guard.admit("10.0.0.1")).isInstanceOf(ApiException.class);
    for (int i = 0; i < 100_001; i++) {
      try {
        guard.admit("flood-" + i);
      } catch (ApiException limited) {
        // addresses beyond the table share one bucket
      }
    }
    assertThat(guard.tracked()).as("the table stays bounded").isLessThanOrEqualTo(100_000);
    assertThatThrownBy(() -> guard.admit("10.0.0.1")).as("still limited after the flood")
        .isInstanceOf(ApiException.class).hasMessage("rate limit of 0.001 requests per second per client exceeded");
  }

  @Test
  void createdSegmentKeysAreBoundedAndAnIdleOneFreesItsPlace(@TempDir Path dir) {
    // long enough that a and b (the first creates the segment table) are still in use when c is asked for
    long idle = TestTime.millis(3_000);
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "51", "segment-create-keys", "true",
        "segment-max-keys", "2", "segment-key-idle-timeout", idle + "ms"))) {
      assertThat(s.get("/v1/segments/a/ids").status()).isEqualTo(200);
      assertThat(s.get("/v1/segments/b/ids").status()).isEqualTo(200);
      assertError(s.get("/v1/segments/c/ids"), 404, "unknown_key",
          "segment key 'c' would be key number 3, above segment-max-keys 2; a created key unused for "
              + "segment-key-idle-timeout " + idle + " ms frees its place");
      assertThat(HardeningTest.await(Duration.ofSeconds(30), () -> s.get("/v1/segments/c/ids").status() == 200))
          .as("idle created keys are closed and free their places").isTrue();
      assertThat(s.get("/metrics").body()).doesNotContain("key=\"a\"");
    }
  }

  @Test
  void maxRequestBytesBoundsTheRequestLinePlusHeaders(@TempDir Path dir) {
    try (TestServer s = TestServer.startReady(dir, Map.of("worker-id", "52"))) {
      String longId = "1".repeat(4_500);
      assertError(s.get("/v1/ids/" + longId), 400, "invalid_argument", null); // a 4,500-byte line is read
      String line = "/v1/ids/" + "1".repeat(4_000);
      assertError(s.get(line, "X-Pad", "p".repeat(8_000)), 413, "payload_too_large",
          "the request line and headers exceed max-request-bytes 8192");
    }
  }

  static String[] run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int code;
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      code = new CommandLine(new GeneIdServerMain()).execute(args);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    return new String[] {Integer.toString(code), o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void checkValidatesStoreUris() {
    String[] r = run("--check", "--set", "worker-assigner=redis", "--set", "redis-uri=redis://127.0.0.1:notaport/0");
    assertThat(r[0]).as(r[1] + r[2]).isEqualTo("2");
    assertThat(r[2]).contains("redis-uri must be a Redis URI such as redis://host:6379/0 but was "
        + "'redis://127.0.0.1:notaport/0'");
    r = run("--check", "--set", "segment-store=jdbc", "--set", "segment-jdbc-url=mysql://db/ids");
    assertThat(r[0]).as(r[1] + r[2]).isEqualTo("2");
    assertThat(r[2]).contains("segment-jdbc-url must be a JDBC URL (jdbc:h2:..., jdbc:mariadb://..., "
        + "jdbc:postgresql://...) but was 'mysql://db/ids'");
  }

  @Test
  void theServerPrintsItsAbsoluteDataFolderAndWarnsOnTheStaticDefault(@TempDir Path dir) {
    String[] r = run("--check", "--data-dir", dir.resolve("d").toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1]).contains("data folder " + dir.resolve("d").toAbsolutePath());
    assertThat(r[2]).contains("warning: worker id 0 is the static default");
    r = run("--check", "--set", "worker-id=7", "--data-dir", dir.toString());
    assertThat(r[2]).doesNotContain("static default");
  }
}
