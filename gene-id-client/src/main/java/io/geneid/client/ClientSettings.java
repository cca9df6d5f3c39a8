package io.geneid.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The checked, immutable configuration of a {@link GeneIdClient} ({@link GeneIdClient.Builder} makes it). The
 * bearer token is left out of {@link #toString()}.
 */
record ClientSettings(
    List<URI> addresses,
    Duration connectTimeout,
    Duration requestTimeout,
    int retryRounds,
    Duration retryPause,
    int batchSize,
    int lowWaterMark,
    @Nullable String bearerToken,
    @Nullable Integer geneBits,
    @Nullable SSLContext sslContext) {

  ClientSettings {
    addresses = List.copyOf(addresses);
  }

  /**
   * The longest a caller waits for a refill before giving up on its own: every attempt of every round (an id request
   * and, the first time at an address, its {@code /v1/info}) running into its time-out, plus the pauses, plus a
   * second. A refill ends before that with an answer or a {@link GeneServerUnavailableException}; this bound only
   * guards against a refill thread that never comes back.
   */
  Duration maxWait() {
    long attempts = (long) (retryRounds + 1) * addresses.size() * 2;
    return requestTimeout.multipliedBy(attempts).plus(retryPause.multipliedBy(retryRounds)).plusSeconds(1);
  }

  @Override
  public String toString() {
    return "GeneIdClient.Settings[addresses=" + addresses + ", connectTimeout=" + connectTimeout.toMillis()
        + "ms, requestTimeout=" + requestTimeout.toMillis() + "ms, retryRounds=" + retryRounds + ", retryPause="
        + retryPause.toMillis() + "ms, batchSize=" + batchSize + ", lowWaterMark=" + lowWaterMark + ", bearerToken="
        + (bearerToken == null ? "none" : "(set)") + ", geneBits=" + (geneBits == null ? "the server's" : geneBits)
        + ", tls=" + (sslContext == null ? "default" : "custom") + "]";
  }
}
