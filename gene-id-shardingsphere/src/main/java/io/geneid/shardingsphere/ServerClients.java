package io.geneid.shardingsphere;

import io.geneid.client.GeneIdClient;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.snowflake.GeneIdRegistry;

/**
 * The {@code gene-id-client} side of {@link GeneServerKeyGenerateAlgorithm}, in a class of its own so that the
 * algorithm class loads (ShardingSphere's SPI loads every key generator) when {@code gene-id-client}, an optional
 * dependency, is absent: this class is loaded only once {@code GENE_SERVER} is configured.
 */
final class ServerClients {

  private ServerClients() {}

  private static GeneIdClient.Builder builder(GeneServerKeyGenerateAlgorithm.Settings s) {
    GeneIdClient.Builder b = GeneIdClient.builder()
        .addresses(s.urls().toArray(String[]::new))
        .geneBits(s.geneBits())
        .connectTimeout(s.connectTimeout())
        .requestTimeout(s.requestTimeout())
        .retryRounds(s.retryRounds())
        .retryPause(s.retryPause())
        .batchSize(s.batchSize())
        .lowWaterMark(s.lowWaterMark());
    if (s.bearerToken() != null) {
      b.bearerToken(s.bearerToken());
    }
    return b;
  }

  /** Runs the client builder's checks on the settings, with the property names in the messages. */
  static void check(GeneServerKeyGenerateAlgorithm.Settings s, String type) {
    try {
      builder(s).build().close(); // reaches no server, starts no thread
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(type + ": " + e.getMessage(), e);
    }
    if (s.bizTag() != null) {
      try (GeneIdClient probe = builder(s).build()) {
        probe.segments(s.bizTag());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(type + " property '" + GeneServerKeyGenerateAlgorithm.BIZ_TAG + "': "
            + e.getMessage(), e);
      }
    }
  }

  /** The JVM-wide client of these settings, created on first use. */
  static GeneIdGenerator shared(GeneServerKeyGenerateAlgorithm.Settings s) {
    return GeneIdRegistry.shared(s.clientKey(), () -> builder(s).build());
  }

  /** The segment ids of {@code key} from a client of {@link #shared}. */
  static GeneIdGenerator segments(GeneIdGenerator client, String key) {
    return ((GeneIdClient) client).segments(key);
  }
}
