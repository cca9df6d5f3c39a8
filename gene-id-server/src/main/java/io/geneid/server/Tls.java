package io.geneid.server;

import io.geneid.core.settings.SettingsReader;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * TLS on both ports, off by default: the certificate chain and its private key from PEM files, and optionally the
 * certificate authorities whose client certificates every client must present (mutual TLS). Read and checked once,
 * at start-up and by {@code --check}: a file that is missing, unreadable or not PEM, or a key that does not belong to
 * the chain's first certificate, is an error naming the key and the file. The JDK does the TLS (Netty's JDK provider;
 * no native library).
 *
 * @param http the context of the HTTP port
 * @param grpc the context of the gRPC port (ALPN {@code h2})
 */
record Tls(SslContext http, SslContext grpc, String subject) {
  static final String CERT_CHAIN = "tls-cert-chain";
  static final String PRIVATE_KEY = "tls-private-key";
  static final String CLIENT_CA = "tls-client-ca";

  private static final Pattern PKCS8 = Pattern.compile(
      "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  /** The TLS of these settings, or null when {@code tls-cert-chain} and {@code tls-private-key} are not set. */
  static @Nullable Tls read(SettingsReader s) {
    if (!s.has(CERT_CHAIN) && !s.has(PRIVATE_KEY)) {
      if (s.has(CLIENT_CA)) {
        throw new IllegalArgumentException(CLIENT_CA + " needs " + CERT_CHAIN + " and " + PRIVATE_KEY
            + ": client certificates are asked for inside TLS");
      }
      return null;
    }
    if (!s.has(CERT_CHAIN) || !s.has(PRIVATE_KEY)) {
      throw new IllegalArgumentException(CERT_CHAIN + " and " + PRIVATE_KEY + " go together: set both (PEM files) "
          + "for TLS, or neither; " + (s.has(CERT_CHAIN) ? PRIVATE_KEY : CERT_CHAIN) + " is missing");
    }
    Path chainFile = Path.of(s.string(CERT_CHAIN, ""));
    Path keyFile = Path.of(s.string(PRIVATE_KEY, ""));
    X509Certificate[] chain = certificates(CERT_CHAIN, chainFile);
    PrivateKey key = privateKey(keyFile);
    if (!belongs(key, chain[0])) {
      throw new IllegalArgumentException(PRIVATE_KEY + ": the key in " + keyFile + " does not belong to the first "
          + "certificate of " + CERT_CHAIN + " " + chainFile + " (" + chain[0].getSubjectX500Principal() + ")");
    }
    X509Certificate[] clientCas = s.has(CLIENT_CA) ? certificates(CLIENT_CA, Path.of(s.string(CLIENT_CA, ""))) : null;
    try {
      return new Tls(builder(key, chain, clientCas).build(),
          GrpcSslContexts.configure(builder(key, chain, clientCas), SslProvider.JDK).build(),
          chain[0].getSubjectX500Principal().getName());
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(CERT_CHAIN + " " + chainFile + " and " + PRIVATE_KEY + " " + keyFile
          + ": the JDK's TLS does not take them: " + e.getMessage(), e);
    }
  }

  private static SslContextBuilder builder(PrivateKey key, X509Certificate[] chain,
      X509Certificate @Nullable [] clientCas) {
    SslContextBuilder b = SslContextBuilder.forServer(key, chain).sslProvider(SslProvider.JDK);
    if (clientCas != null) {
      b.trustManager(clientCas).clientAuth(ClientAuth.REQUIRE);
    }
    return b;
  }

  private static byte[] read(String key, Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(key + ": cannot read " + file + " (" + e.getClass().getSimpleName() + ")", e);
    }
  }

  private static X509Certificate[] certificates(String key, Path file) {
    byte[] pem = read(key, file);
    Collection<? extends Certificate> certs;
    try {
      certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
    } catch (CertificateException e) {
      throw new IllegalArgumentException(key + ": " + file + " is not a PEM file of X.509 certificates ("
          + e.getMessage() + ")", e);
    }
    if (certs.isEmpty()) {
      throw new IllegalArgumentException(key + ": " + file + " holds no certificate (-----BEGIN CERTIFICATE-----)");
    }
    return certs.toArray(new X509Certificate[0]);
  }

  private static PrivateKey privateKey(Path file) {
    String pem = new String(read(PRIVATE_KEY, file), StandardCharsets.US_ASCII);
    Matcher m = PKCS8.matcher(pem);
    if (!m.find()) {
      throw new IllegalArgumentException(PRIVATE_KEY + ": " + file + " holds no unencrypted PKCS#8 private key "
          + "(-----BEGIN PRIVATE KEY-----)" + (pem.contains("-----BEGIN RSA PRIVATE KEY-----")
          || pem.contains("-----BEGIN EC PRIVATE KEY-----") ? "; convert it: openssl pkcs8 -topk8 -nocrypt -in "
          + file : ""));
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(1));
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException next) {
        // another algorithm
      }
    }
    throw new IllegalArgumentException(PRIVATE_KEY + ": " + file + " holds a private key of no algorithm the JDK "
        + "reads (RSA, EC, Ed25519, Ed448)");
  }

  /** Whether {@code key} signs what the certificate's public key verifies. */
  private static boolean belongs(PrivateKey key, X509Certificate cert) {
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      default -> key.getAlgorithm(); // EdDSA, Ed25519, Ed448
    };
    try {
      byte[] probe = "gene-id-server".getBytes(StandardCharsets.US_ASCII);
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(key);
      sign.update(probe);
      byte[] signature = sign.sign();
      Signature verify = Signature.getInstance(algorithm);
      verify.initVerify(cert.getPublicKey());
      verify.update(probe);
      return verify.verify(signature);
    } catch (GeneralSecurityException | RuntimeException mismatch) {
      return false;
    }
  }
}
