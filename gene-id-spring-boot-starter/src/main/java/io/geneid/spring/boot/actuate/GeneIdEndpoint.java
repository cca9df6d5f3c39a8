package io.geneid.spring.boot.actuate;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code geneid} actuator endpoint: decodes an id read from a log or a row, and names the shard a
 * {@code GENE_MOD} sharding algorithm routes it to.
 *
 * <pre>
 * GET /actuator/geneid/363362192454193215                    # decode
 * GET /actuator/geneid/363362192454193215?shardingCount=4    # and its target index among 4
 * </pre>
 *
 * <p>The shard is {@code gene % shardingCount}, the target index of {@code GENE_MOD} without a {@code gene-divisor};
 * the count comes from the query parameter or else from {@code management.endpoint.geneid.sharding-count}. A bad id
 * or count answers 400 with a message naming the value and the allowed range. Expose it with
 * {@code management.endpoints.web.exposure.include=health,geneid}.
 */
@Endpoint(id = "geneid")
public class GeneIdEndpoint {

  private final GeneIdLayout layout;
  private final @Nullable Integer shardingCount;

  /**
   * An endpoint for ids of {@code layout}.
   *
   * @param shardingCount the sharding count used when a request names none; {@code null} for none
   * @throws IllegalArgumentException if {@code shardingCount} is not in {@code [1, 2^G]}
   */
  public GeneIdEndpoint(GeneIdLayout layout, @Nullable Integer shardingCount) {
    this.layout = Objects.requireNonNull(layout, "layout");
    if (shardingCount != null && (shardingCount < 1 || shardingCount > layout.geneCount())) {
      throw new IllegalArgumentException(GeneIdEndpointProperties.PREFIX + ".sharding-count must be in [1, "
          + layout.geneCount() + "] but was " + shardingCount + ": with gene-bits " + layout.geneBits()
          + " ids carry " + layout.geneCount() + " genes");
    }
    this.shardingCount = shardingCount;
  }

  /**
   * Decodes {@code id}.
   *
   * @param id the id, in decimal
   * @param shardingCount the number of targets to name the shard among; else the configured one, else none
   * @throws InvalidEndpointRequestException (400) for an id that is not a whole number in {@code [0, 2^63 - 1]}
   *     or a sharding count not in {@code [1, 2^G]}
   */
  @ReadOperation
  public DecodedId decode(@Selector String id, @org.springframework.lang.Nullable Integer shardingCount) {
    // org.springframework.lang.Nullable is what Actuator reads to make a parameter optional
    long value;
    try {
      value = Long.parseLong(id.trim());
    } catch (NumberFormatException e) {
      throw invalid("id must be a whole number in [0, " + Long.MAX_VALUE + "] but was '" + id + "'");
    }
    if (value < 0) {
      throw invalid("id must be in [0, " + Long.MAX_VALUE + "] but was " + value);
    }
    Integer count = shardingCount != null ? shardingCount : this.shardingCount;
    if (count != null && (count < 1 || count > layout.geneCount())) {
      throw invalid("shardingCount must be in [1, " + layout.geneCount() + "] but was " + count + ": with gene-bits "
          + layout.geneBits() + " ids carry " + layout.geneCount() + " genes");
    }
    GeneIdParts parts = layout.decode(value);
    return new DecodedId(Long.toString(value), parts.timestamp().toString(), parts.workerId(), parts.sequence(),
        parts.gene(), describe(layout), count, count == null ? null : parts.gene() % count);
  }

  /** The layout ids are decoded with. */
  public GeneIdLayout layout() {
    return layout;
  }

  private static InvalidEndpointRequestException invalid(String message) {
    return new InvalidEndpointRequestException(message, message);
  }

  static String describe(GeneIdLayout layout) {
    return "T" + layout.timestampBits() + "-W" + layout.workerBits() + "-S" + layout.sequenceBits() + "-G"
        + layout.geneBits() + " from " + layout.epoch();
  }

  /**
   * A decoded id.
   *
   * @param id the id, as a string: JavaScript reads numbers above 2^53 wrongly
   * @param timestamp the instant of its timestamp field, ISO-8601 UTC
   * @param worker its worker id
   * @param sequence its sequence in its millisecond and gene
   * @param gene its gene ({@code id & (2^G - 1)}), the same as its parent's
   * @param layout the layout it was decoded with, e.g. {@code T41-W8-S8-G6 from 2025-01-01T00:00:00Z}
   * @param shardingCount the number of targets the shard is named among; {@code null} if none was given
   * @param shard the target index under {@code GENE_MOD}: {@code gene % shardingCount}; {@code null} without a
   *     sharding count
   */
  public record DecodedId(String id, String timestamp, long worker, long sequence, long gene, String layout,
      @Nullable Integer shardingCount, @Nullable Long shard) {}
}
