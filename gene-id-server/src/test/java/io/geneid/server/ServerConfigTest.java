package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configuration from file, environment and flags, checked strictly. */
class ServerConfigTest {

  @Test
  void defaultsAreTheEmbeddedSetUpOnLoopback() {
    ServerConfig c = ServerConfig.defaults();
    assertThat(c.host).isEqualTo("127.0.0.1");
    assertThat(c.httpPort()).isEqualTo(8080);
    assertThat(c.grpcPort()).isEqualTo(9090);
    assertThat(c.maxCount).isEqualTo(10_000);
    assertThat(c.accessLog).isFalse();
    assertThat(c.leaseProperties).containsEntry("worker-id", "0")
        .containsEntry("mark-file", c.dataDir.resolve("worker-0.mark").toString());
    assertThat(c.segmentStore).isEqualTo("jdbc");
    assertThat(c.segmentJdbcUrl).isEqualTo("jdbc:h2:file:" + c.dataDir.resolve("segments"));
    assertThat(c.layout().geneBits()).isEqualTo(6);
  }

  @Test
  void anUnknownKeyNamesItsSourceAndTheAllowedKeys() {
    assertThatThrownBy(() -> ServerConfig.load(null, Map.of("GENE_ID_SERVER_HTTP_PROT", "1"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown configuration key 'http-prot' (from environment GENE_ID_SERVER_HTTP_PROT); "
            + "allowed keys: access-log, auth-tokens, auth-tokens-file,")
        .hasMessageContaining("http-port")
        .hasMessageContaining("redis-uri")
        .hasMessageContaining("segment-keys");
  }

  @Test
  void badValuesNameTheKeyAndTheRange() {
    assertThatThrownBy(() -> ServerConfig.from(Map.of("max-count", "70000")))
        .hasMessage("max-count must be in [1, 65536] but was 70000");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("http-port", "70000")))
        .hasMessage("http-port must be in [-1, 65535] but was 70000");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("segment-store", "mongo")))
        .hasMessage("segment-store must be jdbc or redis but was 'mongo'");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("segment-min-step", "0")))
        .hasMessageContaining("segment-min-step");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("gene-bits", "17")))
        .hasMessageContaining("gene-bits");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("worker-assigner", "static", "redis-uri", "redis://x")))
        .hasMessageContaining("redis-uri");
    assertThatThrownBy(() -> ServerConfig.from(Map.of("segment-keys", "ok,not ok")))
        .hasMessage("segment-keys: a key must be 1 to 128 of A-Z a-z 0-9 . _ - : but was 'not ok'");
  }

  @Test
  void flagsWinOverTheEnvironmentWhichWinsOverTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("server.properties");
    Files.writeString(file, "http-port=1001\ngrpc-port=2001\nmax-count=300\nsegment-keys=a\n");
    ServerConfig c = ServerConfig.load(file, Map.of("GENE_ID_SERVER_GRPC_PORT", "2002",
        "GENE_ID_SERVER_MAX_COUNT", "400", "PATH", "/usr/bin", "GENE_ID_OTHER", "x"), Map.of("max-count", "500"));
    assertThat(c.httpPort()).isEqualTo(1001);
    assertThat(c.grpcPort()).isEqualTo(2002);
    assertThat(c.maxCount).isEqualTo(500);
    assertThat(c.segmentKeys).containsExactly("a");
    assertThatThrownBy(() -> ServerConfig.load(dir.resolve("missing.properties"), Map.of(), Map.of()))
        .hasMessageStartingWith("cannot read the configuration file");
  }
}
