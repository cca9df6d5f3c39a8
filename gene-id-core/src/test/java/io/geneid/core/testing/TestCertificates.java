package io.geneid.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed certificates made at test time by the JDK's own {@code keytool} (no certificate library needed): an EC
 * key pair for {@code localhost} and {@code 127.0.0.1}, valid for two days, written as PEM files the way an operator
 * would hand them to a server. Shared through core's test-jar.
 *
 * @param certificate the certificate, PEM
 * @param privateKey its private key, unencrypted PKCS#8 PEM
 * @param keyStore both, as a PKCS#12 key store with password {@link #PASSWORD} (for a client's key manager)
 */
public record TestCertificates(Path certificate, Path privateKey, Path keyStore) {
  public static final String PASSWORD = "changeit";

  /** A new key pair and certificate for {@code cn} in {@code dir}, files named after {@code name}. */
  public static TestCertificates create(Path dir, String name, String cn) {
    Path store = dir.resolve(name + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    List<String> command = List.of(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname",
        "secp256r1", "-dname", "CN=" + cn, "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2",
        "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD);
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(TestTime.seconds(60).toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("keytool failed: " + out);
      }
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        ks.load(in, PASSWORD.toCharArray());
      }
      Certificate cert = ks.getCertificate(name);
      Key key = ks.getKey(name, PASSWORD.toCharArray());
      Path certificate = dir.resolve(name + ".crt.pem");
      Path privateKey = dir.resolve(name + ".key.pem");
      Files.writeString(certificate, pem("CERTIFICATE", cert.getEncoded()));
      Files.writeString(privateKey, pem("PRIVATE KEY", key.getEncoded()));
      return new TestCertificates(certificate, privateKey, store);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
