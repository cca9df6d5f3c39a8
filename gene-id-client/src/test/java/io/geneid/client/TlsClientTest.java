package io.geneid.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.testing.TestCertificates;
import io.geneid.server.GeneIdServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client over https to a server with TLS on, trusting the server's own PEM certificate (#40). */
class TlsClientTest {

  @Test
  void httpsWithTheServersPemCertificate(@TempDir Path dir) {
    TestCertificates cert = TestCertificates.create(dir, "server", "localhost");
    GeneIdServer server = TestServers.start(40, "tls-cert-chain", cert.certificate().toString(), "tls-private-key",
        cert.privateKey().toString());
    String url = "https://127.0.0.1:" + server.httpPort();
    try (GeneIdClient trusting = GeneIdClient.builder().addresses(url).trustCertificates(cert.certificate())
        .retryRounds(0).build();
        GeneIdClient jdkTrust = GeneIdClient.builder().addresses(url).retryRounds(0).build()) {
      long id = trusting.nextIdFor(42L);
      assertThat(trusting.layout().decode(id).workerId()).isEqualTo(40);
      assertThat(trusting.layout().geneOf(id)).isEqualTo(trusting.layout().geneOf(42L));
      assertThatThrownBy(jdkTrust::nextId).as("the JDK's trust store does not know a self-signed certificate")
          .isInstanceOf(GeneServerUnavailableException.class);
    } finally {
      server.close();
    }
  }

  @Test
  void aFileThatIsNoPemCertificateIsRefusedNamingIt(@TempDir Path dir) throws Exception {
    Path none = dir.resolve("none.pem");
    assertThatThrownBy(() -> GeneIdClient.builder().trustCertificates(none))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trustCertificates: cannot read " + none + " (NoSuchFileException)");
    Path text = java.nio.file.Files.writeString(dir.resolve("text.pem"), "not a certificate\n");
    assertThatThrownBy(() -> GeneIdClient.builder().trustCertificates(text))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("trustCertificates: " + text);
  }
}
